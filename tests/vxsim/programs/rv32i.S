// RV32I: one block per instruction with edge cases (sign, overflow, shift amounts, x0).
#include "check.h"

.section .text.init
.globl _start
_start:
  // lui / auipc
  lui a2, 0xfffff
  CHECK a2, 0xfffff000, "lui 0xfffff"
  lui zero, 0x12345
  CHECK zero, 0, "lui to x0 stays 0"
1: auipc a2, 0x1
  la a3, 1b
  sub a2, a2, a3
  CHECK a2, 0x1000, "auipc 0x1 - pc"

  // addi / slti / sltiu / xori / ori / andi
  TEST_RI addi, 0x7fffffff, 1, 0x80000000
  TEST_RI addi, 5, -6, 0xffffffff
  TEST_RI addi, 0, -2048, 0xfffff800
  TEST_RI slti, -1, 0, 1
  TEST_RI slti, 0, -1, 0
  TEST_RI sltiu, 0, -1, 1
  TEST_RI sltiu, -1, 1, 0
  TEST_RI xori, 0x0ff00ff0, -1, 0xf00ff00f
  TEST_RI ori, 0x00ff0000, 0x0f0, 0x00ff00f0
  TEST_RI andi, 0x12345678, -16, 0x12345670
  TEST_RI slli, 1, 31, 0x80000000
  TEST_RI srli, 0x80000000, 31, 1
  TEST_RI srai, 0x80000000, 31, 0xffffffff
  TEST_RI srai, 0x40000000, 30, 1

  // register-register
  TEST_RR add, 0x7fffffff, 1, 0x80000000
  TEST_RR add, -1, -1, -2
  TEST_RR sub, 0, 1, 0xffffffff
  TEST_RR sub, 0x80000000, 1, 0x7fffffff
  TEST_RR sll, 1, 33, 2           // shift amount uses rs2[4:0]
  TEST_RR srl, 0x80000000, 63, 1
  TEST_RR sra, 0x80000000, 4, 0xf8000000
  TEST_RR slt, -2, -1, 1
  TEST_RR slt, 1, -1, 0
  TEST_RR sltu, 1, -1, 1
  TEST_RR sltu, -1, 1, 0
  TEST_RR xor, 0xaaaa5555, 0xffff0000, 0x55555555
  TEST_RR or, 0xaaaa0000, 0x00005555, 0xaaaa5555
  TEST_RR and, 0xaaaa5555, 0x0ff00ff0, 0x0aa00550
  TEST_RR_SAME add, 21, 42
  TEST_RR_SAME sub, 21, 0
  li a0, 5
  add zero, a0, a0
  CHECK zero, 0, "add to x0 stays 0"

  // loads / stores: sign and zero extension, byte/half placement
  li s0, 0x00200000
  li a0, 0x80ff7f01
  sw a0, 0(s0)
  lb a2, 0(s0)
  CHECK a2, 1, "lb byte 0"
  lb a2, 1(s0)
  CHECK a2, 0x7f, "lb byte 1"
  lb a2, 2(s0)
  CHECK a2, 0xffffffff, "lb byte 2 sign-extends"
  lbu a2, 3(s0)
  CHECK a2, 0x80, "lbu byte 3"
  lh a2, 2(s0)
  CHECK a2, 0xffff80ff, "lh sign-extends"
  lhu a2, 2(s0)
  CHECK a2, 0x80ff, "lhu zero-extends"
  lh a2, 0(s0)
  CHECK a2, 0x7f01, "lh positive"
  li a0, 0xabcd1234
  sb a0, 4(s0)
  sh a0, 6(s0)
  lw a2, 4(s0)
  CHECK a2, 0x1234f034, "sb/sh placement (byte 5 keeps the 0xbaadf00d pattern)"
  li a1, 0x11223344
  sw a1, 8(s0)
  sb a0, 9(s0)
  lw a2, 8(s0)
  CHECK a2, 0x11223444, "sb stores only the low byte, at any byte offset"
  sw a1, 12(s0)
  sh a0, 14(s0)
  lw a2, 12(s0)
  CHECK a2, 0x12343344, "sh stores only the low half, at offset 2"
  sw a0, -4(s0)
  lw a2, -4(s0)
  CHECK a2, 0xabcd1234, "sw with a negative offset (read back with lw)"
  lw zero, -4(s0)
  CHECK zero, 0, "lw to x0 stays 0"
  // never-written memory reads the SimX pattern
  li s1, 0x00300000
  lw a2, 0(s1)
  CHECK a2, 0xbaadf00d, "lw never-written memory"

  // branches: taken and not taken, signed vs unsigned
  li a0, -1
  li a1, 1
  li a2, 0
  blt a0, a1, 2f
  li a2, 1
