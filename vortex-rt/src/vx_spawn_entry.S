// Warp entry points of vx_spawn_threads (vx_spawn.c). The job descriptor reaches every
// lane through MSCRATCH, which is per core.
#include "vx_asm.h"

  .text
  // Target of vx_wspawn: a spawned warp starts with lane 0 active and registers that
  // nobody set, so every lane sets its own gp/sp/tp before running C code; the warp
  // retires when its share of the grid is done.
  .global __vx_spawn_entry
  .type __vx_spawn_entry, @function
__vx_spawn_entry:
  li a0, -1
  VX_TMC a0
  VX_SET_HART_REGS
  csrr a0, VX_CSR_MSCRATCH
  call __vx_spawn_warp
  VX_TMC zero
  .size __vx_spawn_entry, .-__vx_spawn_entry

  // Warp 0's share, called from vx_spawn_threads on lane 0 with a0 = job. The other
  // lanes get stacks at the same depth below their own stack tops as lane 0's current
  // sp, so lane 0 keeps its frames and every lane runs on its own stack. The depth goes
  // through job->stack_depth (offset 0). Back on lane 0 alone afterwards.
  .global __vx_spawn_run_self
  .type __vx_spawn_run_self, @function
__vx_spawn_run_self:
  addi sp, sp, -16
  sw ra, 12(sp)
  csrr t0, VX_CSR_MHARTID
  slli t0, t0, STACK_LOG2_SIZE
  li t1, STACK_BASE_ADDR
  sub t1, t1, t0
  sub t1, t1, sp
  sw t1, 0(a0)
  li t0, -1
  VX_TMC t0
  VX_SET_HART_REGS
  csrr a0, VX_CSR_MSCRATCH
  lw t1, 0(a0)
  sub sp, sp, t1
  call __vx_spawn_warp
  li t0, 1
  VX_TMC t0
  lw ra, 12(sp)
  addi sp, sp, 16
  ret
  .size __vx_spawn_run_self, .-__vx_spawn_run_self

  // vx_serial(callback, arg): callback(arg) on each active lane in turn. Per lane i the
  // warp splits on (thread id == i); the lane that matches calls, the others skip to the
  // join, which runs the deferred subset and reconverges.
  .global vx_serial
  .type vx_serial, @function
vx_serial:
  addi sp, sp, -32
  sw ra, 28(sp)
  sw s0, 24(sp)
  sw s1, 20(sp)
  sw s2, 16(sp)
  sw s3, 12(sp)
  sw s4, 8(sp)
  mv s0, a0
  mv s1, a1
  csrr s2, VX_CSR_NUM_THREADS
  li s3, 0
1:
  csrr t0, VX_CSR_THREAD_ID
  sub t0, t0, s3
  seqz t0, t0
  VX_SPLIT s4, t0
  beqz t0, 2f
  mv a0, s1
  jalr s0
2:
  VX_JOIN s4
  addi s3, s3, 1
  blt s3, s2, 1b
  lw s4, 8(sp)
  lw s3, 12(sp)
  lw s2, 16(sp)
  lw s1, 20(sp)
  lw s0, 24(sp)
  lw ra, 28(sp)
  addi sp, sp, 32
  ret
  .size vx_serial, .-vx_serial
