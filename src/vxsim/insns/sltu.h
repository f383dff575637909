// sltu (I)
#pragma once

LANE(sltu) { WRITE_RD(RS1 < RS2 ? 1 : 0); }
