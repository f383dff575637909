// lui (I)
#pragma once

LANE(lui) { WRITE_RD(IMM); }
