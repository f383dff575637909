// div (M)
#pragma once

// Division by zero gives -1; INT_MIN / -1 overflows to INT_MIN (no trap in RISC-V).
LANE(div) {
  if (RS2 == 0) WRITE_RD(-1);
  else if (SRS1 == INT32_MIN && SRS2 == -1) WRITE_RD(INT32_MIN);
  else WRITE_RD(SRS1 / SRS2);
}
