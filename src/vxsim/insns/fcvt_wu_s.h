// fcvt.wu.s (F)
#pragma once

// Saturating: NaN and too-large values give UINT32_MAX, negative ones 0, with NV.
LANE(fcvt_wu_s) { WRITE_RD(fp_to_int(c, w, FRS1, /*is_signed=*/false)); }
