// RV32A: every AMO returns the old value and stores the combination; LR/SC pairs.
#include "check.h"

.macro TEST_AMO insn, old, src, expect_mem
  li s0, 0x00200000
  li a0, \old
  sw a0, 0(s0)
  li a1, \src
  \insn a2, a1, (s0)
  lw a3, 0(s0)
  CHECK a2, \old, "\insn old=\old src=\src: returns old"
  CHECK a3, \expect_mem, "\insn old=\old src=\src: memory"
.endm

.section .text.init
.globl _start
_start:
  TEST_AMO amoswap.w, 0x11111111, 0x22222222, 0x22222222
  TEST_AMO amoadd.w, 0xffffffff, 2, 1
  TEST_AMO amoxor.w, 0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0
  TEST_AMO amoand.w, 0xff00ff00, 0x0ff00ff0, 0x0f000f00
  TEST_AMO amoor.w, 0xff00ff00, 0x0ff00ff0, 0xfff0fff0
  TEST_AMO amomin.w, -5, 3, -5
  TEST_AMO amomin.w, 3, -5, -5
  TEST_AMO amomax.w, -5, 3, 3
  TEST_AMO amominu.w, 0xfffffffb, 3, 3
  TEST_AMO amomaxu.w, 0xfffffffb, 3, 0xfffffffb
  TEST_AMO amoadd.w.aqrl, 40, 2, 42

  // lr/sc: success writes and returns 0; a second sc (reservation consumed) fails with 1
  li s0, 0x00200010
  li a0, 100
  sw a0, 0(s0)
  lr.w a2, (s0)
  CHECK a2, 100, "lr.w returns the word"
  addi a2, a2, 1
  sc.w a3, a2, (s0)
  lw a4, 0(s0)
  CHECK a3, 0, "sc.w after lr.w succeeds"
  CHECK a4, 101, "sc.w stored"
  li a2, 7
  sc.w a3, a2, (s0)
  lw a4, 0(s0)
  CHECK a3, 1, "sc.w without reservation fails"
  CHECK a4, 101, "failed sc.w does not store"
  // sc to a different address than the reservation fails
  lr.w a2, (s0)
  addi s1, s0, 4
  sc.w a3, a2, (s1)
  CHECK a3, 1, "sc.w to another address fails"
  // any store to the reserved word in between breaks the reservation
  lr.w a2, (s0)
  sw a2, 0(s0)
  sc.w a3, a2, (s0)
  CHECK a3, 1, "sc.w after an intervening store fails"
  lr.w a2, (s0)
  sw a2, 8(s0)                      // another word: the reservation holds
  sc.w a3, a2, (s0)
  CHECK a3, 0, "sc.w after a store elsewhere succeeds"
  // amo with rd = x0
  li a1, 5
  amoadd.w zero, a1, (s0)
  lw a4, 0(s0)
  CHECK a4, 106, "amoadd.w rd=x0 still updates memory"
  CHECK zero, 0, "amoadd.w rd=x0 keeps x0"
  EXIT
