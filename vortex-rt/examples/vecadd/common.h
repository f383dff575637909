#ifndef VECADD_COMMON_H
#define VECADD_COMMON_H

#include <stdint.h>

#ifndef TYPE
#define TYPE float
#endif

// Shared by host and kernel: addresses are 64-bit so the layout is the same on both.
typedef struct {
  uint32_t num_points;
  uint64_t src0_addr;
  uint64_t src1_addr;
  uint64_t dst_addr;
} kernel_arg_t;

#endif
