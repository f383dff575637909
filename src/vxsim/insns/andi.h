// andi (I)
#pragma once

LANE(andi) { WRITE_RD(RS1 & UIMM); }
