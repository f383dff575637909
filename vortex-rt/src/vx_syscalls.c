// Process end for kernels: picolibc's exit() runs the exit handlers and calls _exit.
#include <stdint.h>
#include <vx_intrinsics.h>

// Stores the exit code to the IO exit slot (core 0's MPM slot 1, IO_MPM_EXITCODE) and
// retires the warp. Core 0's start-up zeroes the slot; a core only writes a non-zero code,
// so with several cores the host sees a failure from any of them.
void _exit(int code) {
  if (code != 0) {
    uintptr_t address = IO_MPM_EXITCODE;
    __asm__("" : "+r"(address));  // an IO address, not an object GCC could bounds-check
    volatile uint32_t* slot = (volatile uint32_t*)address;
    slot[0] = (uint32_t)code;
    slot[1] = code < 0 ? 0xFFFFFFFFu : 0u;
  }
  vx_fence();
  vx_tmc(0);
  for (;;) {
  }
}
