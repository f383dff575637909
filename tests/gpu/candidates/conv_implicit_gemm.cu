// conv1d / conv2d as an implicit GEMM: per group, M = n_img * p * q output positions,
// N = k_out / groups output channels, K = (c_in / groups) * r * s. Input patches are gathered
// (im2col on the fly, zero padding) into a shared 64x16 tile, weights into a 16x64 tile; each
// of 256 threads keeps a 4x4 register tile. Channels first or channels last, any stride,
// padding, dilation and group count; bias and activation in the epilogue.
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

struct ConvShape {
  long long n_img, c_in, h, w, k_out, r, s, p, q;
  long long stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  int channels_last, act;
};

template <typename T>
__global__ __launch_bounds__(kThreads) void conv_igemm(const T* __restrict__ in, const T* __restrict__ wt,
                                                       const T* __restrict__ bias, T* __restrict__ out,
                                                       ConvShape cs) {
  __shared__ float a_tile[kBK][kBM + 1];
  __shared__ float b_tile[kBK][kBN + 1];
  const long long cg = cs.c_in / cs.groups, kg = cs.k_out / cs.groups;
  const long long M = cs.n_img * cs.p * cs.q, N = kg, K = cg * cs.r * cs.s;
  const long long g = blockIdx.z;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const long long m0 = static_cast<long long>(blockIdx.y) * kBM;
  const long long n0 = static_cast<long long>(blockIdx.x) * kBN;
  float acc[kTM][kTN] = {};
  for (long long k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int l = 0; l < (kBM * kBK) / kThreads; ++l) {
      const int idx = threadIdx.x + l * kThreads;
      const int row = idx % kBM, kk = idx / kBM;  // consecutive threads: consecutive output positions
      const long long gm = m0 + row, gk = k0 + kk;
      float v = 0.f;
      if (gm < M && gk < K) {
        const long long x = gm % cs.q, y = (gm / cs.q) % cs.p, img = gm / (cs.q * cs.p);
        long long c, rr, ss;
        if (cs.channels_last) { c = gk % cg; ss = (gk / cg) % cs.s; rr = gk / (cg * cs.s); }
        else { ss = gk % cs.s; rr = (gk / cs.s) % cs.r; c = gk / (cs.s * cs.r); }
        const long long iy = y * cs.stride_h - cs.pad_h + rr * cs.dil_h;
        const long long ix = x * cs.stride_w - cs.pad_w + ss * cs.dil_w;
        if (iy >= 0 && iy < cs.h && ix >= 0 && ix < cs.w) {
          const long long ch = g * cg + c;
          const long long off = cs.channels_last ? ((img * cs.h + iy) * cs.w + ix) * cs.c_in + ch
                                                 : ((img * cs.c_in + ch) * cs.h + iy) * cs.w + ix;
          v = load_f32(in + off);
        }
      }
      a_tile[kk][row] = v;
      // Weight row (g*kg + n) holds its K values contiguously in both layouts.
      const int col = idx / kBK, wk = idx % kBK;
      const long long gn = n0 + col, gwk = k0 + wk;
      b_tile[wk][col] = (gn < N && gwk < K) ? load_f32(wt + (g * kg + gn) * K + gwk) : 0.f;
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
    const long long x = m % cs.q, y = (m / cs.q) % cs.p, img = m / (cs.q * cs.p);
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const long long n = n0 + tx + 16 * j;
      if (n >= N) continue;
      const long long ko = g * kg + n;
      float v = acc[i][j];
      if (bias) v += load_f32(bias + ko);
      const long long off = cs.channels_last ? ((img * cs.p + y) * cs.q + x) * cs.k_out + ko
                                             : ((img * cs.k_out + ko) * cs.p + y) * cs.q + x;
      store_f32(out + off, activate(cs.act, v));
    }
  }
}

template <typename T>
int launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t stream) {
  const ConvShape cs{p->n_img, p->c_in, p->h, p->w, p->k_out, p->r, p->s, p->p, p->q,
                     p->stride_h, p->stride_w, p->pad_h, p->pad_w, p->dilation_h, p->dilation_w,
                     p->groups, p->layout == VXSYNTH_LAYOUT_CHANNELS_LAST, p->activation};
  const long long M = p->n_img * p->p * p->q, N = p->k_out / p->groups;
  const long long grid_y = (M + kBM - 1) / kBM;
  if (grid_y > 65535 || p->groups > 65535) return VXSYNTH_LAUNCH_UNSUPPORTED;
  const dim3 grid(static_cast<unsigned>((N + kBN - 1) / kBN), static_cast<unsigned>(grid_y),
                  static_cast<unsigned>(p->groups));
  conv_igemm<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(b->a), static_cast<const T*>(b->b),
                                               p->has_bias ? static_cast<const T*>(b->bias) : nullptr,
                                               static_cast<T*>(b->out), cs);
  return cudaPeekAtLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 2;
}

}  // namespace

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  if (p->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION ||
      (p->op_kind != VXSYNTH_OP_CONV1D && p->op_kind != VXSYNTH_OP_CONV2D)) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  switch (p->dtype) {
    case VXSYNTH_DTYPE_FP32: return launch<float>(p, b, stream);
    case VXSYNTH_DTYPE_BF16: return launch<__nv_bfloat16>(p, b, stream);
    case VXSYNTH_DTYPE_FP16: return launch<__half>(p, b, stream);
    default: return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
}
