// Batched matmul, shared-memory tiled: one 64x64 output tile of one batch entry per block
// (blockIdx.z = batch index), K staged 16 at a time, 4x4 register tile per thread. Handles
// broadcast batch dimensions (per-operand batch strides), transposed A or B, and any size.
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

struct BatchLayout {
  int rank;
  long long dims[VXSYNTH_MAX_BATCH_RANK];
  long long a_stride[VXSYNTH_MAX_BATCH_RANK];
  long long b_stride[VXSYNTH_MAX_BATCH_RANK];
};

template <typename T>
__global__ __launch_bounds__(kThreads) void matmul_tiled(const T* __restrict__ a, const T* __restrict__ b,
                                                         T* __restrict__ c, long long M, long long N, long long K,
                                                         int trans_a, int trans_b, BatchLayout batch) {
  __shared__ float a_tile[kBK][kBM + 1];
  __shared__ float b_tile[kBK][kBN + 1];
  const long long z = blockIdx.z;
  long long off_a = 0, off_b = 0, rest = z;
  for (int d = batch.rank - 1; d >= 0; --d) {
    const long long i = rest % batch.dims[d];
    rest /= batch.dims[d];
    off_a += i * batch.a_stride[d];
    off_b += i * batch.b_stride[d];
  }
  a += off_a;
  b += off_b;
  c += z * M * N;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const long long m0 = static_cast<long long>(blockIdx.y) * kBM;
  const long long n0 = static_cast<long long>(blockIdx.x) * kBN;
  float acc[kTM][kTN] = {};
  for (long long k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int l = 0; l < (kBM * kBK) / kThreads; ++l) {
      const int idx = threadIdx.x + l * kThreads;
      // Walk the contiguous dimension of each operand with consecutive threads (coalescing).
      int row, kk;
      if (trans_a) { kk = idx / kBM; row = idx % kBM; } else { row = idx / kBK; kk = idx % kBK; }
      long long gm = m0 + row, gk = k0 + kk;
      a_tile[kk][row] = (gm < M && gk < K) ? load_f32(a + (trans_a ? gk * M + gm : gm * K + gk)) : 0.f;
      int col;
      if (trans_b) { col = idx / kBK; kk = idx % kBK; } else { kk = idx / kBN; col = idx % kBN; }
      const long long gn = n0 + col;
      gk = k0 + kk;
      b_tile[kk][col] = (gn < N && gk < K) ? load_f32(b + (trans_b ? gn * K + gk : gk * N + gn)) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float av[kTM], bv[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) av[i] = a_tile[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < kTN; ++j) bv[j] = b_tile[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
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
      if (n < N) store_f32(c + m * N + n, acc[i][j]);
    }
  }
}

template <typename T>
int launch(const vxsynth_problem* p, const vxsynth_buffers* bufs, cudaStream_t stream) {
  const long long grid_y = (p->m + kBM - 1) / kBM;
  if (grid_y > 65535 || p->batch_count > 65535 || p->batch_rank > VXSYNTH_MAX_BATCH_RANK) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  BatchLayout batch{};
  batch.rank = p->batch_rank;
  for (int d = 0; d < p->batch_rank; ++d) {
    batch.dims[d] = p->batch[d];
    batch.a_stride[d] = p->a_batch_stride[d];
    batch.b_stride[d] = p->b_batch_stride[d];
  }
  const dim3 grid(static_cast<unsigned>((p->n + kBN - 1) / kBN), static_cast<unsigned>(grid_y),
                  static_cast<unsigned>(p->batch_count));
  matmul_tiled<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(bufs->a), static_cast<const T*>(bufs->b),
                                                 static_cast<T*>(bufs->out), p->m, p->n, p->k, p->transpose_a,
                                                 p->transpose_b, batch);
  return cudaPeekAtLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 2;
}

}  // namespace

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  if (p->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION || p->op_kind != VXSYNTH_OP_MATMUL) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  switch (p->dtype) {
    case VXSYNTH_DTYPE_FP32: return launch<float>(p, b, stream);
    case VXSYNTH_DTYPE_BF16: return launch<__nv_bfloat16>(p, b, stream);
    case VXSYNTH_DTYPE_FP16: return launch<__half>(p, b, stream);
    default: return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
}
