// Naive SGEMM C = A * B, n = 32 (every thread one element, inner loop over k in global memory).
#include "common.h"

static constexpr uint32_t N = 32;
static float A[N * N], B[N * N], C[N * N];

static void init(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  A[i] = (float)((mix(i) & 15) - 7);
  B[i] = (float)((mix(i + 7777) & 15) - 7);
}
static void gemm(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t r = i / N, col = i % N;
  float s = 0.0f;
  for (uint32_t k = 0; k < N; ++k) s += A[r * N + k] * B[k * N + col];
  C[i] = s;
}

int main() {
  const uint32_t bs = block_for_core();
  spawn_1d(N * N, bs, init, nullptr);  // N * N is a multiple of every block size used
  sync_cores();
  spawn_1d(N * N, bs, gemm, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  int bad = 0;
  for (uint32_t i = 0; i < N * N; i += 37) {
    const uint32_t r = i / N, col = i % N;
    float s = 0.0f;
    for (uint32_t k = 0; k < N; ++k) s += A[r * N + k] * B[k * N + col];
    bad += s != C[i];
  }
  return bad;
}
