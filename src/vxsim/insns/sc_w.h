// sc.w (A)
#pragma once

// Succeeds (rd = 0) when this lane still holds a reservation on the address: no store to it
// since the LR, from any lane or hart. Any SC ends the reservation.
LANE(sc_w) {
  const uint32_t addr = RS1;
  if (addr & 3) c.misaligned(addr, t, 4, "sc.w");
  const bool ok = c.take_reservation(w, t, addr);
  if (ok) STORE(uint32_t, addr, RS2);
  WRITE_RD(ok ? 0 : 1);
}
