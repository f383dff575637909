// mulhu (M)
#pragma once

LANE(mulhu) { WRITE_RD((uint64_t{RS1} * uint64_t{RS2}) >> 32); }
