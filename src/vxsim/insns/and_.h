// and (I)
#pragma once

LANE(and_) { WRITE_RD(RS1 & RS2); }
