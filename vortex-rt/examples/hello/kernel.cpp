// Standalone kernel (no host arguments; run it with `vxsynth sim run`): every task of a 2-D
// grid greets on the console and fills one cell; core 0 checks the cells once every core is
// done and returns the number of wrong cells as the exit code.
#include <vx_print.h>
#include <vx_spawn.h>

static constexpr uint32_t kWidth = 5;
static constexpr uint32_t kHeight = 3;
static int32_t cells[kWidth * kHeight];

static void greet(void* arg) {
  (void)arg;
  uint32_t cell = blockIdx.y * gridDim.x + blockIdx.x;
  cells[cell] = (int32_t)(cell * cell + 1);
  vx_printf("hello from task (%u, %u) on core %d, warp %d, thread %d\n", (unsigned)blockIdx.x, (unsigned)blockIdx.y, vx_core_id(),
            vx_warp_id(), vx_thread_id());
}

int main() {
  uint32_t grid[2] = {kWidth, kHeight};
  if (vx_spawn_threads(2, grid, nullptr, greet, nullptr) != 0) return 100;
  // Bit 31 makes the barrier span cores: every core's tasks are done past it.
  if (vx_num_cores() > 1) vx_barrier(0x80000000, vx_num_cores());
  if (vx_core_id() != 0) return 0;
  int wrong = 0;
  for (uint32_t cell = 0; cell < kWidth * kHeight; ++cell) {
    if (cells[cell] != (int32_t)(cell * cell + 1)) ++wrong;
  }
  vx_printf("%d of %u cells wrong\n", wrong, (unsigned)(kWidth * kHeight));
  return wrong;
}
