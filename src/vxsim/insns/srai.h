// srai (I)
#pragma once

LANE(srai) { WRITE_RD(SRS1 >> IMM); }
