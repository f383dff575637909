// fsqrt.s (F)
#pragma once

// A square root is never exactly halfway, so RMM equals RNE here.
LANE(fsqrt_s) { WRITE_FRD_BITS(FP_ARITH(std::sqrt(FRS1), double(std::sqrt(FRS1)))); }