2: CHECK a2, 0, "blt -1 < 1 taken"
  li a2, 0
  bltu a0, a1, 3f
  li a2, 1
3: CHECK a2, 1, "bltu 0xffffffff < 1 not taken"
  li a2, 0
  bge a1, a0, 4f
  li a2, 1
4: CHECK a2, 0, "bge 1 >= -1 taken"
  li a2, 0
  bgeu a1, a0, 5f
  li a2, 1
5: CHECK a2, 1, "bgeu 1 >= 0xffffffff not taken"
  li a2, 0
  beq a0, a0, 6f
  li a2, 1
6: CHECK a2, 0, "beq equal taken"
  li a2, 0
  bne a0, a0, 7f
  li a2, 1
7: CHECK a2, 1, "bne equal not taken"
  // backward branch loop: sum 1..10
  li a0, 10
  li a2, 0
8: add a2, a2, a0
  addi a0, a0, -1
  bnez a0, 8b
  CHECK a2, 55, "backward bnez loop"

  // jal / jalr: link value and target; jalr clears bit 0; rd = rs1
  jal ra, 9f
9: la a3, 9b
  sub a2, ra, a3
  CHECK a2, 0, "jal links pc+4"
  la a0, 10f
  addi a0, a0, 1
  jalr a1, 0(a0)
  li a2, 1
  j 11f
10: li a2, 0
11: CHECK a2, 0, "jalr target with bit 0 set"
  la a0, 12f
  jalr a0, 0(a0)
12: la a3, 12b
  sub a2, a0, a3
  CHECK a2, 0, "jalr rd = rs1 links pc+4"
  jal zero, 13f
  li a2, 1
13: CHECK zero, 0, "jal to x0 (j)"
  fence
  .word 0x0000100f                  // fence.i (Zifencei, not in -march=rv32imaf)

  // Zicond (this binutils lacks the mnemonics: .insn r OP, funct3, funct7 = 7)
.macro TEST_CZERO funct3, name, a, b, expect
  li a0, \a
  li a1, \b
  .insn r 0x33, \funct3, 7, a2, a0, a1
  CHECK a2, \expect, "\name \a, \b"
.endm
  TEST_CZERO 5, czero.eqz, 0x1234, 0, 0
  TEST_CZERO 5, czero.eqz, 0x1234, 5, 0x1234
  TEST_CZERO 7, czero.nez, 0x1234, 5, 0
  TEST_CZERO 7, czero.nez, 0x1234, 0, 0x1234

  // Zicsr on MSCRATCH (read-write, one per core): old value returned, set/clear bits
  li a0, 0xf0f0
  csrrw a2, mscratch, a0
  CHECK a2, 0, "csrrw mscratch returns STARTUP_ARG (0)"
  li a1, 0x000f
  csrrs a2, mscratch, a1
  csrr a3, mscratch
  CHECK a2, 0xf0f0, "csrrs returns the old value"
  CHECK a3, 0xf0ff, "csrrs sets bits"
  li a1, 0xf000
  csrrc a2, mscratch, a1
  csrr a3, mscratch
  CHECK a3, 0x00ff, "csrrc clears bits"
  csrrwi a2, mscratch, 17
  csrr a3, mscratch
  CHECK a2, 0x00ff, "csrrwi returns the old value"
  CHECK a3, 17, "csrrwi writes the immediate"
  csrrsi a2, mscratch, 8
  csrr a3, mscratch
  CHECK a3, 25, "csrrsi sets immediate bits"
  csrrci a2, mscratch, 1
  csrr a3, mscratch
  CHECK a3, 24, "csrrci clears immediate bits"
  csrrs a2, 0xCC3, zero
  CHECK a2, 1, "csrrs x0 reads ACTIVE_WARPS without writing"
  csrr a2, 0xB02
  sltiu a2, a2, 100
  CHECK a2, 0, "minstret counts retired thread-instructions"
  // no-ops in Vortex 2.x
  wfi
  mret
  sret
  .word 0x00200073                  // uret
  EXIT
