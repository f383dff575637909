// xor (I)
#pragma once

LANE(xor_) { WRITE_RD(RS1 ^ RS2); }
