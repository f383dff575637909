// sw (I)
#pragma once

LANE(sw) { STORE(uint32_t, RS1 + UIMM, RS2); }
