// fence (I)
#pragma once

// One functional memory: ordering is already total.
WARP(fence) { return NEXT_PC; }
