// or (I)
#pragma once

LANE(or_) { WRITE_RD(RS1 | RS2); }
