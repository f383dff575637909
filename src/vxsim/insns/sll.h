// sll (I)
#pragma once

LANE(sll) { WRITE_RD(RS1 << (RS2 & 31)); }
