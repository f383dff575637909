// join (Vortex)
#pragma once

// vortex-isa.md §1.3 JOIN: no-op when rs1 equals the depth (the SPLIT did not diverge);
// otherwise the first arrival runs the deferred lanes from the SPLIT's PC+4, the second
// restores the original mask and pops.
WARP(join) {
  const uint32_t depth = LANE_LAST(d.rs1);
  if (depth == w.ipdom_size) return NEXT_PC;
  if (w.ipdom_size == 0) TRAP(kIpdomUnderflow, "JOIN with an empty IPDOM stack (no matching SPLIT)");
  IpdomEntry& top = w.ipdom[w.ipdom_size - 1];
  c.yield = true;
  if (!top.fallthrough) {
    top.fallthrough = true;
    w.tmask = top.else_mask;
    return top.pc;
  }
  w.tmask = top.orig_mask;
  --w.ipdom_size;
  return NEXT_PC;
}
