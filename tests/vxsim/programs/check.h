// Protocol between the instruction-test programs and test_insns.cpp.
// CHECK reg, expected, "name": the program stores `reg` to results[i]; the assembler records
// {expected, &name} in section .expected (never read by the program, so a broken simulator
// cannot make a check pass by computing the expected value the same wrong way).
// t6 is reserved for the macros.
#define RESULTS 0x00100000

.set check_index, 0

.macro CHECK reg, expect, name
  .pushsection .rodata.names, "a"
91: .asciz "\name"
  .popsection
  .pushsection .expected, "a"
  .balign 4
  .word \expect
  .word 91b
  .popsection
  li t6, RESULTS + 4 * check_index
  sw \reg, 0(t6)
  .set check_index, check_index + 1
.endm

// Integer register-register / register-immediate.
.macro TEST_RR insn, a, b, expect
  li a0, \a
  li a1, \b
  \insn a2, a0, a1
  CHECK a2, \expect, "\insn \a, \b"
.endm
.macro TEST_RI insn, a, imm, expect
  li a0, \a
  \insn a2, a0, \imm
  CHECK a2, \expect, "\insn \a, \imm"
.endm
// Same register as source and destination.
.macro TEST_RR_SAME insn, a, expect
  li a0, \a
  \insn a0, a0, a0
  CHECK a0, \expect, "\insn \a (rd = rs1 = rs2)"
.endm

// FP: operands and results as bit patterns, rounding mode, expected fflags.
.macro TEST_FRR insn, a, b, rm, expect, flags
  li a0, \a
  fmv.w.x fa0, a0
  li a1, \b
  fmv.w.x fa1, a1
  csrw fflags, zero
  \insn fa2, fa0, fa1, \rm
  fmv.x.w a2, fa2
  csrr a3, fflags
  CHECK a2, \expect, "\insn \a, \b, \rm"
  CHECK a3, \flags, "\insn \a, \b, \rm: fflags"
.endm
.macro TEST_FR4 insn, a, b, c, rm, expect, flags
  li a0, \a
  fmv.w.x fa0, a0
  li a1, \b
  fmv.w.x fa1, a1
  li a2, \c
  fmv.w.x fa2, a2
  csrw fflags, zero
  \insn fa3, fa0, fa1, fa2, \rm
  fmv.x.w a3, fa3
  csrr a4, fflags
  CHECK a3, \expect, "\insn \a, \b, \c, \rm"
  CHECK a4, \flags, "\insn \a, \b, \c, \rm: fflags"
.endm
// FP, no rounding mode operand (sgnj, min/max).
.macro TEST_FRR_NORM insn, a, b, expect, flags
  li a0, \a
  fmv.w.x fa0, a0
  li a1, \b
  fmv.w.x fa1, a1
  csrw fflags, zero
  \insn fa2, fa0, fa1
  fmv.x.w a2, fa2
  csrr a3, fflags
  CHECK a2, \expect, "\insn \a, \b"
  CHECK a3, \flags, "\insn \a, \b: fflags"
.endm
// FP compare -> integer.
.macro TEST_FCMP insn, a, b, expect, flags
  li a0, \a
  fmv.w.x fa0, a0
  li a1, \b
  fmv.w.x fa1, a1
  csrw fflags, zero
  \insn a2, fa0, fa1
  csrr a3, fflags
  CHECK a2, \expect, "\insn \a, \b"
  CHECK a3, \flags, "\insn \a, \b: fflags"
.endm
// FP unary with rounding mode (fsqrt, fcvt.w.s ...): src/dst kinds chosen by the caller.
.macro TEST_F1 insn, a, rm, expect, flags
  li a0, \a
  fmv.w.x fa0, a0
  csrw fflags, zero
  \insn fa2, fa0, \rm
  fmv.x.w a2, fa2
  csrr a3, fflags
  CHECK a2, \expect, "\insn \a, \rm"
  CHECK a3, \flags, "\insn \a, \rm: fflags"
.endm
.macro TEST_FTOI insn, a, rm, expect, flags
  li a0, \a
  fmv.w.x fa0, a0
  csrw fflags, zero
  \insn a2, fa0, \rm
  csrr a3, fflags
  CHECK a2, \expect, "\insn \a, \rm"
  CHECK a3, \flags, "\insn \a, \rm: fflags"
.endm
.macro TEST_ITOF insn, a, rm, expect, flags
  li a0, \a
  csrw fflags, zero
  \insn fa2, a0, \rm
  fmv.x.w a2, fa2
  csrr a3, fflags
  CHECK a2, \expect, "\insn \a, \rm"
  CHECK a3, \flags, "\insn \a, \rm: fflags"
.endm

// Vortex custom-0 instructions (vortex-isa.md §1.2), as the intrinsics emit them.
.macro VX_TMC rs1
  .insn r 0x0b, 0, 0, x0, \rs1, x0
.endm
.macro VX_WSPAWN rs1, rs2
  .insn r 0x0b, 1, 0, x0, \rs1, \rs2
.endm
.macro VX_SPLIT rd, rs1
  .insn r 0x0b, 2, 0, \rd, \rs1, x0
.endm
.macro VX_SPLIT_N rd, rs1
  .insn r 0x0b, 2, 0, \rd, \rs1, x1
.endm
.macro VX_JOIN rs1
  .insn r 0x0b, 3, 0, x0, \rs1, x0
.endm
.macro VX_BAR rs1, rs2
  .insn r 0x0b, 4, 0, x0, \rs1, \rs2
.endm
.macro VX_PRED rs1, rs2
  .insn r 0x0b, 5, 0, x0, \rs1, \rs2
.endm
.macro VX_PRED_N rs1, rs2
  .insn r 0x0b, 5, 0, x1, \rs1, \rs2
.endm
.macro VX_VOTE f3, rd, rs1
  .insn r 0x0b, \f3, 1, \rd, \rs1, x0
.endm
.macro VX_SHFL f3, rd, rs1, rs2
  .insn r 0x0b, \f3, 1, \rd, \rs1, \rs2
.endm

.macro EXIT
  VX_TMC zero
.endm
