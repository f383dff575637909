// Dot product with a per-block tree reduction in __local_mem and __syncthreads.
#include "vx_branchless.h"  // vxsynth's (vortex-rt/extra): copy it along to build elsewhere
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src0 = reinterpret_cast<const float*>(arg->src0_addr);
  auto src1 = reinterpret_cast<const float*>(arg->src1_addr);
  auto partial = reinterpret_cast<float*>(arg->partial_addr);
  const uint32_t n = arg->num_points;
  const uint32_t block_size = arg->block_size;
  const uint32_t tid = threadIdx.x;
  auto cache = reinterpret_cast<float*>(__local_mem(block_size * sizeof(float)));

  // Grid-stride loop with a warp-uniform trip count; lanes past the end add zero.
  const uint32_t stride = arg->num_blocks * block_size;
  float sum = 0.0f;
  for (uint32_t base = 0; base < n; base += stride) {
    const uint32_t i = base + blockIdx.x * block_size + tid;
    const uint32_t in = vxb_lt(i, n);
    const uint32_t index = i & vxb_mask(in);
    sum += vxb_select_f(in, src0[index] * src1[index], 0.0f);
  }
  cache[tid] = sum;
  __syncthreads();

  // Tree reduction: the lanes below `active` add their partner's value. That condition
  // differs across the lanes of a warp, so it is wrapped in vx_split/vx_join.
  for (uint32_t active = block_size / 2; active > 0; active /= 2) {
    const int keep = tid < active;
    int sp = vx_split(keep);
    if (keep) cache[tid] += cache[tid + active];
    vx_join(sp);
    __syncthreads();
  }

  int sp = vx_split(tid == 0);
  if (tid == 0) partial[blockIdx.x] = cache[0];
  vx_join(sp);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  return vx_spawn_threads(1, &arg->num_blocks, &arg->block_size, (vx_kernel_func_cb)kernel_body, arg);
}
