// fsw (F)
#pragma once

LANE(fsw) { STORE(uint32_t, RS1 + UIMM, FRS2_BITS); }
