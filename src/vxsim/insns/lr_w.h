// lr.w (A)
#pragma once

LANE(lr_w) {
  const uint32_t addr = RS1;
  WRITE_RD(LOAD(uint32_t, addr));
  w.lr_valid |= 1u << t;
  w.lr_addr[t] = addr;
}
