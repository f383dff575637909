// tensor_core = m16n16k16 / m32n8k16 / m8n32k16 / m16n16k8 on CUDA: nvcuda::wmma fragments
// (tf32 operands are rounded with __float_to_tf32 after loading).
#include "codegen/components/mainloop/cuda_fragments.h"
#include "codegen/components/mainloop/tensor_tiles.h"

namespace vxsynth::codegen {
namespace {

class WmmaMainloop final : public TensorTilesMainloop {
 public:
  std::string includes() const override { return "#include <mma.h>\n"; }
  std::string preamble() const override { return "using namespace nvcuda;\n\n"; }
  std::string types(const Context& c) const override {
    return cuda_smem_type(c);
  }
  std::string geometry(const Context& c) const override { return cuda_fragment_geometry(c); }
  std::string compute_function(const Context& c) const override {
    const Dialect& x = c.x;
    std::ostringstream s;
    const bool tf32 = c.d.fixed.precision == ops::PrecisionPath::tf32;
    const std::string frag_t = tf32 ? "wmma::precision::tf32" : "elem_t";
    s << "typedef wmma::fragment<wmma::accumulator, kFM, kFN, kFK, float> acc_frag_t;\n\n";
    s << "// One k-tile on the tensor cores: warp (wm, wn) multiplies its kTM x kTN fragments.\n";
    s << x.device_fn() << " void compute_tile(const smem_t* As, const smem_t* Bs, int wm, int wn, acc_frag_t (&acc)[kTM][kTN]) {\n";
    s << "for (int kk = 0; kk < kBK; kk += kFK) {\n";
    s << "wmma::fragment<wmma::matrix_a, kFM, kFN, kFK, " << frag_t << ", wmma::row_major> a[kTM];\n";
    s << "wmma::fragment<wmma::matrix_b, kFM, kFN, kFK, " << frag_t << ", wmma::col_major> b[kTN];\n";
    s << x.unroll() << "for (int i = 0; i < kTM; ++i) {\n"
      << "wmma::load_matrix_sync(a[i], As + (wm * kTM + i) * kFM * kLd + kk, kLd);\n";
    if (tf32) s << "for (int e = 0; e < a[i].num_elements; ++e) a[i].x[e] = wmma::__float_to_tf32(a[i].x[e]);\n";
    s << "}\n";
    s << x.unroll() << "for (int j = 0; j < kTN; ++j) {\n"
      << "wmma::load_matrix_sync(b[j], Bs + (wn * kTN + j) * kFN * kLd + kk, kLd);\n";
    if (tf32) s << "for (int e = 0; e < b[j].num_elements; ++e) b[j].x[e] = wmma::__float_to_tf32(b[j].x[e]);\n";
    s << "}\n";
    s << x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x.unroll() << "for (int j = 0; j < kTN; ++j) "
         "wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);\n";
    s << "}\n}\n\n";
    return s.str();
  }
  std::string accumulators(const Context& c) const override {
    return cuda_accumulators(c, " wmma::fill_fragment(acc[i][j], 0.0f);\n");
  }
  std::string describe(const Context&) const override { return "WMMA fragments"; }

 protected:
  std::string stash_value(const Context& c) const override { return cuda_stash_value(c); }
  std::string drain(const Context& c) const override {
    return c.x.unroll() + "for (int i = 0; i < kTM; ++i)\n" + c.x.unroll() + "for (int j = 0; j < kTN; ++j)\n"
           "wmma::store_matrix_sync(Cs + (wm * kTM + i) * kFM * kCLd + (wn * kTN + j) * kFN, acc[i][j], kCLd, "
           "wmma::mem_row_major);\n__syncthreads();\n";
  }
};

REGISTER_COMPONENT(Mainloop, WmmaMainloop, {"m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8"}, {Backend::kCuda});

}  // namespace
}  // namespace vxsynth::codegen
