// mret (Priv)
#pragma once

// A no-op in Vortex 2.x.
WARP(mret) { return NEXT_PC; }
