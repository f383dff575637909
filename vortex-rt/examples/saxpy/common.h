#ifndef SAXPY_COMMON_H
#define SAXPY_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t num_points;
  float alpha;
  uint64_t x_addr;
  uint64_t y_addr;  // read and written: y = alpha * x + y
} kernel_arg_t;

#endif
