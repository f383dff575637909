// srli (I)
#pragma once

LANE(srli) { WRITE_RD(RS1 >> IMM); }
