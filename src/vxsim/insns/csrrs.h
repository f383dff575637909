// csrrs (Zicsr)
#pragma once

// Executed lane by lane in order, as SimX: each lane reads, then writes (per-warp and
// per-core CSRs therefore see the last active lane's write).
WARP(csrrs) {
  const uint32_t csr = UIMM & 0xfff;
  FOR_EACH_ACTIVE_LANE(t) {
    const uint32_t old = c.read_csr(w, t, csr);
    if (d.rs1 != 0) c.write_csr(w, csr, old | RS1);
    else if (csr == 0x340 && old == 0) c.argument_read_as_null = true;  // MSCRATCH: the argument pointer
    WRITE_RD(old);
  }
  return NEXT_PC;
}
