// Assembler helpers shared by the runtime's .S files (private to vortex-rt).
#ifndef VX_ASM_H
#define VX_ASM_H

#include <VX_config.h>
#include <VX_types.h>

#include "vx_runtime.h"

// Vortex warp-control instructions (vortex-isa.md §1.2).
.macro VX_TMC mask
  .insn r 0x0B, 0, 0, x0, \mask, x0
.endm
.macro VX_WSPAWN count, pc
  .insn r 0x0B, 1, 0, x0, \count, \pc
.endm
.macro VX_SPLIT rd, pred
  .insn r 0x0B, 2, 0, \rd, \pred, x0
.endm
.macro VX_JOIN sp
  .insn r 0x0B, 3, 0, x0, \sp, x0
.endm
.macro VX_BAR id, count
  .insn r 0x0B, 4, 0, x0, \id, \count
.endm

// Per-hardware-thread registers of the Vortex memory map, for every active lane:
//   gp = __global_pointer$, sp = STACK_BASE_ADDR - (hartid << STACK_LOG2_SIZE),
//   tp = __vx_tls_base + hartid * __vx_tls_stride.
// Clobbers t0, t1.
.macro VX_SET_HART_REGS
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  csrr t0, VX_CSR_MHARTID
  slli t1, t0, STACK_LOG2_SIZE
  li sp, STACK_BASE_ADDR
  sub sp, sp, t1
  lui t1, %hi(__vx_tls_stride)
  addi t1, t1, %lo(__vx_tls_stride)
  mul t1, t0, t1
  la tp, __vx_tls_base
  add tp, tp, t1
.endm

#endif  // VX_ASM_H
