// fcvt.s.w (F)
#pragma once

LANE(fcvt_s_w) { WRITE_FRD_BITS(FP_ARITH(static_cast<float>(SRS1), double(SRS1))); }
