// ecall (I)
#pragma once

// As SimX: ECALL deactivates all warps, which ends the run.
WARP(ecall) {
  c.stop_all();
  return NEXT_PC;
}
