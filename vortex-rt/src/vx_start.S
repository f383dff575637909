// Kernel start-up (vortex-isa.md §3.4).
//
// At reset only warp 0 / lane 0 of each core runs, at STARTUP_ADDR, with MSCRATCH = the
// kernel argument. Start-up gives every lane of every warp its gp, sp and tp and its copy
// of the thread-local data, clears .bss once (core 0; the cores then meet on a global
// barrier so no core's main() sees .bss half-cleared), runs the static constructors and
// calls main() on lane 0 of warp 0 of every core. exit() stores the core's counters and the
// exit code to the IO area and retires the warp (vx_syscalls.c).
#include "vx_asm.h"

  .section .init, "ax"
  .global _start
  .type _start, @function
_start:
  // The other warps initialise their lanes (__vx_boot_warp) and retire.
  csrr a0, VX_CSR_NUM_WARPS
  la a1, __vx_boot_warp
  VX_WSPAWN a0, a1

  // Warp 0 does the same with all its lanes, then continues on lane 0 alone.
  li a0, -1
  VX_TMC a0
  VX_SET_HART_REGS
  call __vx_init_tls
  li a0, 1
  VX_TMC a0

  // Wait until the other warps have finished (a spawn of one warp only waits).
  li a0, 1
  VX_WSPAWN a0, zero

  csrr t0, VX_CSR_CORE_ID
  bnez t0, 1f
  // Core 0: .bss to zero. (The exit slot is written only at exit, as in Vortex.)
  la a0, __bss_start
  la a2, _end
  sub a2, a2, a0
  li a1, 0
  call memset
1:
  // All cores meet before main().
  csrr a1, VX_CSR_NUM_CORES
  li t0, 2
  blt a1, t0, 2f
  li a0, 0x80000000
  VX_BAR a0, a1
2:
  call __libc_init_array
  li a0, 0
  li a1, 0
  call main
  tail exit
  .size _start, .-_start

  .text
  // Entry of warps 1..N-1 during start-up (lane 0 active).
  .type __vx_boot_warp, @function
__vx_boot_warp:
  li a0, -1
  VX_TMC a0
  VX_SET_HART_REGS
  call __vx_init_tls
  VX_TMC zero
  .size __vx_boot_warp, .-__vx_boot_warp

  // Copies .tdata into the calling thread's TLS block (at tp) and zeroes its .tbss part.
  .global __vx_init_tls
  .type __vx_init_tls, @function
__vx_init_tls:
  addi sp, sp, -16
  sw ra, 12(sp)
  mv a0, tp
  la a1, __tdata_start
  lui a2, %hi(__tdata_size)
  addi a2, a2, %lo(__tdata_size)
  call memcpy
  lui a0, %hi(__tbss_offset)
  addi a0, a0, %lo(__tbss_offset)
  add a0, a0, tp
  li a1, 0
  lui a2, %hi(__tbss_size)
  addi a2, a2, %lo(__tbss_size)
  call memset
  lw ra, 12(sp)
  addi sp, sp, 16
  ret
  .size __vx_init_tls, .-__vx_init_tls
