// prefetch = cp_async on CUDA: the staged tiles are a ring of kStages (pipeline_stages) shared
// tiles filled kStages - 1 k-tiles ahead by cp.async (global -> shared without a register round
// trip; elements outside the problem zero-filled by the copy), one commit group per k-tile, as
// the sm80 multistage kernels of CUTLASS and cuBLAS do.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class CpAsyncCuda final : public Pipeline {
 public:
  int buffers(const Context& c) const override { return c.d.stages; }
  bool async_copies() const override { return true; }
  std::string comment() const override {
    return ": a ring of kStages shared tiles, kStages - 1 k-tiles in flight by cp.async.\n";
  }
  std::string functions(const Context& c) const override {
    bool word = false, vector = false;  // which copy sizes the staged operands use
    for (const char operand : {'a', 'b'}) {
      if (!c.staged(operand)) continue;
      (cp_async_elements(c.d, operand) == 4 ? vector : word) = true;
    }
    return primitives(word) + (vector ? vector_copy() : "");
  }
  std::string loop(const Context& c) const override {
    std::string s;
    s += "// Tile kt of the slice lives in stage kt % kStages (`stage`; `fill` = the stage of tile kt - 1,\n"
         "// refilled with tile kt + kStages - 1). Before tile kt is computed, kStages - 1 + kt groups were\n"
         "// committed (one per k-tile, empty ones past the slice's end), so waiting until kStages - 2 are\n"
         "// pending means this thread's copies of tile kt landed; the barrier then makes every thread's\n"
         "// visible, and says every thread finished tile kt - 1, so its stage can be refilled.\n";
    s += "{\n";
    s += "const idx_t k_tiles = k_begin < k_end ? (k_end - k_begin + kBK - 1) / kBK : 0;  // 0: an empty split-K slice\n";
    s += "for (int stage = 0; stage < kStages - 1; ++stage) {\nif (stage < k_tiles) {\n";
    s += "const idx_t k_copy = k_begin + stage * kBK;\n" + c.staging.copy(c, "k_copy", "stage") + "}\ncp_async_commit();\n}\n";
    s += "int stage = 0, fill = kStages - 1;\n";
    s += "for (idx_t kt = 0; kt < k_tiles; ++kt) {\ncp_async_wait<kStages - 2>();\n__syncthreads();\n";
    s += "if (kt + kStages - 1 < k_tiles) {\n";
    s += "const idx_t k_copy = k_begin + (kt + kStages - 1) * kBK;\n" + c.staging.copy(c, "k_copy", "fill") +
         "}\ncp_async_commit();\n";
    s += "const idx_t k0 = k_begin + kt * kBK;  // read by compute_tile only when an operand is unstaged\n(void)k0;\n";
    s += c.mainloop.compute_call(c, "k0", "stage");
    s += "stage = stage + 1 == kStages ? 0 : stage + 1;\nfill = fill + 1 == kStages ? 0 : fill + 1;\n}\n";
    s += "cp_async_wait<0>();  // nothing in flight past the mainloop\n"
         "__syncthreads();     // every thread is done with the ring (the epilogue may reuse it)\n}\n";
    return s;
  }
  std::string describe(const Context& c) const override {
    auto size = [&c](char operand) {
      const int e = cp_async_elements(c.d, operand);
      return std::string(1, static_cast<char>(operand - 'a' + 'A')) + (e == 4 ? " 16-byte" : e == 2 ? " 4-byte pair" : " 4-byte");
    };
    std::string sizes;
    if (c.staged('a')) sizes += size('a');
    if (c.staged('b')) sizes += (sizes.empty() ? "" : ", ") + size('b');
    return "a ring of kStages shared tiles filled kStages - 1 k-tiles ahead by cp.async (" + sizes +
           " copies, src-size 0 zero-fills elements outside the problem), one commit group per k-tile, "
           "cp.async.wait_group kStages - 2 + __syncthreads() before each k-tile";
  }
 private:
  static std::string primitives(bool word) {
    std::string s = R"src(// prefetch cp_async: global -> shared copies without a register round trip (sm_80 and later).
// A copy whose src-size is below its size zero-fills the rest: src-size 0 is an element outside
// the problem, whose (clamped, in-tensor) source address is then not read.
)src";
    if (word) {
      s += R"src(__device__ __forceinline__ void cp_async4(void* dst, const void* src, int src_bytes) {
const unsigned smem_dst = static_cast<unsigned>(__cvta_generic_to_shared(dst));
asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_dst), "l"(src), "r"(src_bytes) : "memory");
}
)src";
    }
    return s + R"src(// Closes this thread's copies issued since the last commit into one group (one per k-tile).
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most kPending of this thread's groups are in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory"); }

)src";
  }
  static std::string vector_copy() {
    return R"src(// 16 bytes (four fp32 along k; source and destination 16-byte aligned), bypassing L1 (.cg).
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int src_bytes) {
const unsigned smem_dst = static_cast<unsigned>(__cvta_generic_to_shared(dst));
asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(src), "r"(src_bytes) : "memory");
}

)src";
  }
};

REGISTER_COMPONENT(Pipeline, CpAsyncCuda, {"cp_async"}, {Backend::kCuda});

}  // namespace
}  // namespace vxsynth::codegen
