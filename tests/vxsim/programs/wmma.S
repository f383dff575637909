// WMMA: load every FP register of every lane from REGS_IN + 4 * (reg * threads + lane), run one
// wmma (the format pair chosen by MSCRATCH), store every FP register to REGS_OUT likewise.
// test_wmma.cpp prepares the fragments and checks D. One warp, all threads.
#include "check.h"

#define REGS_IN 0x00200000
#define REGS_OUT 0x00300000

.macro FOR_ALL_FREGS op, base
  .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
  \op f\r, 0(\base)
  add \base, \base, t2
  .endr
.endm

.section .text.init
.globl _start
_start:
  li a0, -1
  VX_TMC a0
  csrr t0, 0xCC0                    // lane
  csrr t1, 0xFC0                    // threads
  slli t2, t1, 2                    // stride between registers
  slli t0, t0, 2
  li a1, REGS_IN
  add a1, a1, t0
  FOR_ALL_FREGS flw, a1
  csrr s10, mscratch
  la t3, cases
  slli t4, s10, 2
  add t3, t3, t4
  lw t3, 0(t3)
  jr t3
done:
  li a1, REGS_OUT
  add a1, a1, t0
  FOR_ALL_FREGS fsw, a1
  EXIT

.section .rodata
.balign 4
cases:
  .word w_fp16_fp32, w_bf16_fp32, w_fp16_fp16, w_bf16_bf16, w_int8, w_uint8, w_int4, w_uint4, w_fp32_fp32
  .word w_partial, w_fp16_bf16, w_int8_fp32, w_id3_fp32, w_fp16_int32

.text
// .insn r CUSTOM0, funct3 0, funct7 2, rd = output format id, rs1 = input format id
w_fp16_fp32: .insn r 0x0b, 0, 2, x0, x1, x0
  j done
w_bf16_fp32: .insn r 0x0b, 0, 2, x0, x2, x0
  j done
w_fp16_fp16: .insn r 0x0b, 0, 2, x1, x1, x0
  j done
w_bf16_bf16: .insn r 0x0b, 0, 2, x2, x2, x0
  j done
w_int8: .insn r 0x0b, 0, 2, x8, x9, x0
  j done
w_uint8: .insn r 0x0b, 0, 2, x8, x10, x0
  j done
w_int4: .insn r 0x0b, 0, 2, x8, x11, x0
  j done
w_uint4: .insn r 0x0b, 0, 2, x8, x12, x0
  j done
w_fp32_fp32: .insn r 0x0b, 0, 2, x0, x0, x0
  j done
// Error cases (test_wmma.cpp expects a fault at each): lane 0 only, then mixed or unknown formats.
w_partial:
  li a0, 1
  VX_TMC a0
  .insn r 0x0b, 0, 2, x0, x1, x0
  j done
w_fp16_bf16: .insn r 0x0b, 0, 2, x2, x1, x0
  j done
w_int8_fp32: .insn r 0x0b, 0, 2, x0, x9, x0
  j done
w_id3_fp32: .insn r 0x0b, 0, 2, x0, x3, x0
  j done
w_fp16_int32: .insn r 0x0b, 0, 2, x8, x1, x0
  j done
