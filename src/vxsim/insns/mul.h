// mul (M)
#pragma once

LANE(mul) { WRITE_RD(RS1 * RS2); }
