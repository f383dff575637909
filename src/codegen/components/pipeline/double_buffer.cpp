// prefetch = double_buffer: two tiles; the next k-tile is stored into the idle one while the
// current one is computed, one barrier per k-tile.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class DoubleBuffer final : public Pipeline {
 public:
  int buffers(const Context&) const override { return 2; }
  std::string comment() const override { return ": two shared tiles; the next k-tile is stored into the idle one.\n"; }
  std::string loop(const Context& c) const override {
    // The slice may be empty (split-K); the branch is uniform over the block.
    return "if (k_begin < k_end) {\n" + c.staging.fetch(c, "k_begin") + c.staging.stash(c, "0") + "__syncthreads();\n" +
           "int buffer = 0;\n" + "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\nconst idx_t k_next = k0 + kBK;\n" +
           "if (k_next < k_end) {\n" + c.staging.fetch(c, "k_next") + "}\n" + c.mainloop.compute_call(c, "k0", "buffer") +
           "if (k_next < k_end) {\n" + c.staging.stash(c, "(buffer ^ 1)") + "}\n__syncthreads();\nbuffer ^= 1;\n" + "}\n}\n";
  }
  std::string describe(const Context& c) const override {
    return "two " + c.x.tile_memory() + " tiles, the next stored into the idle one";
  }
};

REGISTER_COMPONENT(Pipeline, DoubleBuffer, {"double_buffer"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
