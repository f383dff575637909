// flt.s (F)
#pragma once

// Signalling compare: NV for any NaN.
LANE(flt_s) { WRITE_RD(fp_compare(w, FRS1_BITS, FRS2_BITS, FpCompare::kLt)); }
