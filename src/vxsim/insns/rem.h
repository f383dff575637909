// rem (M)
#pragma once

// Remainder by zero gives the dividend; INT_MIN % -1 gives 0.
LANE(rem) {
  if (RS2 == 0) WRITE_RD(RS1);
  else if (SRS1 == INT32_MIN && SRS2 == -1) WRITE_RD(0);
  else WRITE_RD(SRS1 % SRS2);
}
