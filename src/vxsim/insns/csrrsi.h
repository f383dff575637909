// csrrsi (Zicsr)
#pragma once

// Executed lane by lane in order, as SimX: each lane reads, then writes (per-warp and
// per-core CSRs therefore see the last active lane's write).
WARP(csrrsi) {
  const uint32_t csr = UIMM & 0xfff;
  FOR_EACH_ACTIVE_LANE(t) {
    const uint32_t old = c.read_csr(w, t, csr);
    if (d.rs1 != 0) c.write_csr(w, csr, old | d.rs1);
    WRITE_RD(old);
  }
  return NEXT_PC;
}
