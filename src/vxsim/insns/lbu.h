// lbu (I)
#pragma once

LANE(lbu) { WRITE_RD(LOAD(uint8_t, RS1 + UIMM)); }
