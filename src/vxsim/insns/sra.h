// sra (I)
#pragma once

LANE(sra) { WRITE_RD(SRS1 >> (RS2 & 31)); }
