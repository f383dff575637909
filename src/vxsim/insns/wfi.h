// wfi (Priv)
#pragma once

// A no-op in Vortex 2.x.
WARP(wfi) { return NEXT_PC; }
