// jalr (I)
#pragma once

// The target comes from the last active lane (as Vortex); read before rd is written.
WARP(jalr) {
  const uint32_t target = (LANE_LAST(d.rs1) + UIMM) & ~1u;
  if (target & 3) TRAP(kMisalignedFetch, "jump target is not 4-byte aligned");
  FOR_EACH_ACTIVE_LANE(t) WRITE_RD(NEXT_PC);
  return target;
}
