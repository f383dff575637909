// Linear, shared-memory tiled: a 64x64 output tile per 256-thread block, K staged through
// shared memory 16 at a time, each thread accumulating a 4x4 register tile (rows ty + 16 i,
// columns tx + 16 j, so shared reads are conflict-free and stores coalesced). Zero-filled
// tile edges make any M, N, K work. fp32/tf32 (computed in fp32), bf16 and fp16 storage.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "vxsynth_candidate.h"

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 16, kThreads = 256, kTM = 4, kTN = 4;

__device__ __forceinline__ float load_f32(const float* p) { return *p; }
__device__ __forceinline__ float load_f32(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ float load_f32(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ void store_f32(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_f32(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store_f32(__half* p, float v) { *p = __float2half_rn(v); }

__device__ float activate(int act, float v) {
  switch (act) {
    case VXSYNTH_ACT_RELU: return v > 0.f ? v : 0.f;
    case VXSYNTH_ACT_GELU: return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    case VXSYNTH_ACT_GELU_TANH:
      return 0.5f * v * (1.f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
    case VXSYNTH_ACT_SILU: return v / (1.f + expf(-v));
    default: return v;
  }
}

template <typename T>
__global__ __launch_bounds__(kThreads) void linear_tiled(const T* __restrict__ x, const T* __restrict__ w,
                                                         const T* __restrict__ bias, T* __restrict__ y,
                                                         long long M, long long N, long long K, int act) {
  __shared__ float a_tile[kBK][kBM + 1];
  __shared__ float b_tile[kBK][kBN + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const long long m0 = static_cast<long long>(blockIdx.y) * kBM;
  const long long n0 = static_cast<long long>(blockIdx.x) * kBN;
  float acc[kTM][kTN] = {};
  for (long long k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int l = 0; l < (kBM * kBK) / kThreads; ++l) {
      const int idx = threadIdx.x + l * kThreads;
      const int row = idx / kBK, kk = idx % kBK;
      const long long gk = k0 + kk;
      const long long gm = m0 + row, gn = n0 + row;
      a_tile[kk][row] = (gm < M && gk < K) ? load_f32(x + gm * K + gk) : 0.f;
      b_tile[kk][row] = (gn < N && gk < K) ? load_f32(w + gn * K + gk) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a[kTM], b[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) a[i] = a_tile[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < kTN; ++j) b[j] = b_tile[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const long long m = m0 + ty + 16 * i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const long long n = n0 + tx + 16 * j;
      if (n >= N) continue;
      float v = acc[i][j];
      if (bias) v += load_f32(bias + n);
      store_f32(y + m * N + n, activate(act, v));
    }
  }
}

template <typename T>
int launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t stream) {
  const long long grid_y = (p->m + kBM - 1) / kBM;
  if (grid_y > 65535) return VXSYNTH_LAUNCH_UNSUPPORTED;
  const dim3 grid(static_cast<unsigned>((p->n + kBN - 1) / kBN), static_cast<unsigned>(grid_y));
  linear_tiled<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(b->a), static_cast<const T*>(b->b),
                                                 p->has_bias ? static_cast<const T*>(b->bias) : nullptr,
                                                 static_cast<T*>(b->out), p->m, p->n, p->k, p->activation);
  return cudaPeekAtLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 2;
}

}  // namespace

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  if (p->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION || p->op_kind != VXSYNTH_OP_LINEAR) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  switch (p->dtype) {
    case VXSYNTH_DTYPE_FP32: return launch<float>(p, b, stream);
    case VXSYNTH_DTYPE_BF16: return launch<__nv_bfloat16>(p, b, stream);
    case VXSYNTH_DTYPE_FP16: return launch<__half>(p, b, stream);
    default: return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
}
