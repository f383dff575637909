// tensor_core = mma_m16n8k16 / mma_m16n8k8 on CUDA: PTX mma.sync with fragments loaded from
// shared memory lane by lane (tf32 operands converted with cvt.rna.tf32.f32).
#include "codegen/components/mainloop/cuda_fragments.h"
#include "codegen/components/mainloop/tensor_tiles.h"

namespace vxsynth::codegen {
namespace {

class MmaSyncMainloop final : public TensorTilesMainloop {
 public:
  std::string types(const Context& c) const override { return cuda_smem_type(c); }
  std::string geometry(const Context& c) const override { return cuda_fragment_geometry(c); }
  std::string compute_function(const Context& c) const override {
    const Dialect& x = c.x;
    std::ostringstream s;
    const bool tf32 = c.d.fixed.precision == ops::PrecisionPath::tf32;
    const std::string shape = tf32 ? "m16n8k8" : "m16n8k16";
    const std::string type = tf32 ? "tf32" : (c.dtype == ops::DType::bf16 ? "bf16" : "f16");
    s << "// Accumulator fragment of one mma.sync." << shape << ": lane (g = lane / 4, q = lane % 4) holds\n"
         "// C[g][2q], C[g][2q + 1], C[g + 8][2q], C[g + 8][2q + 1].\n";
    s << "struct acc_frag_t {\nfloat x[4];\n};\n\n";
    if (!tf32) {
      s << x.device_fn() << " unsigned load_pair(const smem_t* p) { return *reinterpret_cast<const unsigned*>(p); }\n";
    } else {
      s << x.device_fn() << " unsigned to_tf32(float v) {\nunsigned r;\n"
           "asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(v));\nreturn r;\n}\n";
    }
    s << "\n// One k-tile with PTX mma.sync." << shape << " (A row-major from [m][kLd], B column-major\n"
         "// from [n][kLd]); fragments are loaded from shared memory lane by lane.\n";
    s << x.device_fn() << " void compute_tile(const smem_t* As, const smem_t* Bs, int wm, int wn, acc_frag_t (&acc)[kTM][kTN]) {\n";
    s << "const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, q = lane % 4;\n";
    s << "for (int kk = 0; kk < kBK; kk += kFK) {\nunsigned a[kTM][4], b[kTN][2];\n";
    s << x.unroll() << "for (int i = 0; i < kTM; ++i) {\nconst smem_t* p = As + ((wm * kTM + i) * kFM + g) * kLd + kk;\n";
    if (tf32) {
      s << "a[i][0] = to_tf32(p[q]);\na[i][1] = to_tf32(p[8 * kLd + q]);\n"
           "a[i][2] = to_tf32(p[q + 4]);\na[i][3] = to_tf32(p[8 * kLd + q + 4]);\n}\n";
    } else {
      s << "a[i][0] = load_pair(p + 2 * q);\na[i][1] = load_pair(p + 8 * kLd + 2 * q);\n"
           "a[i][2] = load_pair(p + 2 * q + 8);\na[i][3] = load_pair(p + 8 * kLd + 2 * q + 8);\n}\n";
    }
    s << x.unroll() << "for (int j = 0; j < kTN; ++j) {\nconst smem_t* p = Bs + ((wn * kTN + j) * kFN + g) * kLd + kk;\n";
    if (tf32) {
      s << "b[j][0] = to_tf32(p[q]);\nb[j][1] = to_tf32(p[q + 4]);\n}\n";
    } else {
      s << "b[j][0] = load_pair(p + 2 * q);\nb[j][1] = load_pair(p + 2 * q + 8);\n}\n";
    }
    s << x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x.unroll() << "for (int j = 0; j < kTN; ++j)\n";
    s << "asm volatile(\"mma.sync.aligned." << shape << ".row.col.f32." << type << "." << type
      << ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
         ": \"+f\"(acc[i][j].x[0]), \"+f\"(acc[i][j].x[1]), \"+f\"(acc[i][j].x[2]), \"+f\"(acc[i][j].x[3])\n"
         ": \"r\"(a[i][0]), \"r\"(a[i][1]), \"r\"(a[i][2]), \"r\"(a[i][3]), \"r\"(b[j][0]), \"r\"(b[j][1]));\n";
    s << "}\n}\n\n";
    return s.str();
  }
  std::string accumulators(const Context& c) const override {
    std::string zero = "\n";
    zero += c.x.unroll();
    zero += "for (int e = 0; e < 4; ++e) acc[i][j].x[e] = 0.0f;\n";
    return cuda_accumulators(c, zero);
  }
  std::string describe(const Context&) const override { return "PTX mma.sync fragments"; }

 protected:
  std::string stash_value(const Context& c) const override { return cuda_stash_value(c); }
  std::string drain(const Context& c) const override {
    std::ostringstream s;
    s << "{\nconst int g = lane / 4, q = lane % 4;\n";
    s << c.x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << c.x.unroll() << "for (int j = 0; j < kTN; ++j) {\n"
         "float* c = Cs + ((wm * kTM + i) * kFM + g) * kCLd + (wn * kTN + j) * kFN + 2 * q;\n"
         "c[0] = acc[i][j].x[0];\nc[1] = acc[i][j].x[1];\nc[8 * kCLd] = acc[i][j].x[2];\nc[8 * kCLd + 1] = acc[i][j].x[3];\n}\n}\n"
         "__syncthreads();\n";
    return s.str();
  }
};

REGISTER_COMPONENT(Mainloop, MmaSyncMainloop, {"mma_m16n8k16", "mma_m16n8k8"}, {Backend::kCuda});

}  // namespace
}  // namespace vxsynth::codegen
