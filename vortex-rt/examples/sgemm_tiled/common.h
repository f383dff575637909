#ifndef SGEMM_TILED_COMMON_H
#define SGEMM_TILED_COMMON_H

#include <stdint.h>

// C (size x size) = A * B, row-major, computed in tile x tile blocks of threads that stage
// tiles of A and B in local memory (grid = ceil(size / tile) in x and y).
typedef struct {
  uint32_t grid_dim[2];
  uint32_t block_dim[2];
  uint32_t size;
  uint32_t tile_size;
  uint64_t A_addr;
  uint64_t B_addr;
  uint64_t C_addr;
} kernel_arg_t;

#endif
