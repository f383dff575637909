// mulh (M)
#pragma once

LANE(mulh) { WRITE_RD((int64_t{SRS1} * int64_t{SRS2}) >> 32); }
