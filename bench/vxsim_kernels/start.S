// Start-up for the vxsim benchmark kernels (not vortex-rt's): every warp of every core runs
// kernel_main(arg) with all threads active and its own stack, then warp 0 waits for the
// others and the core ends.
.section .text.init
.globl _start
_start:
  csrr a0, 0xFC1                    // NUM_WARPS
  la a1, all_warps
  .insn r 0x0b, 1, 0, x0, a0, a1    // wspawn: warps 1.. start at all_warps (thread 0 only)
all_warps:
  li a0, -1
  .insn r 0x0b, 0, 0, x0, a0, x0    // tmc -1: all threads
  csrr a0, 0xF14                    // sp = 0xFFFF0000 - hartid * 8 KiB
  slli a0, a0, 13
  li sp, 0xffff0000
  sub sp, sp, a0
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  csrr a0, mscratch                 // kernel argument block
  call kernel_main
  csrr a0, 0xCC1                    // warp id
  bnez a0, 1f
  li a0, 1
  .insn r 0x0b, 0, 0, x0, a0, x0    // tmc 1
  li a1, 0
  .insn r 0x0b, 1, 0, x0, a0, a1    // wspawn(1, 0): wait until the other warps are done
1:
  .insn r 0x0b, 0, 0, x0, x0, x0    // tmc 0
