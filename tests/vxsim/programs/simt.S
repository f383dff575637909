// SIMT behaviour: the case number comes in MSCRATCH (DCR STARTUP_ARG). Every case runs on all
// warps of every core with all threads active; hart h writes its results at RESULTS + 64*h.
// test_simt.cpp holds the expected values.
#include "check.h"

#define CSR_THREAD_ID 0xCC0
#define CSR_WARP_ID 0xCC1
#define CSR_CORE_ID 0xCC2
#define CSR_ACTIVE_WARPS 0xCC3
#define CSR_ACTIVE_THREADS 0xCC4
#define CSR_NUM_THREADS 0xFC0
#define CSR_NUM_WARPS 0xFC1
#define CSR_NUM_CORES 0xFC2
#define CSR_LMEM_BASE 0xFC3
#define CSR_MHARTID 0xF14
#define SHARED 0x00400000   /* global scratch shared by all harts */

.section .text.init
.globl _start
_start:
  csrr a0, CSR_NUM_WARPS
  la a1, warp_entry
  VX_WSPAWN a0, a1
warp_entry:
  csrr s9, CSR_ACTIVE_THREADS      // a spawned warp starts with thread 0 only
  li a0, -1
  VX_TMC a0
  csrr t0, CSR_MHARTID
  slli t0, t0, 6
  li t1, RESULTS
  add s11, t0, t1
  csrr s10, mscratch
  la t0, cases
  slli t1, s10, 2
  add t0, t0, t1
  lw t0, 0(t0)
  jr t0

finish:
  // warp 0 waits for the others (wspawn(1, 0) idiom), then everyone exits
  csrr t0, CSR_WARP_ID
  bnez t0, 1f
  li a0, 1
  VX_TMC a0
  li a0, 1
  li a1, 0
  VX_WSPAWN a0, a1
1:
  EXIT

.section .rodata
.balign 4
cases:
  .word case_csr, case_split, case_pred, case_barrier, case_vote, case_shfl, case_wspawn_wait, case_amo, case_global_barrier
  .word case_split_n, case_lrsc, case_split_pred

.text
// 0: CSRs of every hart, and the mask a spawned warp started with
case_csr:
  csrr a0, CSR_THREAD_ID
  sw a0, 0(s11)
  csrr a0, CSR_WARP_ID
  sw a0, 4(s11)
  csrr a0, CSR_CORE_ID
  sw a0, 8(s11)
  csrr a0, CSR_NUM_THREADS
  sw a0, 12(s11)
  csrr a0, CSR_NUM_WARPS
  sw a0, 16(s11)
  csrr a0, CSR_NUM_CORES
  sw a0, 20(s11)
  csrr a0, CSR_MHARTID
  sw a0, 24(s11)
  csrr a0, CSR_ACTIVE_THREADS
  sw a0, 28(s11)
  csrr a0, CSR_LMEM_BASE
  sw a0, 32(s11)
  csrr a0, mscratch
  sw a0, 36(s11)
  sw s9, 40(s11)
  j finish

// 1: nested SPLIT/JOIN: odd lanes get 100 + (bit 1 ? 10 : 20), even lanes 200; depth values
case_split:
  csrr t0, CSR_THREAD_ID
  andi a0, t0, 1
  VX_SPLIT s0, a0
  beqz a0, 2f
  li a2, 100
  srli a1, t0, 1
  andi a1, a1, 1                    // SPLIT looks at bit 0
  VX_SPLIT s1, a1
  csrr a3, CSR_ACTIVE_THREADS
  sw a3, 12(s11)                    // mask of the inner pass this lane ran in
  beqz a1, 3f
  addi a2, a2, 10
  j 4f
3: addi a2, a2, 20
4: VX_JOIN s1
  sw s1, 8(s11)
  j 5f
2: li a2, 200
5: VX_JOIN s0
  csrr a3, CSR_ACTIVE_THREADS
  sw a2, 0(s11)
  sw s0, 4(s11)
  sw a3, 16(s11)                    // mask after the outer join: all lanes again
  j finish

// 2: divergent loop exit with PRED: lane t iterates t + 1 times
case_pred:
  csrr t0, CSR_THREAD_ID
  addi t1, t0, 1
  li a2, 0
  csrr s0, CSR_ACTIVE_THREADS
