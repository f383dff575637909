// Harness test (GPU): a correct linear that also reads one element past the end of the input.
// The value is not used, so the outputs match the vendor operator; only
// `vxsynth gpu run --memcheck` (compute-sanitizer) can catch it.
#include "vxsynth_candidate.h"

__global__ void linear_overread(const float* x, const float* w, float* y, long long M, long long N, long long K) {
  const long long n = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.f;
  for (long long k = 0; k < K; ++k) acc = fmaf(x[m * K + k], w[n * K + k], acc);
  const float past_end = x[M * K];  // the bug: one element past the input
  if (past_end == 12345.678f) acc += 1e-30f;
  y[m * N + n] = acc;
}

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  if (p->op_kind != VXSYNTH_OP_LINEAR || p->dtype != VXSYNTH_DTYPE_FP32 || p->has_bias || p->m > 65535) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  const dim3 grid(static_cast<unsigned>((p->n + 127) / 128), static_cast<unsigned>(p->m));
  linear_overread<<<grid, 128, 0, stream>>>(static_cast<const float*>(b->a), static_cast<const float*>(b->b),
                                            static_cast<float*>(b->out), p->m, p->n, p->k);
  return cudaPeekAtLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 2;
}
