#ifndef SGEMM_TCU_COMMON_H
#define SGEMM_TCU_COMMON_H

#include <stdint.h>

// C (M x N, fp32) = A (M x K, fp16) * B (K x N, fp16), row-major, on the tensor unit. The host
// pads M and N to multiples of 16 and K to a multiple of 32 (the largest tiles, at 32 threads a
// warp), so one kernel runs on any warp width.
typedef struct {
  uint32_t M;
  uint32_t N;
  uint32_t K;
  uint64_t A_addr;
  uint64_t B_addr;
  uint64_t C_addr;
} kernel_arg_t;

#endif
