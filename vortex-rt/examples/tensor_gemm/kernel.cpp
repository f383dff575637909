// Tiled tensor-core GEMM for every Vortex 2.x format pair: one warp per tileM x tileN tile of
// D. The warp starts from C (load_matrix_sync of the accumulator) or zero (fill_fragment), walks
// K in tileK steps (load A, load B, mma_sync) and stores D over C. The tile shape depends on the
// warp width and the element width, so the body is instantiated for every width and format and
// chosen at run time.
#include <vx_spawn.h>
#include <vx_tensor.h>

#include "common.h"

namespace vt = vortex::tensor;

template <uint32_t NT, typename It, typename Ot>
struct Gemm {
  using ctx = vt::wmma_context<NT, It, Ot>;
  static constexpr bool kSubByte = It::bits == 4;

  // Address of element (row, k) of A and of the (k, col) origin of a B tile, in bytes for the
  // packed 4-bit formats.
  static const void* a_at(const kernel_arg_t* arg, uint32_t row, uint32_t k) {
    auto A = reinterpret_cast<const typename ctx::input_t*>(arg->A_addr);
    if constexpr (kSubByte) return reinterpret_cast<const uint8_t*>(A) + (row * arg->K + k) / 2;
    return A + row * arg->K + k;
  }
  static const void* b_at(const kernel_arg_t* arg, uint32_t k, uint32_t col) {
    auto B = reinterpret_cast<const typename ctx::input_t*>(arg->B_addr);
    if constexpr (kSubByte) return reinterpret_cast<const uint8_t*>(B) + (col * arg->K + k) / 2;
    return B + k * arg->N + col;
  }

  static void tile(kernel_arg_t* arg) {
    auto C = reinterpret_cast<typename ctx::output_t*>(arg->C_addr);
    const uint32_t row = blockIdx.y * ctx::tileM;
    const uint32_t col = blockIdx.x * ctx::tileN;
    typename ctx::fragment_a a;
    typename ctx::fragment_b b;
    typename ctx::fragment_acc c;
    if (arg->accumulate) {
      ctx::load_matrix_sync(c, C + row * arg->N + col, arg->N);
    } else {
      ctx::fill_fragment(c, 0);
    }
    for (uint32_t k = 0; k < arg->K; k += ctx::tileK) {
      ctx::load_matrix_sync(a, a_at(arg, row, k), arg->K);
      if constexpr (kSubByte) {
        ctx::template load_matrix_sync<vt::col_major>(b, b_at(arg, k, col), arg->K);
      } else {
        ctx::load_matrix_sync(b, b_at(arg, k, col), arg->N);
      }
      ctx::mma_sync(c, a, b, c);
    }
    ctx::store_matrix_sync(C + row * arg->N + col, c, arg->N);
  }

  static int launch(kernel_arg_t* arg) {
    if (arg->M % ctx::tileM != 0 || arg->N % ctx::tileN != 0 || arg->K % ctx::tileK != 0) return 2;
    uint32_t grid[2] = {arg->N / ctx::tileN, arg->M / ctx::tileM};
    uint32_t block[2] = {NT, 1};  // one full warp per tile: the unit needs every lane
    return vx_spawn_threads(2, grid, block, (vx_kernel_func_cb)tile, arg);
  }
};

template <uint32_t NT>
static int launch(kernel_arg_t* arg) {
  switch (arg->format) {
    case kFp16Fp32: return Gemm<NT, vt::fp16, vt::fp32>::launch(arg);
    case kBf16Fp32: return Gemm<NT, vt::bf16, vt::fp32>::launch(arg);
    case kFp16Fp16: return Gemm<NT, vt::fp16, vt::fp16>::launch(arg);
    case kBf16Bf16: return Gemm<NT, vt::bf16, vt::bf16>::launch(arg);
    case kInt8Int32: return Gemm<NT, vt::int8, vt::int32>::launch(arg);
    case kUint8Int32: return Gemm<NT, vt::uint8, vt::int32>::launch(arg);
    case kInt4Int32: return Gemm<NT, vt::int4, vt::int32>::launch(arg);
    case kUint4Int32: return Gemm<NT, vt::uint4, vt::int32>::launch(arg);
    default: return 3;
  }
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  switch (vx_num_threads()) {
    case 1: return launch<1>(arg);
    case 2: return launch<2>(arg);
    case 4: return launch<4>(arg);
    case 8: return launch<8>(arg);
    case 16: return launch<16>(arg);
    case 32: return launch<32>(arg);
    default: return 1;
  }
}
