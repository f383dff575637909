// czero.eqz (Zicond)
#pragma once

LANE(czero_eqz) { WRITE_RD(RS2 == 0 ? 0 : RS1); }
