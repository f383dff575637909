// shfl.up (Vortex)
#pragma once

// vortex-isa.md §1.3 SHFL.UP: rs2 of the last active lane packs b = [5:0], c = [11:6],
// mask = [17:12]; an invalid source lane keeps the lane's own value.
WARP(shfl_up) {
  return shuffle_warp(c, w, d, ShuffleKind::kUp);
}
