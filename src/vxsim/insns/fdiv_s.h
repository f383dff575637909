// fdiv.s (F)
#pragma once

// A quotient of two floats is never exactly halfway, so RMM equals RNE here.
LANE(fdiv_s) { WRITE_FRD_BITS(FP_ARITH(FRS1 / FRS2, double(FRS1 / FRS2))); }
