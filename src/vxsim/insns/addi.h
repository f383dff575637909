// addi (I)
#pragma once

LANE(addi) { WRITE_RD(RS1 + UIMM); }
