// WMMA GEMM (fp16 inputs, fp32 accumulation): one warp per tileM x tileN tile of C walks K in
// tileK steps: load A, load B, mma_sync; then stores C. The tile shape depends on the warp
// width, so the body is instantiated for every width and chosen at run time.
#include <vx_spawn.h>
#include <vx_tensor.h>

#include "common.h"

namespace vt = vortex::tensor;

template <uint32_t NT>
struct Gemm {
  using ctx = vt::wmma_context<NT, vt::fp16, vt::fp32>;

  static void tile(kernel_arg_t* arg) {
    auto A = reinterpret_cast<const typename ctx::input_t*>(arg->A_addr);
    auto B = reinterpret_cast<const typename ctx::input_t*>(arg->B_addr);
    auto C = reinterpret_cast<typename ctx::output_t*>(arg->C_addr);
    const uint32_t row = blockIdx.y * ctx::tileM;
    const uint32_t col = blockIdx.x * ctx::tileN;
    typename ctx::fragment_a a;
    typename ctx::fragment_b b;
    typename ctx::fragment_acc c;
    ctx::fill_fragment(c, 0.0f);
    for (uint32_t k = 0; k < arg->K; k += ctx::tileK) {
      ctx::load_matrix_sync(a, A + row * arg->K + k, arg->K);
      ctx::load_matrix_sync(b, B + k * arg->N + col, arg->N);
      ctx::mma_sync(c, a, b, c);
    }
    ctx::store_matrix_sync(C + row * arg->N + col, c, arg->N);
  }

  static int launch(kernel_arg_t* arg) {
    uint32_t grid[2] = {arg->N / ctx::tileN, arg->M / ctx::tileM};
    uint32_t block[2] = {NT, 1};  // one full warp per tile: the unit needs every lane
    return vx_spawn_threads(2, grid, block, (vx_kernel_func_cb)tile, arg);
  }
};

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  switch (vx_num_threads()) {
    case 1: return Gemm<1>::launch(arg);
    case 2: return Gemm<2>::launch(arg);
    case 4: return Gemm<4>::launch(arg);
    case 8: return Gemm<8>::launch(arg);
    case 16: return Gemm<16>::launch(arg);
    case 32: return Gemm<32>::launch(arg);
    default: return 1;
  }
}
