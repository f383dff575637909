#ifndef SGEMM_COMMON_H
#define SGEMM_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

// C (size x size) = A (size x size) * B (size x size), row-major.
typedef struct {
  uint32_t grid_dim[2];
  uint32_t size;
  uint64_t A_addr;
  uint64_t B_addr;
  uint64_t C_addr;
} kernel_arg_t;

#endif
