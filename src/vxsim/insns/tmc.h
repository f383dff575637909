// tmc (Vortex)
#pragma once

// vortex-isa.md §1.3 TMC: the new thread mask is rs1 of the last active lane; 0 ends the warp.
WARP(tmc) {
  w.tmask = LANE_LAST(d.rs1) & c.full_mask;
  if (w.tmask == 0) c.exit_warp(w);
  c.yield = true;
  return NEXT_PC;
}
