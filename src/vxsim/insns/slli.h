// slli (I)
#pragma once

LANE(slli) { WRITE_RD(RS1 << IMM); }
