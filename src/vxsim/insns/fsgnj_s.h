// fsgnj.s (F)
#pragma once

LANE(fsgnj_s) { WRITE_FRD_BITS((FRS1_BITS & 0x7fffffffu) | (FRS2_BITS & 0x80000000u)); }