1: addi a2, a2, 1
  addi t1, t1, -1
  snez a0, t1
  VX_PRED a0, s0
  bnez a0, 1b
  csrr a3, CSR_ACTIVE_THREADS
  sw a2, 0(s11)
  sw a3, 4(s11)
  // the same loop with PRED.N on the exit condition
  addi t1, t0, 1
  li a2, 0
2: addi a2, a2, 1
  addi t1, t1, -1
  seqz a0, t1
  VX_PRED_N a0, s0
  beqz a0, 2b
  sw a2, 8(s11)
  j finish

// 3: barrier across warps: write own slot in local memory, BAR, read the next warp's slot
case_barrier:
  csrr t0, CSR_WARP_ID
  csrr t1, CSR_THREAD_ID
  csrr t2, CSR_NUM_THREADS
  csrr t3, CSR_NUM_WARPS
  csrr t4, CSR_LMEM_BASE
  mul a0, t0, t2
  add a0, a0, t1
  slli a0, a0, 2
  add a0, a0, t4
  li a1, 100
  mul a1, a1, t0
  add a1, a1, t1
  csrr a2, CSR_CORE_ID
  li a3, 1000
  mul a2, a2, a3
  add a1, a1, a2                    // 1000*core + 100*warp + lane
  sw a1, 0(a0)
  li a4, 1
  VX_BAR zero, t3
  addi t5, t0, 1
  remu t5, t5, t3                   // next warp
  mul a0, t5, t2
  add a0, a0, t1
  slli a0, a0, 2
  add a0, a0, t4
  lw a1, 0(a0)
  sw a1, 0(s11)
  j finish

// 4: votes over predicate (lane < 3) and over an all-true predicate
case_vote:
  csrr t0, CSR_THREAD_ID
  sltiu a0, t0, 3
  VX_VOTE 0, a1, a0
  sw a1, 0(s11)
  VX_VOTE 1, a1, a0
  sw a1, 4(s11)
  VX_VOTE 2, a1, a0
  sw a1, 8(s11)
  VX_VOTE 3, a1, a0
  sw a1, 12(s11)
  li a0, 1
  VX_VOTE 0, a1, a0
  sw a1, 16(s11)
  VX_VOTE 2, a1, a0
  sw a1, 20(s11)
  j finish

// 5: shuffles of value 10*lane + 1 over the whole warp (mask 0, c = threads - 1)
case_shfl:
  csrr t0, CSR_THREAD_ID
  csrr t2, CSR_NUM_THREADS
  li a0, 10
  mul a0, a0, t0
  addi a0, a0, 1
  addi t3, t2, -1
  slli t3, t3, 6                    // c = threads - 1
  ori a1, t3, 1                     // b = 1
  VX_SHFL 4, a2, a0, a1
  sw a2, 0(s11)
  VX_SHFL 5, a2, a0, a1
  sw a2, 4(s11)
  ori a1, t3, 3                     // b = 3
  VX_SHFL 6, a2, a0, a1
  sw a2, 8(s11)
  ori a1, t3, 2                     // idx 2
  VX_SHFL 7, a2, a0, a1
  sw a2, 12(s11)
  li a1, (4 << 12) | 1              // segments of 4 lanes (mask = 4), up by 1
  VX_SHFL 4, a2, a0, a1
  sw a2, 16(s11)
  li a1, 3 << 6 | 1                 // down by 1 with c = 3: lanes above 3 keep their value
  VX_SHFL 5, a2, a0, a1
  sw a2, 20(s11)
  j finish

// 6: WSPAWN waits until the caller is the only active warp. Warps 1.. spin, then mark
// themselves; warp 0 spawns a second generation at once, which must see every mark.
case_wspawn_wait:
  csrr t0, CSR_WARP_ID
  csrr t1, CSR_CORE_ID
  slli t1, t1, 7
  li t2, SHARED
  add s8, t2, t1                    // per-core marks
  bnez t0, 1f
  li a0, 1
  VX_TMC a0
  csrr a0, CSR_NUM_WARPS
  la a1, second_generation
  VX_WSPAWN a0, a1
  li a0, 1
  li a1, 0
  VX_WSPAWN a0, a1                  // wait for the second generation
  EXIT
1: li a0, 2000
2: addi a0, a0, -1
  bnez a0, 2b
  slli t3, t0, 2
  add t3, t3, s8
  li a0, 1
  sw a0, 0(t3)
  EXIT
