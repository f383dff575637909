// Histogram of 8192 values into 64 bins with amoadd (contended atomics).
#include "common.h"

static constexpr uint32_t N = 8192;
static constexpr uint32_t BINS = 64;
static uint32_t hist[BINS];

static void count(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  __atomic_fetch_add(&hist[mix(i) & (BINS - 1)], 1u, __ATOMIC_RELAXED);
}

int main() {
  spawn_1d(N, block_for_core(), count, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  uint32_t total = 0;
  for (uint32_t b = 0; b < BINS; ++b) total += hist[b];
  return total != N;
}
