// slti (I)
#pragma once

LANE(slti) { WRITE_RD(SRS1 < IMM ? 1 : 0); }
