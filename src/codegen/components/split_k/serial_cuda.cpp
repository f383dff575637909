// split_k > 1, split_reduce serial, CUDA: the K slices of a tile are added in the GEMM kernel
// itself, in slice order. Slice s waits until the tile's flag reads s, adds its sums to the
// running fp32 sums of slices 0..s-1, stores them (or, the last slice, finishes the output) and
// passes the flag on. This is the in-kernel split-K of cuDNN's implicit-GEMM convolutions and
// cuBLAS's sgemm_largek: one kernel, whose fix-up reads are ordinary global loads.
//
// Progress: blocks are dispatched in linear block order (x, then y, then z) and z = batch x
// kSplit + slice, so a block that waits for slice s - 1 of its tile was dispatched after it: the
// awaited block holds an SM or has finished. The flags are zeroed before each launch, and the
// last slice sets its flag back to 0.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class SerialSplitK final : public SplitK {
 public:
  bool sliced() const override { return true; }
  bool reduction_pass() const override { return false; }
  std::string frame_comment() const override { return " and K slices, added in turn"; }
  std::string constants(const Context& c) const override {
    return "constexpr int kSplit = " + std::to_string(c.d.split_k) + ";  // K slices (serial split-K)\n";
  }
  std::string frame(const Context&, const std::string& k_limit) const override {
    return "const idx_t z = (idx_t)blockIdx.z / kSplit, slice = (idx_t)blockIdx.z % kSplit;\n"
           "const idx_t k_begin = slice * p.k_chunk;\n"
           "const idx_t k_end = k_begin + p.k_chunk < " + k_limit + " ? k_begin + p.k_chunk : " + k_limit + ";\n";
  }
  std::string before_epilogue(const Context&) const override {
    // One thread spins on the flag with acquire loads (L2, not a stale L1 line); the barrier
    // then holds the block until the earlier slices' sums are visible to it.
    return "// Serial split-K: wait for this tile's turn (slices 0..slice-1 have added their sums).\n"
           "int* const flag = t.flags + ((idx_t)z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;\n"
           "if (slice > 0) {\n"
           "if (t_id == 0) {\n"
           "int turn;\n"
           "do {\n"
           "asm volatile(\"ld.acquire.gpu.global.b32 %0, [%1];\" : \"=r\"(turn) : \"l\"(flag) : \"memory\");\n"
           "} while (turn != (int)slice);\n"
           "}\n"
           "__syncthreads();\n"
           "}\n";
  }
  std::string store() const override {
    // The running sums bypass L1 (__ldcg): another SM wrote them.
    return "{\nconst idx_t at = (z * p.M + m) * p.N + n;\n"
           "const float sum = slice > 0 ? __ldcg(t.partial + at) + v : v;\n"
           "if (slice + 1 < kSplit) t.partial[at] = sum;\n"
           "else finish(p, t, z, out_base, m, n, sum);\n}";
  }
  std::string store_run4(const Context& c, bool guarded) const override {
    if (c.d.split_reduce != design::SplitReduce::kSerialVector4) return "";
    // Rows of the running sums padded to a multiple of four columns (the workspace holds them so):
    // a run starts at a multiple of four, so its four sums are one aligned 16-byte load and store.
    // The padding columns past N hold sums nobody finishes.
    std::string s =
        "{\nconst idx_t at = (z * p.M + m) * ((p.N + 3) / 4 * 4) + n;\n"
        "float4 sum = v;\n"
        "if (slice > 0) {\n"
        "const float4 prior = __ldcg(reinterpret_cast<const float4*>(t.partial + at));\n"
        "sum.x = prior.x + v.x;\nsum.y = prior.y + v.y;\nsum.z = prior.z + v.z;\nsum.w = prior.w + v.w;\n"
        "}\n"
        "if (slice + 1 < kSplit) {\n*reinterpret_cast<float4*>(t.partial + at) = sum;\n} else {\n"
        "finish(p, t, z, out_base, m, n, sum.x);\n";
    const char* lanes[] = {"y", "z", "w"};
    for (int e = 1; e <= 3; ++e) {
      const std::string call = std::string("finish(p, t, z, out_base, m, n + ") + std::to_string(e) + ", sum." + lanes[e - 1] + ");\n";
      s += guarded ? "if (n + " + std::to_string(e) + " < p.N) " + call : call;
    }
    return s + "}\n}";
  }
  std::string after_epilogue(const Context&) const override {
    return "// Pass the turn on (the last slice sets the flag back to 0 for the next launch): every\n"
           "// thread's stores first, then one release store.\n"
           "__syncthreads();\n"
           "if (t_id == 0) {\n"
           "__threadfence();\n"
           "const int next = slice + 1 < kSplit ? (int)slice + 1 : 0;\n"
           "asm volatile(\"st.release.gpu.global.b32 [%0], %1;\" : : \"l\"(flag), \"r\"(next) : \"memory\");\n"
           "}\n";
  }
  std::string finish_comment() const override {
    return ": the last K slice finishes the sum of all slices, added in slice order.\n";
  }
  std::string unused_after_mainloop() const override { return ""; }
  std::string pass_body(const Context&) const override { return ""; }
  std::string describe(const Context& c) const override {
    if (c.d.split_reduce == design::SplitReduce::kSerialVector4) {
      return "the slices add their partial sums in turn inside the GEMM kernel (a per-tile flag, acquire/release; no atomics), "
             "reading and writing each thread's runs of four sums as one 16-byte access";
    }
    return "the slices add their partial sums in turn inside the GEMM kernel (a per-tile flag, acquire/release; no atomics)";
  }
};

REGISTER_COMPONENT(SplitK, SerialSplitK, {"serial"}, {Backend::kCuda});

}  // namespace
}  // namespace vxsynth::codegen
