// Shared by the timing-model calibration kernels: standalone (no host arguments: they make
// their own inputs), run on every core by main(), self-checking (exit code = failed checks),
// and sized so that SimX runs each in seconds.
#pragma once
#include <stdint.h>
#include <vx_intrinsics.h>
#include <vx_print.h>
#include <vx_spawn.h>

// All cores' threads: a 1-D grid of `total` threads in blocks of `block`.
static inline int spawn_1d(uint32_t total, uint32_t block, vx_kernel_func_cb fn, const void* arg) {
  const uint32_t grid = (total + block - 1) / block;
  return vx_spawn_threads(1, &grid, &block, fn, arg);
}

static inline uint32_t block_for_core() { return (uint32_t)(vx_num_warps() * vx_num_threads()); }

// Deterministic pseudo-random input.
static inline uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Every core's share of the previous launch is done (a global barrier across cores).
static inline void sync_cores() {
  if (vx_num_cores() > 1) vx_barrier((int)0x80000000, vx_num_cores());
}
