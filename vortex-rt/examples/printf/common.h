#ifndef PRINTF_COMMON_H
#define PRINTF_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t num_points;
  uint64_t src_addr;
  uint64_t dst_addr;
} kernel_arg_t;

#endif
