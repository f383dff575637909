// sb (I)
#pragma once

LANE(sb) { STORE(uint8_t, RS1 + UIMM, RS2); }
