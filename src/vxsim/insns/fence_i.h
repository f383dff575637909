// fence.i (Zifencei)
#pragma once

// Code is decoded from memory that kernels cannot write (ACL), so nothing to flush.
WARP(fence_i) { return NEXT_PC; }
