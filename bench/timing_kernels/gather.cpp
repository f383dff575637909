// Uncoalesced reads: every lane loads from a scattered index into a 64 KiB table (cache
// misses, many lines per warp access), 8192 lookups.
#include "common.h"

static constexpr uint32_t T = 16384;
static constexpr uint32_t N = 8192;
static uint32_t table[T];
static uint32_t out[N];

static void init(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  table[i] = mix(i ^ 0x5a5a);
  table[i + T / 2] = mix((i + T / 2) ^ 0x5a5a);
}
static void gather(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t j = mix(i) & (T - 1);
  out[i] = table[j] + table[(j * 7 + 3) & (T - 1)];
}

int main() {
  const uint32_t bs = block_for_core();
  spawn_1d(T / 2, bs, init, nullptr);
  sync_cores();
  spawn_1d(N, bs, gather, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  int bad = 0;
  for (uint32_t i = 0; i < N; i += 11) {
    const uint32_t j = mix(i) & (T - 1);
    bad += out[i] != mix(j ^ 0x5a5a) + mix(((j * 7 + 3) & (T - 1)) ^ 0x5a5a);
  }
  return bad;
}
