// Vortex 2.x thread spawning (docs: vortex-isa.md §3.5), with the Vortex names:
//   vx_spawn_threads(dimension, grid_dim, block_dim, kernel_func, arg)
// launches a grid of 1-3 dimensions. With block_dim NULL (or a block of one thread) every
// grid point is an independent task; otherwise each block is a CTA whose threads share a
// __local_mem slice and synchronise with __syncthreads().
#ifndef VX_SPAWN_H
#define VX_SPAWN_H

#include <stdint.h>

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef union {
  __extension__ struct {
    uint32_t x;
    uint32_t y;
    uint32_t z;
  };
  uint32_t m[3];
} dim3_t;

// Per-thread position (thread-local: one copy per hardware thread).
extern __thread dim3_t blockIdx;
extern __thread dim3_t threadIdx;
// Launch shape (the same for every thread).
extern dim3_t gridDim;
extern dim3_t blockDim;

// The CTA's slot on its core, and the warps a CTA occupies (both set by vx_spawn_threads).
extern __thread uint32_t __local_group_id;
extern uint32_t __warps_per_group;

typedef void (*vx_kernel_func_cb)(void* arg);
typedef void (*vx_serial_cb)(void* arg);  // Vortex 2.x: a non-const argument

// Runs kernel_func(arg) once per thread of the grid on this core's share of the grid.
// Call it from main() on every core. Returns 0, or -1 when the block has more threads than
// a core (warps x threads), or the dimension is not 1..3.
int vx_spawn_threads(uint32_t dimension, const uint32_t* grid_dim, const uint32_t* block_dim,
                     vx_kernel_func_cb kernel_func, const void* arg);

// Runs callback(arg) on each active lane of the calling warp, one lane after the other.
void vx_serial(vx_serial_cb callback, const void* arg);

// This CTA's slice of the core's local (shared) memory; size is the slice size in bytes.
#define __local_mem(size) \
  ((void*)((uintptr_t)csr_read(VX_CSR_LOCAL_MEM_BASE) + (uintptr_t)__local_group_id * (uintptr_t)(size)))

// Barrier over the warps of this CTA (a no-op when the CTA is a single warp).
#define __syncthreads() vx_barrier((int)__local_group_id, (int)__warps_per_group)

#ifdef __cplusplus
}
#endif

#endif  // VX_SPAWN_H
