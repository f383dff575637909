// xori (I)
#pragma once

LANE(xori) { WRITE_RD(RS1 ^ UIMM); }
