// pred.n (Vortex)
#pragma once

// vortex-isa.md §1.3 PRED.N (negated condition): keep the lanes whose condition holds; if none does, restore the
// mask from rs2 (last active lane). Used for divergent loop exits.
WARP(pred_n) {
  const uint32_t neg = 1;
  uint32_t keep = 0;
  FOR_EACH_ACTIVE_LANE(t) keep |= (((RS1 & 1) ^ neg) << t);
  const uint32_t restore = LANE_LAST(d.rs2) & c.full_mask;
  w.tmask = keep != 0 ? keep : restore;
  if (w.tmask == 0) c.exit_warp(w);
  c.yield = true;
  return NEXT_PC;
}
