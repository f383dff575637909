// feq.s (F)
#pragma once

// Quiet compare: NV only for signalling NaNs.
LANE(feq_s) { WRITE_RD(fp_compare(w, FRS1_BITS, FRS2_BITS, FpCompare::kEq)); }
