// FP latency-bound loop: dependent divides, square roots and FMAs per element, 2048 elements.
#include "common.h"

static constexpr uint32_t N = 2048;
static float out[N];

static void work(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 1.0f + (float)(mix(i) & 255) / 64.0f;
  for (int k = 0; k < 8; ++k) {
    x = __builtin_sqrtf(x * x + 2.0f) / (1.0f + x * 0.25f) + 0.5f;
  }
  out[i] = x;
}

int main() {
  spawn_1d(N, block_for_core(), work, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  int bad = 0;
  for (uint32_t i = 0; i < N; i += 17) {
    float x = 1.0f + (float)(mix(i) & 255) / 64.0f;
    for (int k = 0; k < 8; ++k) x = __builtin_sqrtf(x * x + 2.0f) / (1.0f + x * 0.25f) + 0.5f;
    bad += x != out[i];
  }
  return bad;
}
