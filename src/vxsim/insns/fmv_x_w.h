// fmv.x.w (F)
#pragma once

LANE(fmv_x_w) { WRITE_RD(FRS1_BITS); }
