// divu (M)
#pragma once

// Division by zero gives all ones.
LANE(divu) { WRITE_RD(RS2 == 0 ? 0xffffffffu : RS1 / RS2); }
