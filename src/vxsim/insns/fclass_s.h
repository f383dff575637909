// fclass.s (F)
#pragma once

LANE(fclass_s) { WRITE_RD(fp_class(FRS1_BITS)); }
