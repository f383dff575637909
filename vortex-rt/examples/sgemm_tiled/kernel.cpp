// Shared-memory tiled SGEMM: each CTA (tile x tile threads) walks K in tile steps, staging a
// tile of A and of B in its __local_mem slice between two __syncthreads barriers.
//
// Any size works: threads outside the matrix load zeros (masked indices and selects from
// vx_branchless.h) and skip the store inside an explicit vx_split/vx_join, because GCC
// inserts no divergence handling.
#include "vx_branchless.h"  // vxsynth's (vortex-rt/extra): copy it along to build elsewhere
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto A = reinterpret_cast<const float*>(arg->A_addr);
  auto B = reinterpret_cast<const float*>(arg->B_addr);
  auto C = reinterpret_cast<float*>(arg->C_addr);
  const uint32_t n = arg->size;
  const uint32_t tile = arg->tile_size;

  auto tile_A = reinterpret_cast<float*>(__local_mem(2 * tile * tile * sizeof(float)));
  auto tile_B = tile_A + tile * tile;

  const uint32_t tx = threadIdx.x;
  const uint32_t ty = threadIdx.y;
  const uint32_t row = blockIdx.y * tile + ty;
  const uint32_t col = blockIdx.x * tile + tx;
  const uint32_t row_in = vxb_lt(row, n);
  const uint32_t col_in = vxb_lt(col, n);

  float sum = 0.0f;
  for (uint32_t k0 = 0; k0 < n; k0 += tile) {
    const uint32_t a_in = row_in & vxb_lt(k0 + tx, n);
    const uint32_t b_in = col_in & vxb_lt(k0 + ty, n);
    const uint32_t a_index = (row * n + k0 + tx) & vxb_mask(a_in);
    const uint32_t b_index = ((k0 + ty) * n + col) & vxb_mask(b_in);
    tile_A[ty * tile + tx] = vxb_select_f(a_in, A[a_index], 0.0f);
    tile_B[ty * tile + tx] = vxb_select_f(b_in, B[b_index], 0.0f);
    __syncthreads();
    for (uint32_t k = 0; k < tile; ++k) {
      sum += tile_A[ty * tile + k] * tile_B[k * tile + tx];
    }
    __syncthreads();
  }

  const uint32_t c_in = row_in & col_in;
  int sp = vx_split((int)c_in);
  if (c_in) C[row * n + col] = sum;
  vx_join(sp);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(2, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)kernel_body, arg);
}
