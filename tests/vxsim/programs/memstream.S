// Memory-path patterns for the timing model's tests (test_timing.cpp, Timing.WideWarpStores):
// every warp of core 0 with all its threads runs 64 iterations of one access per lane; the
// pattern comes in MSCRATCH (DCR STARTUP_ARG):
//   0: sw, consecutive words (a warp touches threads*4 bytes: 2 lines at 32 threads)
//   1: sw, a 64-byte line of its own per lane (32 lines per warp access at 32 threads)
//   2: amoadd.w, a line of its own per lane (as 1, with an atomic)
//   3: lw, a line of its own per lane
// Addresses from BUF; each iteration moves 64 KiB further (no line reused), warps 4 KiB apart.
#include "check.h"

#define CSR_THREAD_ID 0xCC0
#define CSR_WARP_ID 0xCC1
#define CSR_NUM_WARPS 0xFC1
#define BUF 0x01000000

.section .text.init
.globl _start
_start:
  csrr a0, CSR_NUM_WARPS
  la a1, warp_entry
  VX_WSPAWN a0, a1
warp_entry:
  li a0, -1
  VX_TMC a0
  csrr t0, CSR_THREAD_ID
  csrr t1, CSR_WARP_ID
  csrr s10, mscratch
  slli t1, t1, 12                  // warp * 4 KiB
  li t2, BUF
  add t2, t2, t1
  slli t3, t0, 2                   // consecutive words: lane * 4
  slli t4, t0, 6                   // a line per lane: lane * 64
  beqz s10, 1f
  mv t3, t4
1:
  add t2, t2, t3                   // this lane's first address
  li t5, 64                        // iterations
  li t6, 0x10000                   // stride between iterations
  li a1, 1
  li a2, 1
  beq s10, a2, loop_sw
  li a2, 2
  beq s10, a2, loop_amo
  li a2, 3
  beq s10, a2, loop_lw
loop_sw:
  sw a1, 0(t2)
  add t2, t2, t6
  addi t5, t5, -1
  bnez t5, loop_sw
  j finish
loop_amo:
  amoadd.w zero, a1, (t2)
  add t2, t2, t6
  addi t5, t5, -1
  bnez t5, loop_amo
  j finish
loop_lw:
  lw a3, 0(t2)
  add a1, a1, a3
  add t2, t2, t6
  addi t5, t5, -1
  bnez t5, loop_lw
  j finish

finish:
  // warp 0 waits for the others (wspawn(1, 0) idiom), then everyone exits
  csrr t0, CSR_WARP_ID
  bnez t0, 2f
  li a0, 1
  VX_TMC a0
  li a0, 1
  li a1, 0
  VX_WSPAWN a0, a1
2:
  EXIT
