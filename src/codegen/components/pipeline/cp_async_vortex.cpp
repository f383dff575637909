// prefetch = cp_async on Vortex: the CUDA side's ring of kStages (pipeline_stages) tiles, in
// local memory, filled kStages - 1 k-tiles ahead with the barriers in the same places. Vortex
// has no asynchronous copy, so each fill is an ordinary synchronous word copy (fetch + stash).
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class CpAsyncVortex final : public Pipeline {
 public:
  int buffers(const Context& c) const override { return c.d.stages; }
  std::string comment() const override {
    return ": a ring of kStages local tiles filled kStages - 1 k-tiles ahead (synchronous copies: Vortex has no cp.async).\n";
  }
  std::string loop(const Context& c) const override {
    std::string s;
    s += "// Tile kt of the slice lives in stage kt % kStages (`stage`; `fill` = the stage of tile kt - 1,\n"
         "// refilled with tile kt + kStages - 1). The barrier before tile kt says every thread stored it,\n"
         "// and finished tile kt - 1, so its stage can be refilled.\n";
    s += "{\n";
    s += "const idx_t k_tiles = k_begin < k_end ? (k_end - k_begin + kBK - 1) / kBK : 0;  // 0: an empty split-K slice\n";
    s += "for (int stage = 0; stage < kStages - 1; ++stage) {\nif (stage < k_tiles) {\n";
    s += "const idx_t k_copy = k_begin + stage * kBK;\n" + c.staging.fetch(c, "k_copy") + c.staging.stash(c, "stage") + "}\n}\n";
    s += "int stage = 0, fill = kStages - 1;\n";
    s += "for (idx_t kt = 0; kt < k_tiles; ++kt) {\n__syncthreads();\n";
    s += "if (kt + kStages - 1 < k_tiles) {\n";
    s += "const idx_t k_copy = k_begin + (kt + kStages - 1) * kBK;\n" + c.staging.fetch(c, "k_copy") +
         c.staging.stash(c, "fill") + "}\n";
    s += "const idx_t k0 = k_begin + kt * kBK;  // read by compute_tile only when an operand is unstaged\n(void)k0;\n";
    s += c.mainloop.compute_call(c, "k0", "stage");
    s += "stage = stage + 1 == kStages ? 0 : stage + 1;\nfill = fill + 1 == kStages ? 0 : fill + 1;\n}\n";
    s += "__syncthreads();  // every thread is done with the ring (the epilogue and the next CTA of the slot reuse it)\n}\n";
    return s;
  }
  std::string describe(const Context& c) const override {
    return "a ring of kStages " + c.x.tile_memory() +
           " tiles filled kStages - 1 k-tiles ahead, barriers as on CUDA; the copies are synchronous word copies "
           "(Vortex has no asynchronous copy, the CUDA side's cp.async)";
  }
};

REGISTER_COMPONENT(Pipeline, CpAsyncVortex, {"cp_async"}, {Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
