// amomax.w (A)
#pragma once

// Lanes apply their read-modify-write one after another, in lane order.
LANE(amomax_w) {
  const uint32_t addr = RS1;
  const uint32_t src = RS2;
  const uint32_t old = LOAD(uint32_t, addr);
  STORE(uint32_t, addr, static_cast<int32_t>(old) > static_cast<int32_t>(src) ? old : src);
  WRITE_RD(old);
}
