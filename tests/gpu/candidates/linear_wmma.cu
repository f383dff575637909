// Linear on tensor cores (bf16 or fp16 storage, fp32 accumulation): WMMA 16x16x16 fragments.
// A 128-thread block (4 warps in a 2x2 arrangement) computes a 64x64 output tile, each warp a
// 32x32 quarter as 2x2 fragments; K is staged through shared memory 32 at a time with zero
// fill at the edges, and the accumulators go through shared memory for a bounds-checked
// epilogue (bias, activation, one rounding). fp32/tf32 problems are declined.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "vxsynth_candidate.h"

namespace {

using namespace nvcuda;

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 128;
constexpr int kPad = 8;  // keeps each shared row 32-byte aligned and staggers the banks
constexpr int kLd = kBK + kPad;
constexpr int kCLd = kBN + 4;

__device__ __forceinline__ float load_f32(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ float load_f32(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ void store_f32(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store_f32(__half* p, float v) { *p = __float2half_rn(v); }
template <typename T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ __nv_bfloat16 zero<__nv_bfloat16>() { return __float2bfloat16_rn(0.f); }
template <> __device__ __forceinline__ __half zero<__half>() { return __float2half_rn(0.f); }

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
__global__ __launch_bounds__(kThreads) void linear_wmma(const T* __restrict__ x, const T* __restrict__ w,
                                                        const T* __restrict__ bias, T* __restrict__ y,
                                                        long long M, long long N, long long K, int act) {
  __shared__ __align__(32) T a_tile[kBM][kLd];  // [m][k]: row-major A
  __shared__ __align__(32) T b_tile[kBN][kLd];  // [n][k]: B = W^T read column-major
  __shared__ __align__(32) float c_tile[kBM][kCLd];
  const int warp = threadIdx.x / 32;
  const int warp_m = warp / 2, warp_n = warp % 2;
  const long long m0 = static_cast<long long>(blockIdx.y) * kBM;
  const long long n0 = static_cast<long long>(blockIdx.x) * kBN;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.f);
  for (long long k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int l = 0; l < (kBM * kBK) / kThreads; ++l) {
      const int idx = threadIdx.x + l * kThreads;
      const int row = idx / kBK, kk = idx % kBK;
      const long long gk = k0 + kk, gm = m0 + row, gn = n0 + row;
      a_tile[row][kk] = (gm < M && gk < K) ? x[gm * K + gk] : zero<T>();
      b_tile[row][kk] = (gn < N && gk < K) ? w[gn * K + gk] : zero<T>();
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a_frag[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b_frag[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a_frag[i], &a_tile[warp_m * 32 + i * 16][kk], kLd);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b_frag[j], &b_tile[warp_n * 32 + j * 16][kk], kLd);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&c_tile[warp_m * 32 + i * 16][warp_n * 32 + j * 16], acc[i][j], kCLd,
                              wmma::mem_row_major);
  __syncthreads();
  for (int idx = threadIdx.x; idx < kBM * kBN; idx += kThreads) {
    const int row = idx / kBN, col = idx % kBN;
    const long long m = m0 + row, n = n0 + col;
    if (m >= M || n >= N) continue;
    float v = c_tile[row][col];
    if (bias) v += load_f32(bias + n);
    store_f32(y + m * N + n, activate(act, v));
  }
}

template <typename T>
int launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t stream) {
  const long long grid_y = (p->m + kBM - 1) / kBM;
  if (grid_y > 65535) return VXSYNTH_LAUNCH_UNSUPPORTED;
  const dim3 grid(static_cast<unsigned>((p->n + kBN - 1) / kBN), static_cast<unsigned>(grid_y));
  linear_wmma<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(b->a), static_cast<const T*>(b->b),
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
    case VXSYNTH_DTYPE_BF16: return launch<__nv_bfloat16>(p, b, stream);
    case VXSYNTH_DTYPE_FP16: return launch<__half>(p, b, stream);
    default: return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
}
