// srl (I)
#pragma once

LANE(srl) { WRITE_RD(RS1 >> (RS2 & 31)); }
