// lhu (I)
#pragma once

LANE(lhu) { WRITE_RD(LOAD(uint16_t, RS1 + UIMM)); }
