// sub (I)
#pragma once

LANE(sub) { WRITE_RD(RS1 - RS2); }
