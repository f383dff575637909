// flw (F)
#pragma once

LANE(flw) { WRITE_FRD_BITS(LOAD(uint32_t, RS1 + UIMM)); }
