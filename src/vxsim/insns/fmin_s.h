// fmin.s (F)
#pragma once

// IEEE minimumNumber: -0 < +0; one NaN gives the other operand; NV only for signalling NaNs.
LANE(fmin_s) { WRITE_FRD_BITS(fp_min_max(w, FRS1_BITS, FRS2_BITS, /*want_max=*/false)); }
