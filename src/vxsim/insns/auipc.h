// auipc (I)
#pragma once

LANE(auipc) { WRITE_RD(PC + UIMM); }
