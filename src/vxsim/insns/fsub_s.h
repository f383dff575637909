// fsub.s (F)
#pragma once

LANE(fsub_s) { WRITE_FRD_BITS(FP_ARITH(FRS1 - FRS2, double(FRS1) - double(FRS2))); }
