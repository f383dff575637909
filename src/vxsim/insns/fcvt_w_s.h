// fcvt.w.s (F)
#pragma once

// Saturating: NaN and too-large values give INT32_MAX, too-small INT32_MIN, with NV.
LANE(fcvt_w_s) { WRITE_RD(fp_to_int(c, w, FRS1, /*is_signed=*/true)); }
