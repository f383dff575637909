// slt (I)
#pragma once

LANE(slt) { WRITE_RD(SRS1 < SRS2 ? 1 : 0); }
