#ifndef DOTPRODUCT_COMMON_H
#define DOTPRODUCT_COMMON_H

#include <stdint.h>

// Block reduction: block b of block_size threads sums src0[i] * src1[i] over its grid-stride
// share of the num_points elements into partial[b]; the host adds the partials.
typedef struct {
  uint32_t num_points;
  uint32_t num_blocks;
  uint32_t block_size;  // a power of two
  uint64_t src0_addr;
  uint64_t src1_addr;
  uint64_t partial_addr;
} kernel_arg_t;

#endif
