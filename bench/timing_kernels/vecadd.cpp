// c = a + b over 8192 floats (streaming, coalesced); init and check in parallel.
#include "common.h"

static constexpr uint32_t N = 8192;
static float a[N], b[N], c[N];
static int errors[N];

static void init(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {  // uniform within a warp: N is a multiple of every block size used
    a[i] = (float)(mix(i) & 1023);
    b[i] = (float)(mix(i + N) & 1023);
  }
}
static void add(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) c[i] = a[i] + b[i];
}
static void check(void*) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) errors[i] = c[i] != (float)(mix(i) & 1023) + (float)(mix(i + N) & 1023);
}

int main() {
  const uint32_t bs = block_for_core();
  spawn_1d(N, bs, init, nullptr);
  sync_cores();
  spawn_1d(N, bs, add, nullptr);
  sync_cores();
  spawn_1d(N, bs, check, nullptr);
  sync_cores();
  if (vx_core_id() != 0) return 0;
  int bad = 0;
  for (uint32_t i = 0; i < N; i += 97) bad += errors[i];
  return bad;
}
