// Vortex 2.x legacy host API ("vortex.h", vortex-isa.md §4.1) over the embedded simulator.
//
// Names, signatures, constants and meanings are Vortex's, so a regression-style host program
// (common.h + main.cpp + kernel.cpp) builds against this library unchanged. All functions
// return 0 on success and a non-zero value on failure, after printing the reason to stderr.
//
// Simulator shape for vx_dev_open: the environment variables VXSIM_CORES, VXSIM_WARPS,
// VXSIM_THREADS (defaults 1, 4, 4 as Vortex), VXSIM_LOCAL_MEM (bytes per core, default
// 16384) and VXSIM_MAX_INSTRS (warp-instruction budget per launch, 0 = none), or
// vxsim_set_device_config() in vortex_vxsim.h. VORTEX_PROFILING=N sets the MPM class as in
// Vortex. docs/vortex-kernels.md has the details, including where this library differs from
// Vortex's (vx_ready_wait reports a failed kernel; Vortex's returns 0).
#ifndef VORTEX_H
#define VORTEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// Vortex's vortex.h includes VX_config.h (IO_MPM_ADDR and the rest of the memory map); the
// VX_CSR_* names the counter queries take are in VX_types.h. Both are in vortex-rt/include:
// `vxsynth sim flags --cflags` gives the include folders.
#include <VX_config.h>
#include <VX_types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void* vx_device_h;
typedef void* vx_buffer_h;

// Device capabilities (vx_dev_caps).
#define VX_CAPS_VERSION           0x0
#define VX_CAPS_NUM_THREADS       0x1
#define VX_CAPS_NUM_WARPS         0x2
#define VX_CAPS_NUM_CORES         0x3
#define VX_CAPS_CACHE_LINE_SIZE   0x4
#define VX_CAPS_GLOBAL_MEM_SIZE   0x5
#define VX_CAPS_LOCAL_MEM_SIZE    0x6
#define VX_CAPS_ISA_FLAGS         0x7
#define VX_CAPS_NUM_MEM_BANKS     0x8
#define VX_CAPS_MEM_BANK_SIZE     0x9

// ISA flags: standard extensions as misa letters, log2(XLEN)-4 in bits 30-31, Vortex
// extensions from bit 32.
#define VX_ISA_STD_A              (1ull << 0)
#define VX_ISA_STD_C              (1ull << 2)
#define VX_ISA_STD_D              (1ull << 3)
#define VX_ISA_STD_E              (1ull << 4)
#define VX_ISA_STD_F              (1ull << 5)
#define VX_ISA_STD_H              (1ull << 7)
#define VX_ISA_STD_I              (1ull << 8)
#define VX_ISA_STD_N              (1ull << 13)
#define VX_ISA_STD_Q              (1ull << 16)
#define VX_ISA_STD_S              (1ull << 18)
#define VX_ISA_STD_V              (1ull << 21)
#define VX_ISA_ARCH(flags)        (1 << (((flags >> 30) & 0x3) + 4))
#define VX_ISA_EXT_ICACHE         (1ull << (32 + 0))
#define VX_ISA_EXT_DCACHE         (1ull << (32 + 1))
#define VX_ISA_EXT_L2CACHE        (1ull << (32 + 2))
#define VX_ISA_EXT_L3CACHE        (1ull << (32 + 3))
#define VX_ISA_EXT_LMEM           (1ull << (32 + 4))
#define VX_ISA_EXT_ZICOND         (1ull << (32 + 5))
#define VX_ISA_EXT_TCU            (1ull << (32 + 6))

// Buffer access flags: what the kernel may do with the buffer.
#define VX_MEM_READ               0x1
#define VX_MEM_WRITE              0x2
#define VX_MEM_READ_WRITE         0x3
#define VX_MEM_PIN_MEMORY         0x4

// vx_ready_wait timeout meaning "wait as long as it takes" (24 hours, in milliseconds).
#define VX_MAX_TIMEOUT            (24 * 60 * 60 * 1000)

// Device.
int vx_dev_open(vx_device_h* hdevice);
int vx_dev_close(vx_device_h hdevice);
int vx_dev_caps(vx_device_h hdevice, uint32_t caps_id, uint64_t* value);

// Device memory.
int vx_mem_alloc(vx_device_h hdevice, uint64_t size, int flags, vx_buffer_h* hbuffer);
int vx_mem_reserve(vx_device_h hdevice, uint64_t address, uint64_t size, int flags, vx_buffer_h* hbuffer);
int vx_mem_free(vx_buffer_h hbuffer);
int vx_mem_access(vx_buffer_h hbuffer, uint64_t offset, uint64_t size, int flags);
int vx_mem_address(vx_buffer_h hbuffer, uint64_t* address);
int vx_mem_info(vx_device_h hdevice, uint64_t* mem_free, uint64_t* mem_used);

// Host <-> device copies.
int vx_copy_to_dev(vx_buffer_h hbuffer, const void* host_ptr, uint64_t dst_offset, uint64_t size);
int vx_copy_from_dev(void* host_ptr, vx_buffer_h hbuffer, uint64_t src_offset, uint64_t size);

// Kernel launch.
int vx_start(vx_device_h hdevice, vx_buffer_h hkernel, vx_buffer_h harguments);
// 0 when the kernel ended with exit code 0. Unlike Vortex's (which returns 0 once the kernel
// stopped, whatever it did), non-zero on a fault (-1, report on stderr), on a non-zero exit
// code (that code) or when it still runs after `timeout` ms. Portable programs read the exit
// code as on Vortex: vx_mpm_query(dev, VX_CSR_MPM_RESERVED, 0, &v), low 32 bits.
int vx_ready_wait(vx_device_h hdevice, uint64_t timeout);

// Device configuration registers and performance counters.
int vx_dcr_read(vx_device_h hdevice, uint32_t addr, uint32_t* value);
int vx_dcr_write(vx_device_h hdevice, uint32_t addr, uint32_t value);
// As Vortex's: slot addr - VX_CSR_MPM_BASE (0..31) of the counter block the kernel's exit path
// stored for core_id (VX_CSR_MCYCLE, VX_CSR_MINSTRET, ...; slot 1 is the exit code).
int vx_mpm_query(vx_device_h hdevice, uint32_t addr, uint32_t core_id, uint64_t* value);

// Upload helpers.
int vx_upload_kernel_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer);
int vx_upload_kernel_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer);
int vx_upload_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer);
int vx_upload_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer);

// Occupancy: local memory available to each group of group_size threads.
int vx_check_occupancy(vx_device_h hdevice, uint32_t group_size, uint32_t* max_localmem);

// Performance report (vx_dev_close prints it too).
int vx_dump_perf(vx_device_h hdevice, FILE* stream);

#ifdef __cplusplus
}
#endif

#endif  // VORTEX_H
