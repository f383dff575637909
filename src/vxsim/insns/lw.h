// lw (I)
#pragma once

LANE(lw) { WRITE_RD(LOAD(uint32_t, RS1 + UIMM)); }
