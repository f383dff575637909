// split_k > 1 without atomics: blockIdx.z also runs over kSplit K slices, each slice stores
// fp32 partial sums, and a reduction pass adds them in slice order and finishes the output.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class TwoPassSplitK : public SplitK {
 public:
  bool sliced() const override { return true; }
  std::string frame_comment() const override { return " and K slices"; }
  std::string constants(const Context& c) const override {
    return "constexpr int kSplit = " + std::to_string(c.d.split_k) + ";  // K slices (two-pass split-K)\n";
  }
  std::string frame(const Context&, const std::string& k_limit) const override {
    return "const idx_t z = (idx_t)blockIdx.z / kSplit, slice = (idx_t)blockIdx.z % kSplit;\n"
           "const idx_t k_begin = slice * p.k_chunk;\n"
           "const idx_t k_end = k_begin + p.k_chunk < " + k_limit + " ? k_begin + p.k_chunk : " + k_limit + ";\n";
  }
  std::string store() const override { return "t.partial[((slice * p.batch + z) * p.M + m) * p.N + n] = v;"; }
  std::string finish_comment() const override {
    return ": split-K slices store fp32 partial sums, the reduction pass finishes them.\n";
  }
  std::string unused_after_mainloop() const override { return "(void)out_base;\n"; }
  std::string pass_body(const Context&) const override {
    return "// Split-K reduction: add the kSplit partial sums of one output element in slice order.\n"
           "const idx_t z = idx / (p.M * p.N), m = (idx / p.N) % p.M, n = idx % p.N;\n"
           "float v = 0.0f;\nfor (int slice = 0; slice < kSplit; ++slice) v += t.partial[((idx_t)slice * p.batch + z) * p.M * p.N + m * p.N + n];\n"
           "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n(void)a_base;\n(void)b_base;\n"
           "finish(p, t, z, out_base, m, n, v);\n";
  }
  std::string describe(const Context&) const override { return "partial sums + reduction pass (no atomics)"; }
};

REGISTER_COMPONENT(SplitK, TwoPassSplitK, {"two_pass"}, {Backend::kCuda, Backend::kVortex});

// split_reduce serial on Vortex: the same two passes. A block spinning on a tile's flag could
// hold a core's warps while the block it waits for is not yet scheduled on that core, so the
// Vortex side adds the slices, in the same order, after the global barrier (serial_cuda.cpp
// is CUDA's in-kernel schedule).
class TwoPassForSerial final : public TwoPassSplitK {
 public:
  std::string describe(const Context& c) const override {
    return TwoPassSplitK::describe(c) + "; CUDA adds the slices in turn in the GEMM kernel (split_reduce serial), "
           "Vortex keeps the reduction pass after the global barrier";
  }
};

REGISTER_COMPONENT(SplitK, TwoPassForSerial, {"serial"}, {Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
