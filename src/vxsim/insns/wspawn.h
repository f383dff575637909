// wspawn (Vortex)
#pragma once

// vortex-isa.md §1.3 WSPAWN n, pc: n (clamped to the warp count) and pc from the last active
// lane. The caller waits until it is the only active warp; then warps i < n other than the
// caller start at pc with thread 0 only (Core::resolve_spawns).
WARP(wspawn) {
  uint32_t n = LANE_LAST(d.rs1);
  if (n > c.nw) n = c.nw;
  const uint32_t target = LANE_LAST(d.rs2);
  const bool alone = c.active_warps == (1u << w.id);
  // vx_spawn_threads regions: a non-zero start PC spawns, PC 0 joins (Core::open_region).
  if (target != 0) {
    if (!c.region_open && c.job_posted) c.open_region(n);
  } else if (c.region_open && n < 2 && alone) {
    c.region_close_pending = true;  // closed by the run loop once this WSPAWN is counted
    c.yield = true;
  }
  if (n < 2 && alone) return NEXT_PC;
  if (n >= 2 && (target & 3)) TRAP(kMisalignedFetch, "wspawn start pc is not 4-byte aligned");
  w.spawn_count = n;
  w.spawn_pc = target;
  w.wait = WarpWait::kSpawn;
  c.yield = true;
  return NEXT_PC;
}