second_generation:
  csrr a0, CSR_ACTIVE_THREADS       // thread 0 only
  csrr t1, CSR_CORE_ID              // registers of a spawned warp are not initialised
  slli t1, t1, 7
  li t2, SHARED
  add s8, t2, t1
  csrr t0, CSR_WARP_ID
  csrr t1, CSR_NUM_WARPS
  li a2, 0                          // count the first generation's marks
  li t3, 1
3: bgeu t3, t1, 4f
  slli t4, t3, 2
  add t4, t4, s8
  lw t5, 0(t4)
  add a2, a2, t5
  addi t3, t3, 1
  j 3b
4: csrr t4, CSR_MHARTID
  slli t4, t4, 6
  li t5, RESULTS
  add t4, t4, t5
  sw a0, 0(t4)
  sw a2, 4(t4)
  EXIT

// 7: every lane of every warp does amoadd 1 on one counter per core
case_amo:
  csrr t1, CSR_CORE_ID
  slli t1, t1, 7
  li t2, SHARED + 0x1000
  add t2, t2, t1
  li a1, 1
  amoadd.w a0, a1, (t2)
  sw a0, 0(s11)
  j finish

// 8: global barrier across cores: each core marks, BAR(0x80000000, cores), reads the others
case_global_barrier:
  csrr t1, CSR_CORE_ID
  csrr t3, CSR_NUM_CORES
  li t2, SHARED + 0x2000
  slli t4, t1, 2
  add t4, t4, t2
  addi a0, t1, 1
  sw a0, 0(t4)                      // every lane writes the same value
  li a0, 0x80000000
  VX_BAR a0, t3
  li a2, 0
  li t5, 0
1: bgeu t5, t3, 2f
  slli t4, t5, 2
  add t4, t4, t2
  lw a3, 0(t4)
  add a2, a2, a3
  addi t5, t5, 1
  j 1b
2: sw a2, 0(s11)
  j finish

// 9: SPLIT.N runs on the negated predicate; a uniform SPLIT does not push (depth stays)
case_split_n:
  csrr t0, CSR_THREAD_ID
  sltiu a0, t0, 1                   // only lane 0
  VX_SPLIT_N s0, a0
  li a2, 5
  bnez a0, 1f
  csrr a3, CSR_ACTIVE_THREADS
  sw a3, 0(s11)                     // the negated set runs first (it is larger)
  li a2, 7
1: VX_JOIN s0
  sw a2, 4(s11)
  li a0, 1
  VX_SPLIT s1, a0                   // uniform: rd = depth = 0, nothing pushed
  sw s1, 8(s11)
  VX_JOIN s1
  csrr a3, CSR_ACTIVE_THREADS
  sw a3, 12(s11)
  j finish

// 10: every lane LRs one per-core word, then SCs: the first SC (lane 0) breaks the other
// lanes' reservations; each warp then repeats after the previous one finished
case_lrsc:
  csrr t1, CSR_CORE_ID
  slli t1, t1, 7
  li t2, SHARED + 0x3000
  add t2, t2, t1
  lr.w a0, (t2)
  addi a0, a0, 1
  sc.w a1, a0, (t2)
  sw a1, 0(s11)
  j finish

// 11: a PRED loop inside one side of a SPLIT: lanes t % 3 == 0 sum 0..t (t + 1 iterations,
// leaving the loop at different times), the others compute 2t; PRED restores the then-mask
// (saved inside the branch), JOIN the full mask
case_split_pred:
  csrr t0, CSR_THREAD_ID
  li t1, 3
  remu a0, t0, t1
  seqz a0, a0
  VX_SPLIT s0, a0
  beqz a0, 1f
  csrr s1, CSR_ACTIVE_THREADS
  li a2, 0
  li t3, 0
2: add a2, a2, t3
  addi t3, t3, 1
  sltu a1, t0, t3
  xori a1, a1, 1                    // continue while i <= t
  VX_PRED a1, s1
  bnez a1, 2b
  csrr a4, CSR_ACTIVE_THREADS
  sw a4, 8(s11)                     // the then-mask again after the loop
  j 3f
1: slli a2, t0, 1
3: VX_JOIN s0
  csrr a3, CSR_ACTIVE_THREADS
  sw a2, 0(s11)
  sw a3, 4(s11)
  j finish
