// Block sums of 8192 integers: tree reduction in local memory with a barrier per level
// (blocks of all the core's threads, so several warps meet at each barrier).
#include "common.h"

static constexpr uint32_t N = 8192;
static uint32_t in[N];
static uint32_t sums[N];

static void init(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  in[i] = mix(i) & 0xffff;
}
static void reduce(void*) {
  const uint32_t t = threadIdx.x, n = blockDim.x;
  volatile uint32_t* s = (volatile uint32_t*)__local_mem(n * sizeof(uint32_t));
  s[t] = in[blockIdx.x * n + t];
  __syncthreads();
  for (uint32_t half = n / 2; half > 0; half /= 2) {
    // Lanes at or above `half` add 0 (a mask, not a divergent branch).
    const uint32_t other = (0u - (uint32_t)(t < half)) & s[(t + half) & (n - 1)];
    __syncthreads();
    s[t] = s[t] + other;
    __syncthreads();
  }
  const uint32_t total = s[0];
  __syncthreads();  // the next CTA in this slot must not overwrite s[0] before everyone read it
  sums[blockIdx.x] = total;  // every lane stores the same value (no divergent branch)
}

int main() {
  const uint32_t bs = block_for_core();
  spawn_1d(N, bs, init, nullptr);
  sync_cores();
  spawn_1d(N, bs, reduce, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  int bad = 0;
  for (uint32_t b = 0; b < N / bs; b += 3) {
    uint32_t s = 0;
    for (uint32_t i = 0; i < bs; ++i) s += in[b * bs + i];
    bad += s != sums[b];
  }
  return bad;
}
