// Every task prints one line with vx_printf (many threads at once, each on its console
// slot) and writes dst[i] = src[i] * 3 so the host can check the tasks ran.
#include <vx_print.h>
#include <vx_spawn.h>

#include "common.h"

void kernel_body(kernel_arg_t* __UNIFORM__ arg) {
  auto src = reinterpret_cast<const int32_t*>(arg->src_addr);
  auto dst = reinterpret_cast<int32_t*>(arg->dst_addr);
  uint32_t task = blockIdx.x;
  int32_t value = src[task];
  vx_printf("task %u: core %d warp %d thread %d value %d scaled %.2f\n", (unsigned)task, vx_core_id(), vx_warp_id(),
            vx_thread_id(), (int)value, (double)value * 0.5);
  dst[task] = value * 3;
}

int main() {
  auto arg = reinterpret_cast<kernel_arg_t*>(csr_read(VX_CSR_MSCRATCH));
  vx_printf("printf kernel on core %d of %d: %u tasks\n", vx_core_id(), vx_num_cores(), (unsigned)arg->num_points);
  return vx_spawn_threads(1, &arg->num_points, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
