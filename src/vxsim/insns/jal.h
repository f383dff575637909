// jal (I)
#pragma once

// Uniform by construction: every active lane links and jumps.
WARP(jal) {
  const uint32_t target = PC + UIMM;
  if (target & 3) TRAP(kMisalignedFetch, "jump target is not 4-byte aligned");
  FOR_EACH_ACTIVE_LANE(t) WRITE_RD(NEXT_PC);
  return target;
}
