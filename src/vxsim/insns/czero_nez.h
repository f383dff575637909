// czero.nez (Zicond)
#pragma once

LANE(czero_nez) { WRITE_RD(RS2 != 0 ? 0 : RS1); }
