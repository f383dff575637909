// Probe of the memory path at wide warps (docs/vxsim-timing.md, "Calibration"): one CTA of all
// the core's threads; each thread does nothing (the cost of vx_spawn_threads itself),
// in a 16 MiB region at 0x20000000 (outside the image: no .bss to clear). Not in the calibration table.
#include "../common.h"
static constexpr uint32_t M = 1 << 22;
static uint32_t* const buf = (uint32_t*)0x20000000;
static volatile uint32_t* vbuf = buf;
static void body(void*) {
  const uint32_t k0 = threadIdx.y * 512;
  (void)k0;
}
int main() {
  const uint32_t grid[2] = {1, 1}, block[2] = {(uint32_t)vx_num_threads(), (uint32_t)vx_num_warps()};
  vx_spawn_threads(2, grid, block, body, nullptr);
  return buf[5] == 77;
}
