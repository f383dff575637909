// lh (I)
#pragma once

LANE(lh) { WRITE_RD(static_cast<int32_t>(LOAD(int16_t, RS1 + UIMM))); }
