// uret (Priv)
#pragma once

// A no-op in Vortex 2.x.
WARP(uret) { return NEXT_PC; }
