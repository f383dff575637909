// Minimal start-up for single-thread C test programs: stack, gp, call main, exit code, exit.
.section .text.init
.globl _start
_start:
  li sp, 0xffff0000
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  call main
  sw a0, 0x88(zero)
  .insn r 0x0b, 0, 0, x0, x0, x0
