// amoor.w (A)
#pragma once

// Lanes apply their read-modify-write one after another, in lane order.
LANE(amoor_w) {
  const uint32_t addr = RS1;
  const uint32_t src = RS2;
  const uint32_t old = LOAD(uint32_t, addr);
  STORE(uint32_t, addr, old | src);
  WRITE_RD(old);
}
