// sh (I)
#pragma once

LANE(sh) { STORE(uint16_t, RS1 + UIMM, RS2); }
