// fmax.s (F)
#pragma once

// IEEE maximumNumber: +0 > -0; one NaN gives the other operand; NV only for signalling NaNs.
LANE(fmax_s) { WRITE_FRD_BITS(fp_min_max(w, FRS1_BITS, FRS2_BITS, /*want_max=*/true)); }
