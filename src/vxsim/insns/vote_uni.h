// vote.uni (Vortex)
#pragma once

// vortex-isa.md §1.3 VOTE.UNI over the active lanes' rs1 bit 0; the result goes to every active lane.
WARP(vote_uni) {
  uint32_t ballot = 0;
  FOR_EACH_ACTIVE_LANE(t) ballot |= (RS1 & 1) << t;
  const uint32_t result = (ballot == 0 || ballot == w.tmask) ? 1u : 0u;
  FOR_EACH_ACTIVE_LANE(t) WRITE_RD(result);
  return NEXT_PC;
}
