// RV32M: products' high halves, division by zero, INT_MIN / -1.
#include "check.h"

.section .text.init
.globl _start
_start:
  TEST_RR mul, 0x7fffffff, 2, 0xfffffffe
  TEST_RR mul, -3, 7, -21
  TEST_RR mul, 0x12345678, 0x9abcdef0, 0x242d2080
  TEST_RR mulh, 0x80000000, 0x80000000, 0x40000000
  TEST_RR mulh, -1, 1, 0xffffffff
  TEST_RR mulh, 0x12345678, 0x9abcdef0, 0xf8cc93d6
  TEST_RR mulhu, 0xffffffff, 0xffffffff, 0xfffffffe
  TEST_RR mulhu, 0x12345678, 0x9abcdef0, 0x0b00ea4e
  TEST_RR mulhsu, -1, 0xffffffff, 0xffffffff
  TEST_RR mulhsu, 0x12345678, 0x9abcdef0, 0x0b00ea4e
  TEST_RR mulhsu, 0x80000000, 0xffffffff, 0x80000000
  TEST_RR div, 20, 6, 3
  TEST_RR div, -20, 6, -3          // rounds toward zero
  TEST_RR div, 20, -6, -3
  TEST_RR div, 7, 0, 0xffffffff    // division by zero
  TEST_RR div, 0x80000000, -1, 0x80000000  // overflow
  TEST_RR divu, 20, 6, 3
  TEST_RR divu, 0xffffffff, 2, 0x7fffffff
  TEST_RR divu, 7, 0, 0xffffffff
  TEST_RR rem, 20, 6, 2
  TEST_RR rem, -20, 6, -2          // sign of the dividend
  TEST_RR rem, 20, -6, 2
  TEST_RR rem, 7, 0, 7
  TEST_RR rem, 0x80000000, -1, 0
  TEST_RR remu, 20, 6, 2
  TEST_RR remu, 0xffffffff, 10, 5
  TEST_RR remu, 7, 0, 7
  TEST_RR_SAME mul, 0x10000, 0
  TEST_RR_SAME div, -9, 1
  li a0, 3
  li a1, 4
  mul zero, a0, a1
  CHECK zero, 0, "mul to x0 stays 0"
  EXIT
