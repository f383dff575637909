#ifndef TENSOR_GEMM_COMMON_H
#define TENSOR_GEMM_COMMON_H

#include <stdint.h>

// D (M x N) = C + A (M x K) * B (K x N) on the tensor unit, for every Vortex 2.x format pair.
// A and C/D are row-major. B is row-major for 16- and 8-bit inputs and column-major (K
// contiguous) for 4-bit inputs, whose elements are packed two a byte, low nibble first. M, N
// and K are multiples of the tile shape for the device's warp width (the host pads).
enum tensor_gemm_format {
  kFp16Fp32 = 0,
  kBf16Fp32 = 1,
  kFp16Fp16 = 2,
  kBf16Bf16 = 3,
  kInt8Int32 = 4,
  kUint8Int32 = 5,
  kInt4Int32 = 6,
  kUint4Int32 = 7,
  kNumFormats = 8
};

typedef struct {
  uint32_t format;      // tensor_gemm_format
  uint32_t accumulate;  // 1: D = C + A * B with C read from C_addr; 0: D = A * B
  uint32_t M;
  uint32_t N;
  uint32_t K;
  uint32_t pad;
  uint64_t A_addr;
  uint64_t B_addr;
  uint64_t C_addr;  // C in, D out
} kernel_arg_t;

#endif
