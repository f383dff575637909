// lr.w (A)
#pragma once

LANE(lr_w) {
  const uint32_t addr = RS1;
  WRITE_RD(LOAD(uint32_t, addr));
  c.reserve(w, t, addr);
}
