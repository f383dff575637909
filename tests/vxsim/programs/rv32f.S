// RV32F: results as bit patterns with fflags (NV=0x10 DZ=0x08 OF=0x04 UF=0x02 NX=0x01),
// every static rounding mode and the dynamic one through frm, canonical NaNs, fused FMA.
#include "check.h"

#define ONE 0x3f800000
#define TWO 0x40000000
#define THREE 0x40400000
#define MONE 0xbf800000
#define HALF_ULP 0x33800000   /* 2^-24: 1 + 2^-24 is halfway between 1 and its successor */
#define QNAN 0x7fc00000
#define QNAN_PAYLOAD 0x7fc12345
#define SNAN 0x7f800001
#define INF 0x7f800000
#define NINF 0xff800000
#define FLT_MAX 0x7f7fffff

.section .text.init
.globl _start
_start:
  // fadd: exact, ties under each rounding mode (RMM is ties-away), NaN rules
  TEST_FRR fadd.s, ONE, TWO, rne, THREE, 0
  TEST_FRR fadd.s, ONE, HALF_ULP, rne, 0x3f800000, 0x01
  TEST_FRR fadd.s, ONE, HALF_ULP, rtz, 0x3f800000, 0x01
  TEST_FRR fadd.s, ONE, HALF_ULP, rdn, 0x3f800000, 0x01
  TEST_FRR fadd.s, ONE, HALF_ULP, rup, 0x3f800001, 0x01
  TEST_FRR fadd.s, ONE, HALF_ULP, rmm, 0x3f800001, 0x01
  TEST_FRR fadd.s, MONE, 0xb3800000, rmm, 0xbf800001, 0x01
  TEST_FRR fadd.s, MONE, 0xb3800000, rdn, 0xbf800001, 0x01
  TEST_FRR fadd.s, MONE, 0xb3800000, rup, 0xbf800000, 0x01
  TEST_FRR fadd.s, INF, NINF, rne, QNAN, 0x10
  TEST_FRR fadd.s, QNAN_PAYLOAD, ONE, rne, QNAN, 0
  TEST_FRR fadd.s, SNAN, ONE, rne, QNAN, 0x10
  TEST_FRR fadd.s, FLT_MAX, FLT_MAX, rne, INF, 0x05
  TEST_FRR fadd.s, FLT_MAX, FLT_MAX, rtz, FLT_MAX, 0x05
  // fsub: x - x is +0, except -0 when rounding down
  TEST_FRR fsub.s, ONE, ONE, rne, 0x00000000, 0
  TEST_FRR fsub.s, ONE, ONE, rdn, 0x80000000, 0
  TEST_FRR fsub.s, ONE, THREE, rne, 0xc0000000, 0
  // fmul: overflow, exact subnormal (no UF), underflow to zero
  TEST_FRR fmul.s, TWO, THREE, rne, 0x40c00000, 0
  TEST_FRR fmul.s, FLT_MAX, TWO, rne, INF, 0x05
  TEST_FRR fmul.s, FLT_MAX, TWO, rtz, FLT_MAX, 0x05
  TEST_FRR fmul.s, 0x00800000, 0x3f000000, rne, 0x00400000, 0
  TEST_FRR fmul.s, 0x0da24260, 0x0da24260, rne, 0x00000000, 0x03
  TEST_FRR fmul.s, INF, 0x00000000, rne, QNAN, 0x10
  // fdiv: division by zero, 0/0, inexact under two modes
  TEST_FRR fdiv.s, ONE, 0x00000000, rne, INF, 0x08
  TEST_FRR fdiv.s, MONE, 0x00000000, rne, NINF, 0x08
  TEST_FRR fdiv.s, 0x00000000, 0x00000000, rne, QNAN, 0x10
  TEST_FRR fdiv.s, ONE, THREE, rne, 0x3eaaaaab, 0x01
  TEST_FRR fdiv.s, ONE, THREE, rtz, 0x3eaaaaaa, 0x01
  TEST_FRR fdiv.s, ONE, THREE, rmm, 0x3eaaaaab, 0x01
  // fsqrt
  TEST_F1 fsqrt.s, 0x40800000, rne, TWO, 0
  TEST_F1 fsqrt.s, TWO, rne, 0x3fb504f3, 0x01
  TEST_F1 fsqrt.s, MONE, rne, QNAN, 0x10
  TEST_F1 fsqrt.s, 0x80000000, rne, 0x80000000, 0
  // fused multiply-add: one rounding (the unfused result would be 0)
  TEST_FR4 fmadd.s, 0x3f800001, 0x3f7fffff, MONE, rne, 0x337ffffe, 0
  TEST_FR4 fmadd.s, TWO, THREE, ONE, rne, 0x40e00000, 0
  TEST_FR4 fmsub.s, TWO, THREE, ONE, rne, 0x40a00000, 0
  TEST_FR4 fnmsub.s, TWO, THREE, ONE, rne, 0xc0a00000, 0
  TEST_FR4 fnmadd.s, TWO, THREE, ONE, rne, 0xc0e00000, 0
  TEST_FR4 fmadd.s, INF, 0x00000000, QNAN, rne, QNAN, 0x10
  TEST_FR4 fmadd.s, ONE, HALF_ULP, ONE, rmm, 0x3f800001, 0x01
  // sign injection keeps NaN payloads (no canonicalisation, no flags)
  TEST_FRR_NORM fsgnj.s, QNAN_PAYLOAD, MONE, 0xffc12345, 0
  TEST_FRR_NORM fsgnjn.s, ONE, ONE, MONE, 0
  TEST_FRR_NORM fsgnjx.s, MONE, MONE, ONE, 0
  TEST_FRR_NORM fsgnjx.s, SNAN, ONE, SNAN, 0
  // min / max: signed zeros, one NaN, signalling NaN, two NaNs
  TEST_FRR_NORM fmin.s, 0x00000000, 0x80000000, 0x80000000, 0
  TEST_FRR_NORM fmax.s, 0x80000000, 0x00000000, 0x00000000, 0
  TEST_FRR_NORM fmin.s, QNAN, ONE, ONE, 0
  TEST_FRR_NORM fmax.s, SNAN, ONE, ONE, 0x10
  TEST_FRR_NORM fmin.s, QNAN, SNAN, QNAN, 0x10
  TEST_FRR_NORM fmax.s, MONE, TWO, TWO, 0
  // compares: feq is quiet, flt/fle signal on any NaN
  TEST_FCMP feq.s, 0x00000000, 0x80000000, 1, 0
  TEST_FCMP feq.s, QNAN, QNAN, 0, 0
  TEST_FCMP feq.s, SNAN, ONE, 0, 0x10
  TEST_FCMP flt.s, ONE, TWO, 1, 0
  TEST_FCMP flt.s, TWO, TWO, 0, 0
  TEST_FCMP flt.s, QNAN, ONE, 0, 0x10
  TEST_FCMP fle.s, TWO, TWO, 1, 0
  TEST_FCMP fle.s, ONE, QNAN, 0, 0x10
  // float -> int: rounding modes, saturation, NaN
  TEST_FTOI fcvt.w.s, 0x3fc00000, rne, 2, 0x01
  TEST_FTOI fcvt.w.s, 0x40200000, rne, 2, 0x01
  TEST_FTOI fcvt.w.s, 0x40200000, rmm, 3, 0x01
  TEST_FTOI fcvt.w.s, 0xc0200000, rmm, -3, 0x01
  TEST_FTOI fcvt.w.s, 0x40200000, rup, 3, 0x01
  TEST_FTOI fcvt.w.s, 0xc0200000, rdn, -3, 0x01
  TEST_FTOI fcvt.w.s, 0xc0200000, rtz, -2, 0x01
  TEST_FTOI fcvt.w.s, 0x4f32d05e, rne, 0x7fffffff, 0x10
  TEST_FTOI fcvt.w.s, 0xcf32d05e, rne, 0x80000000, 0x10
  TEST_FTOI fcvt.w.s, NINF, rne, 0x80000000, 0x10
  TEST_FTOI fcvt.w.s, QNAN, rne, 0x7fffffff, 0x10
  TEST_FTOI fcvt.w.s, 0xcf000000, rne, 0x80000000, 0
  TEST_FTOI fcvt.wu.s, MONE, rne, 0, 0x10
  TEST_FTOI fcvt.wu.s, 0xbf000000, rtz, 0, 0x01
  TEST_FTOI fcvt.wu.s, 0x4f6e6b28, rne, 0xee6b2800, 0
  TEST_FTOI fcvt.wu.s, 0x4f9502f9, rne, 0xffffffff, 0x10
  TEST_FTOI fcvt.wu.s, QNAN, rne, 0xffffffff, 0x10
  // int -> float: 2^24 + 1 is a tie
  TEST_ITOF fcvt.s.w, 16777217, rne, 0x4b800000, 0x01
  TEST_ITOF fcvt.s.w, 16777217, rup, 0x4b800001, 0x01
  TEST_ITOF fcvt.s.w, 16777217, rmm, 0x4b800001, 0x01
  TEST_ITOF fcvt.s.w, -1, rne, MONE, 0
  TEST_ITOF fcvt.s.w, 0x80000000, rne, 0xcf000000, 0
  TEST_ITOF fcvt.s.wu, 0xffffffff, rne, 0x4f800000, 0x01
  TEST_ITOF fcvt.s.wu, 0xffffffff, rtz, 0x4f7fffff, 0x01
  // moves keep every bit pattern (signalling NaN included, no flags)
  li a0, SNAN
  csrw fflags, zero
  fmv.w.x fa0, a0
  fmv.x.w a2, fa0
  csrr a3, fflags
  CHECK a2, SNAN, "fmv.x.w: a signalling NaN made by fmv.w.x comes back unchanged"
  CHECK a3, 0, "fmv.x.w: no flags"
  li s0, 0x00200000
  li a0, 0xff812345
  fmv.w.x fa0, a0
  fsw fa0, 8(s0)
  lw a2, 8(s0)
  CHECK a2, 0xff812345, "fmv.w.x: bits reach the FP register unchanged (seen through fsw)"
  // flw / fsw keep NaN payloads
  li s0, 0x00200000
  li a0, QNAN_PAYLOAD
  sw a0, 0(s0)
  flw fa1, 0(s0)
  fmv.x.w a2, fa1
  CHECK a2, QNAN_PAYLOAD, "flw loads a NaN payload unchanged"
  fsw fa1, 4(s0)
  lw a2, 4(s0)
  CHECK a2, QNAN_PAYLOAD, "fsw stores a NaN payload unchanged"
  flw fa1, -4(s0)
  fmv.x.w a2, fa1
  CHECK a2, 0xbaadf00d, "flw with a negative offset (never-written memory)"
  // fclass: one class bit each
  .irp v, NINF, MONE, 0x80000001, 0x80000000, 0x00000000, 0x00000001, ONE, INF, SNAN, QNAN
  li a0, \v
  fmv.w.x fa0, a0
  fclass.s a2, fa0
  sw a2, 0(s0)
  addi s0, s0, 4
  .endr
  li s0, 0x00200000
  .irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
  lw a2, 4*\i(s0)
  CHECK a2, 1 << \i, "fclass.s class bit \i"
  .endr
  // dynamic rounding through frm, and the fcsr view
  li a0, 1
  csrw frm, a0
  TEST_FRR fdiv.s, ONE, THREE, dyn, 0x3eaaaaaa, 0x01
  li a0, 3
  csrw frm, a0
  TEST_FRR fdiv.s, ONE, THREE, dyn, 0x3eaaaaab, 0x01
  csrw frm, zero
  li a0, 0xff
  csrw fcsr, a0
  csrr a2, frm
  csrr a3, fflags
  CHECK a2, 7, "fcsr write sets frm"
  CHECK a3, 0x1f, "fcsr write sets fflags"
  csrrci a2, fflags, 0x1
  csrr a3, fcsr
  CHECK a2, 0x1f, "csrrci fflags returns the old value"
  CHECK a3, 0xfe, "fcsr after clearing NX"
  csrw fcsr, zero
  // flags accumulate until cleared
  li a0, ONE
  fmv.w.x fa0, a0
  li a0, 0
  fmv.w.x fa1, a0
  fdiv.s fa2, fa0, fa1
  li a0, THREE
  fmv.w.x fa1, a0
  fdiv.s fa2, fa0, fa1
  csrr a3, fflags
  CHECK a3, 0x09, "fflags accumulate DZ then NX"
  EXIT
