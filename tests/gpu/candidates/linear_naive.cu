// Linear, naive: one thread per output element, the K loop straight from global memory.
// Weight rows are read with a stride of K across the warp, so loads are poorly coalesced.
// Handles fp32/tf32 (computed in fp32), bf16 and fp16 storage; bias; every activation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "vxsynth_candidate.h"

namespace {

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
__global__ void linear_naive(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ bias,
                             T* __restrict__ y, long long M, long long N, long long K, int act) {
  const long long n = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (n >= N) return;
  for (long long m = blockIdx.y; m < M; m += gridDim.y) {
    float acc = 0.f;
    for (long long k = 0; k < K; ++k) acc = fmaf(load_f32(x + m * K + k), load_f32(w + n * K + k), acc);
    if (bias) acc += load_f32(bias + n);
    store_f32(y + m * N + n, activate(act, acc));
  }
}

template <typename T>
void launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t stream) {
  const dim3 block(128);
  const dim3 grid(static_cast<unsigned>((p->n + 127) / 128),
                  static_cast<unsigned>(p->m < 65535 ? p->m : 65535));
  linear_naive<T><<<grid, block, 0, stream>>>(static_cast<const T*>(b->a), static_cast<const T*>(b->b),
                                              p->has_bias ? static_cast<const T*>(b->bias) : nullptr,
                                              static_cast<T*>(b->out), p->m, p->n, p->k, p->activation);
}

}  // namespace

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  if (p->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION || p->op_kind != VXSYNTH_OP_LINEAR) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  switch (p->dtype) {
    case VXSYNTH_DTYPE_FP32: launch<float>(p, b, stream); break;
    case VXSYNTH_DTYPE_BF16: launch<__nv_bfloat16>(p, b, stream); break;
    case VXSYNTH_DTYPE_FP16: launch<__half>(p, b, stream); break;
    default: return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  return cudaPeekAtLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 2;
}
