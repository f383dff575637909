// fnmadd.s (F)
#pragma once

// Fused: one rounding. Invalid is raised for inf * 0 even when the addend is a quiet NaN.
LANE(fnmadd_s) {
  const float a = FRS1, b = FRS2, e = FRS3;
  if (fma_inf_times_zero(a, b)) FFLAGS |= kFlagNV;
  WRITE_FRD_BITS(FP_ARITH(std::fma(-a, b, -e), std::fma(-double(a), double(b), -double(e))));
}
