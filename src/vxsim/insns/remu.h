// remu (M)
#pragma once

// Remainder by zero gives the dividend.
LANE(remu) { WRITE_RD(RS2 == 0 ? RS1 : RS1 % RS2); }
