// sc.w (A)
#pragma once

// Succeeds (rd = 0) when this lane holds a reservation on the address; any SC clears it.
LANE(sc_w) {
  const uint32_t addr = RS1;
  const bool ok = (w.lr_valid >> t & 1) && w.lr_addr[t] == addr;
  w.lr_valid &= ~(1u << t);
  if (addr & 3) c.misaligned(addr, t, 4, "sc.w");
  if (ok) STORE(uint32_t, addr, RS2);
  WRITE_RD(ok ? 0 : 1);
}
