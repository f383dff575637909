// split (Vortex)
#pragma once

// vortex-isa.md §1.3 SPLIT (Vortex 2.x): rd = IPDOM depth before the push; on divergence the
// larger lane set runs first (ties: the "then" set), the other set is pushed with PC+4.
WARP(split) {
  return split_warp(c, w, d, /*negate=*/false);
}
