// Process end for kernels: picolibc's exit() runs the exit handlers and calls _exit.
#include <stdint.h>
#include <VX_types.h>
#include <vx_intrinsics.h>

#include "vx_runtime.h"

// Slot i of this core's counter block = CSR VX_CSR_MPM_BASE + i (low word, then high word).
#define VX_STORE_MPM(block, i)                                         \
  do {                                                                 \
    (block)[2 * (i)] = (uint32_t)csr_read(VX_CSR_MPM_BASE + (i));      \
    (block)[2 * (i) + 1] = (uint32_t)csr_read(VX_CSR_MPM_BASE_H + (i)); \
  } while (0)

// As Vortex's exit path does: stores this core's performance counters (CSRs 0xB00..0xB1F,
// slot 1 left to the exit code) to its block at IO_MPM_ADDR + 256 * core, where the host
// runtime reads them (vx_mpm_query, vx_dump_perf); then stores the exit code to the exit
// slot (IO_MPM_EXITCODE, slot 1 of core 0's block) and retires the warp. Nothing else writes
// the exit slot, so a host may use the IO area until the kernel exits (vx_mem_reserve).
void _exit(int code) {
  uintptr_t address = IO_MPM_ADDR + IO_MPM_CORE_STRIDE * (uintptr_t)vx_core_id();
  __asm__("" : "+r"(address));  // an IO address, not an object GCC could bounds-check
  volatile uint32_t* block = (volatile uint32_t*)address;
  VX_STORE_MPM(block, 0);
  VX_STORE_MPM(block, 2);
  VX_STORE_MPM(block, 3);
  VX_STORE_MPM(block, 4);
  VX_STORE_MPM(block, 5);
  VX_STORE_MPM(block, 6);
  VX_STORE_MPM(block, 7);
  VX_STORE_MPM(block, 8);
  VX_STORE_MPM(block, 9);
  VX_STORE_MPM(block, 10);
  VX_STORE_MPM(block, 11);
  VX_STORE_MPM(block, 12);
  VX_STORE_MPM(block, 13);
  VX_STORE_MPM(block, 14);
  VX_STORE_MPM(block, 15);
  VX_STORE_MPM(block, 16);
  VX_STORE_MPM(block, 17);
  VX_STORE_MPM(block, 18);
  VX_STORE_MPM(block, 19);
  VX_STORE_MPM(block, 20);
  VX_STORE_MPM(block, 21);
  VX_STORE_MPM(block, 22);
  VX_STORE_MPM(block, 23);
  VX_STORE_MPM(block, 24);
  VX_STORE_MPM(block, 25);
  VX_STORE_MPM(block, 26);
  VX_STORE_MPM(block, 27);
  VX_STORE_MPM(block, 28);
  VX_STORE_MPM(block, 29);
  VX_STORE_MPM(block, 30);
  VX_STORE_MPM(block, 31);

  uintptr_t exit_slot = IO_MPM_EXITCODE;
  __asm__("" : "+r"(exit_slot));
  *(volatile uint32_t*)exit_slot = (uint32_t)code;
  vx_fence();
  vx_tmc(0);
  for (;;) {
  }
}
