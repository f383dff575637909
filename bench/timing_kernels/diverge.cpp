// Data-dependent control flow through split/join: each element takes one of two arms and a
// lane-dependent number of loop iterations (pred), 4096 elements.
#include "common.h"

static constexpr uint32_t N = 4096;
static uint32_t out[N];

static void work(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t x = mix(i);
  volatile uint32_t v = x;
  const int odd = (int)(x & 1);
  int sp = vx_split(odd);
  if (odd) {
    v = v * 3 + 1;
  } else {
    v = v >> 1;
  }
  vx_join(sp);
  // Lane-dependent trip count 0..7 (pred keeps the loop branch uniform).
  const uint32_t full = (uint32_t)vx_active_threads();
  volatile uint32_t it = 0;
  const uint32_t trips = (x >> 8) & 7;
  for (;;) {
    const int more = it < trips;
    vx_pred(more, (int)full);
    if (!more) break;
    v = v ^ (v << 3);
    it = it + 1;
  }
  out[i] = v;
}

static uint32_t expect(uint32_t i) {
  const uint32_t x = mix(i);
  uint32_t v = (x & 1) ? x * 3 + 1 : x >> 1;
  for (uint32_t k = 0; k < ((x >> 8) & 7); ++k) v = v ^ (v << 3);
  return v;
}

int main() {
  spawn_1d(N, block_for_core(), work, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  int bad = 0;
  for (uint32_t i = 0; i < N; i += 13) bad += out[i] != expect(i);
  return bad;
}
