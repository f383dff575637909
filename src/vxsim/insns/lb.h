// lb (I)
#pragma once

LANE(lb) { WRITE_RD(static_cast<int32_t>(LOAD(int8_t, RS1 + UIMM))); }
