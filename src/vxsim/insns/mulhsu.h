// mulhsu (M)
#pragma once

LANE(mulhsu) { WRITE_RD((int64_t{SRS1} * static_cast<int64_t>(uint64_t{RS2})) >> 32); }
