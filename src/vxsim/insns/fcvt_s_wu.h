// fcvt.s.wu (F)
#pragma once

LANE(fcvt_s_wu) { WRITE_FRD_BITS(FP_ARITH(static_cast<float>(RS1), double(RS1))); }
