// ori (I)
#pragma once

LANE(ori) { WRITE_RD(RS1 | UIMM); }
