// sret (Priv)
#pragma once

// A no-op in Vortex 2.x.
WARP(sret) { return NEXT_PC; }
