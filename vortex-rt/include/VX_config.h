// Vortex 2.x machine constants used by the kernel runtime and by host programs.
//
// Values are the RV32 defaults of the Vortex 2.x configuration (docs: vortex-isa.md §3.1).
// Macro names follow Vortex's generated VX_config.h so kernel sources move between trees; it
// defines no other names (tests/compat checks that), runtime-only constants live in
// vortex-rt/src/vx_runtime.h.
// Safe to include from C, C++ and assembly.
#ifndef VX_CONFIG_H
#define VX_CONFIG_H

#ifndef XLEN
#define XLEN 32
#endif

// The default machine (Vortex's default build: 1 core, 4 warps of 4 threads); the simulator's
// default configuration and a design's default Vortex machine are these.
#ifndef NUM_CORES
#define NUM_CORES 1
#endif
#ifndef NUM_WARPS
#define NUM_WARPS 4
#endif
#ifndef NUM_THREADS
#define NUM_THREADS 4
#endif

// Memory map.
#define IO_BASE_ADDR        0x00000040
#define IO_COUT_ADDR        IO_BASE_ADDR
#define IO_COUT_SIZE        64
#define IO_MPM_ADDR         (IO_COUT_ADDR + IO_COUT_SIZE)
#define IO_END_ADDR         0x00010000
#define USER_BASE_ADDR      IO_END_ADDR

#define STARTUP_ADDR        0x80000000
#define STACK_BASE_ADDR     0xFFFF0000
#define STACK_LOG2_SIZE     13

#define LMEM_BASE_ADDR      STACK_BASE_ADDR
#define LMEM_LOG_SIZE       14

#define MEM_BLOCK_SIZE      64

#endif  // VX_CONFIG_H
