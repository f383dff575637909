// sltiu (I)
#pragma once

LANE(sltiu) { WRITE_RD(RS1 < UIMM ? 1 : 0); }
