// fsgnjx.s (F)
#pragma once

LANE(fsgnjx_s) { WRITE_FRD_BITS(FRS1_BITS ^ (FRS2_BITS & 0x80000000u)); }
