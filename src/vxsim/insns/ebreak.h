// ebreak (I)
#pragma once

// As SimX: EBREAK deactivates all warps, which ends the run.
WARP(ebreak) {
  c.stop_all();
  return NEXT_PC;
}
