// y[i] = alpha * x[i] + y[i] over a 2-D grid of tasks (rows of 64 elements), so blockIdx.y
// is exercised; the last row is partial and masked without a branch.
#include "vx_branchless.h"  // vxsynth's (vortex-rt/extra): copy it along to build elsewhere
#include <vx_spawn.h>

#include "common.h"

static constexpr uint32_t kRow = 64;

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto x = reinterpret_cast<const float*>(arg->x_addr);
  auto y = reinterpret_cast<float*>(arg->y_addr);
  uint32_t i = blockIdx.y * kRow + blockIdx.x;
  // Lanes past the end read the last element instead (a masked index, no branch) and skip
  // the store inside an explicit split/join: GCC inserts no divergence handling itself.
  uint32_t in_range = vxb_lt(i, arg->num_points);
  i = vxb_select(in_range, i, arg->num_points - 1);
  float result = arg->alpha * x[i] + y[i];
  int sp = vx_split((int)in_range);
  if (in_range) y[i] = result;
  vx_join(sp);
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  uint32_t grid[2] = {kRow, (arg->num_points + kRow - 1) / kRow};
  return vx_spawn_threads(2, grid, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
