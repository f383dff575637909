// Every tensor_core value on Vortex: the Vortex tensor unit (vortex-rt's vx_tensor.h) at 32
// threads a warp, 16 x 16 tiles with k-step 32; the CUDA warp tile becomes kVTM x kVTN unit
// tiles, and tf32 is computed as fp16.
#include "codegen/components/mainloop/tensor_tiles.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

class TensorUnitMainloop final : public TensorTilesMainloop {
 public:
  std::string includes() const override { return "#include <vx_tensor.h>\n"; }
  std::string types(const Context& c) const override {
    const bool bf16 = c.d.fixed.precision == ops::PrecisionPath::bf16;
    std::ostringstream s;
    s << "typedef uint16_t smem_t;  // local tile element: " << (bf16 ? "bf16" : "fp16")
      << (c.d.fixed.precision == ops::PrecisionPath::tf32 ? " (tf32 is computed as fp16 on Vortex)" : "") << "\n";
    s << "// The tensor unit at 32 threads a warp: 16 x 16 tiles, k-step 32.\n";
    s << "typedef vortex::tensor::wmma_context<32, vortex::tensor::" << (bf16 ? "bf16" : "fp16")
      << ", vortex::tensor::fp32> wmma_ctx;\n";
    return s.str();
  }
  std::string geometry(const Context& c) const override {
    const auto fs = design::fragment_shape(c.d.fragment);
    std::ostringstream s;
    s << "// Fragments: each warp owns kTM x kTN accumulator fragments of kFM x kFN.\n";
    s << "constexpr int kTM = " << c.d.register_tile.m << ", kTN = " << c.d.register_tile.n << ";\n";
    s << "// The warp tile (kTM x kTN CUDA fragments of " << fs.m << "x" << fs.n
      << ") as kVTM x kVTN Vortex unit tiles.\n";
    s << "constexpr int kWarpTileM = kBM / kWM, kWarpTileN = kBN / kWN;\n";
    s << "constexpr int kVTM = kWarpTileM / wmma_ctx::tileM, kVTN = kWarpTileN / wmma_ctx::tileN;\n";
    s << "constexpr int kLd = " << design::vortex_fragment_tile_ld(c.d) << ";   // local row stride (elements)\n";
    s << "constexpr int kCLd = " << design::epilogue_tile_ld(c.d) << ";  // epilogue tile row stride\n";
    return s.str();
  }
  std::string compute_function(const Context& c) const override {
    const Dialect& x = c.x;
    std::ostringstream s;
    s << "// One k-tile on the Vortex tensor unit: warp (wm, wn) multiplies its kVTM x kVTN unit tiles\n"
         "// (B is stored [n][k]: column-major for the unit).\n";
    s << "static inline void compute_tile(const smem_t* As, const smem_t* Bs, int wm, int wn, "
         "wmma_ctx::fragment_acc (&acc)[kVTM][kVTN]) {\n";
    s << "for (int kk = 0; kk < kBK; kk += (int)wmma_ctx::tileK) {\n";
    s << "wmma_ctx::fragment_a a[kVTM];\nwmma_ctx::fragment_b b[kVTN];\n";
    s << x.unroll() << "for (int i = 0; i < kVTM; ++i) wmma_ctx::load_matrix_sync(a[i], As + (wm * kWarpTileM + i * (int)wmma_ctx::tileM) * kLd + kk, kLd);\n";
    s << x.unroll() << "for (int j = 0; j < kVTN; ++j) wmma_ctx::load_matrix_sync<vortex::tensor::col_major>(b[j], Bs + (wn * kWarpTileN + j * (int)wmma_ctx::tileN) * kLd + kk, kLd);\n";
    s << x.unroll() << "for (int i = 0; i < kVTM; ++i)\n" << x.unroll()
      << "for (int j = 0; j < kVTN; ++j) wmma_ctx::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);\n";
    s << "}\n}\n\n";
    return s.str();
  }
  std::string accumulators(const Context& c) const override {
    std::ostringstream s;
    s << "const int wm = warp / kWN, wn = warp % kWN;  // one 32-thread Vortex warp per CUDA warp\n(void)lane;\n";
    s << "wmma_ctx::fragment_acc acc[kVTM][kVTN];\n";
    s << c.x.unroll() << "for (int i = 0; i < kVTM; ++i)\n" << c.x.unroll()
      << "for (int j = 0; j < kVTN; ++j) wmma_ctx::fill_fragment(acc[i][j], 0.0f);\n";
    return s.str();
  }
  std::string describe(const Context&) const override { return "the Vortex tensor unit (vx_tensor.h), 16x16x32 tiles"; }

 protected:
  std::string stash_value(const Context& c) const override {
    return c.x.from_float(c.d.fixed.precision == ops::PrecisionPath::tf32 ? ops::DType::f16 : c.dtype, "regs[i]");
  }
  std::string drain(const Context& c) const override {
    return c.x.unroll() + "for (int i = 0; i < kVTM; ++i)\n" + c.x.unroll() + "for (int j = 0; j < kVTN; ++j)\n"
           "wmma_ctx::store_matrix_sync(Cs + (wm * kWarpTileM + i * (int)wmma_ctx::tileM) * kCLd + wn * kWarpTileN + "
           "j * (int)wmma_ctx::tileN, acc[i][j], kCLd);\n__syncthreads();\n";
  }
  std::string after_epilogue() const override {
    return "// The next CTA of this core slot reuses the local-memory slice that Cs lives in.\n__syncthreads();\n";
  }
};

REGISTER_COMPONENT(Mainloop, TensorUnitMainloop,
                   {"m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "mma_m16n8k16", "mma_m16n8k8"}, {Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
