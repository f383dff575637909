// Vortex 2.x CSR and DCR numbers (docs: vortex-isa.md §2). Names follow Vortex's generated
// VX_types.h so that kernels and host programs build against either tree unchanged.
// Safe to include from C, C++ and assembly.
#ifndef VX_TYPES_H
#define VX_TYPES_H

// ---- Device configuration registers (written by the host before a launch) ----
#define VX_DCR_BASE_STATE_BEGIN     0x001
#define VX_DCR_BASE_STARTUP_ADDR0   0x001
#define VX_DCR_BASE_STARTUP_ADDR1   0x002
#define VX_DCR_BASE_STARTUP_ARG0    0x003
#define VX_DCR_BASE_STARTUP_ARG1    0x004
#define VX_DCR_BASE_MPM_CLASS       0x005
#define VX_DCR_BASE_STATE_END       0x006

#define VX_DCR_MPM_CLASS_NONE       0
#define VX_DCR_MPM_CLASS_CORE       1
#define VX_DCR_MPM_CLASS_MEM        2

// ---- Floating-point CSRs ----
#define VX_CSR_FFLAGS               0x001
#define VX_CSR_FRM                  0x002
#define VX_CSR_FCSR                 0x003

// ---- Machine CSRs (read as zero on Vortex) ----
#define VX_CSR_SATP                 0x180
#define VX_CSR_MSTATUS              0x300
#define VX_CSR_MISA                 0x301
#define VX_CSR_MEDELEG              0x302
#define VX_CSR_MIDELEG              0x303
#define VX_CSR_MIE                  0x304
#define VX_CSR_MTVEC                0x305
#define VX_CSR_MSCRATCH             0x340
#define VX_CSR_MEPC                 0x341
#define VX_CSR_MCAUSE               0x342
#define VX_CSR_MNSTATUS             0x744
#define VX_CSR_PMPCFG0              0x3A0
#define VX_CSR_PMPADDR0             0x3B0

#define VX_CSR_MVENDORID            0xF11
#define VX_CSR_MARCHID              0xF12
#define VX_CSR_MIMPID               0xF13
#define VX_CSR_MHARTID              0xF14

// ---- Performance monitoring (64-bit counters, high halves at +0x80) ----
#define VX_CSR_MCYCLE               0xB00
#define VX_CSR_MCYCLE_H             0xB80
#define VX_CSR_MPM_RESERVED         0xB01
#define VX_CSR_MPM_RESERVED_H       0xB81
#define VX_CSR_MINSTRET             0xB02
#define VX_CSR_MINSTRET_H           0xB82
#define VX_CSR_MPM_BASE             0xB00
#define VX_CSR_MPM_BASE_H           0xB80
#define VX_CSR_MPM_USER             0xB03
#define VX_CSR_MPM_USER_H           0xB83

// ---- Vortex thread/warp/core identification ----
#define VX_CSR_THREAD_ID            0xCC0
#define VX_CSR_WARP_ID              0xCC1
#define VX_CSR_CORE_ID              0xCC2
#define VX_CSR_ACTIVE_WARPS         0xCC3
#define VX_CSR_ACTIVE_THREADS       0xCC4

#define VX_CSR_NUM_THREADS          0xFC0
#define VX_CSR_NUM_WARPS            0xFC1
#define VX_CSR_NUM_CORES            0xFC2
#define VX_CSR_LOCAL_MEM_BASE       0xFC3

#endif  // VX_TYPES_H
