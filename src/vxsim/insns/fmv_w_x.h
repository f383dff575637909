// fmv.w.x (F)
#pragma once

LANE(fmv_w_x) { WRITE_FRD_BITS(RS1); }
