// One fault per case (case number in MSCRATCH); test_faults.cpp checks each report.
#include "check.h"

.section .text.init
.globl _start
_start:
  csrr s10, mscratch
  la t0, cases
  slli t1, s10, 2
  add t0, t0, t1
  lw t0, 0(t0)
  jr t0

.section .rodata
.balign 4
cases:
  .word f_illegal, f_unsupported, f_misaligned_load, f_misaligned_store, f_null, f_acl_code
  .word f_divergent, f_ipdom_overflow, f_join_underflow, f_barrier_range, f_deadlock, f_budget
  .word f_console, f_csr_read, f_misaligned_jump, f_ecall, f_bad_frm, f_fetch_unwritten
  .word f_csr_write_ro, f_lmem_range, f_misaligned_amo, f_console_load, f_ebreak

.text
f_illegal:
  .word 0x0000707b                  // custom-3: nothing is encoded there
f_unsupported:
  .insn r 0x0b, 7, 0, x0, x0, x0    // wsync (Vortex 3.x only)
f_misaligned_load:
  li a0, 0x00200000
  lw a1, 2(a0)
f_misaligned_store:
  li a0, 0x00200001
  sh a1, 0(a0)
f_null:
  lw a1, 4(zero)
f_acl_code:
  la a0, _start
  sw zero, 0(a0)                    // code is a read-only segment
f_divergent:
  li a0, -1
  VX_TMC a0
  csrr a0, 0xCC0
  andi a0, a0, 1
  bnez a0, 1f                       // odd and even lanes disagree
1: EXIT
f_ipdom_overflow:
  li a1, -1
  VX_TMC a1
  li a1, -1                         // now in every lane
  csrr a0, 0xCC0
  andi a0, a0, 1
  VX_SPLIT s0, a0                   // push 1
  VX_TMC a1
  VX_SPLIT s0, a0                   // push 2
  VX_TMC a1
  VX_SPLIT s0, a0                   // push 3 (capacity 3 with 4 threads)
  VX_TMC a1
  VX_SPLIT s0, a0                   // overflow
  EXIT
f_join_underflow:
  li a0, 5
  VX_JOIN a0
f_barrier_range:
  li a0, 7
  li a1, 2
  VX_BAR a0, a1
f_deadlock:
  li a1, 2
  VX_BAR zero, a1                   // waits for a second warp that never comes
f_budget:
  j f_budget
f_console:
  li a0, 0x41424344
  sw a0, 0x40(zero)
f_csr_read:
  csrr a0, 0x7c0
f_misaligned_jump:
  la a0, f_misaligned_jump
  addi a0, a0, 2
  jr a0
f_ecall:
  li a0, 3
  sw a0, 0x88(zero)
  ecall
f_bad_frm:
  li a0, 5
  csrw frm, a0
  fadd.s fa0, fa0, fa0, dyn
f_fetch_unwritten:
  li a0, 0x50000000
  jr a0
f_csr_write_ro:
  li a0, 1
  csrw 0xCC0, a0
f_lmem_range:
  li a0, 0xffff0000 + 16384
  lw a1, 0(a0)
f_misaligned_amo:
  li a0, 0x00200002
  amoadd.w a1, a0, (a0)
f_console_load:
  lbu a1, 0x40(zero)
f_ebreak:
  ebreak
