// add (I)
#pragma once

LANE(add) { WRITE_RD(RS1 + RS2); }
