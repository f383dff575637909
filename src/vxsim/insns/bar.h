// bar (Vortex)
#pragma once

// vortex-isa.md §1.3 BAR id, count (both from the last active lane); count < 2 is a no-op;
// bit 31 of id selects the global barrier across cores.
WARP(bar) {
  const uint32_t bar_id = LANE_LAST(d.rs1);
  const uint32_t count = LANE_LAST(d.rs2);
  if (count >= 2) c.arrive_barrier(w, bar_id, count);
  return NEXT_PC;
}
