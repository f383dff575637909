// Standalone check of vx_spawn_threads' index mapping (like Vortex's `cta` regression test):
// 3-D grids of tasks and of CTAs with odd extents. Every thread records which (blockIdx,
// threadIdx) it ran as; CTA threads also pass values through their __local_mem slice across
// __syncthreads, which fails if slots overlap or the barrier lets a warp run ahead. Core 0
// checks everything once every core is done; the exit code is the number of failed checks.
#include <vx_print.h>
#include <vx_spawn.h>

static constexpr uint32_t kMaxThreads = 4096;
static uint32_t seen[kMaxThreads];      // per global thread: encoded position + 1
static uint32_t neighbour[kMaxThreads]; // per global thread: what it read from local memory

struct Launch {
  uint32_t grid[3];
  uint32_t block[3];
};

static inline uint32_t encode(uint32_t block, uint32_t thread) { return (block << 12) | thread; }

static void record(void* arg) {
  (void)arg;
  const uint32_t block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const uint32_t size = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const uint32_t global = block * size + thread;
  seen[global] = encode(block, thread) + 1;
  // Local memory: write my id, wait for the CTA, read the next thread's id, wait again so
  // nobody overwrites the slice (next CTA in this slot) before everyone has read it.
  volatile uint32_t* slice = reinterpret_cast<volatile uint32_t*>(__local_mem(size * sizeof(uint32_t)));
  slice[thread] = encode(block, thread);
  __syncthreads();
  neighbour[global] = slice[(thread + 1) % size];  // a remainder, not a (divergent) branch
  __syncthreads();
}

static int check(const Launch& launch, const char* name) {
  const uint32_t blocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
  const uint32_t size = launch.block[0] * launch.block[1] * launch.block[2];
  int errors = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t t = 0; t < size; ++t) {
      const uint32_t g = b * size + t;
      if (seen[g] != encode(b, t) + 1) ++errors;
      const uint32_t next = t + 1 == size ? 0 : t + 1;
      if (size > 1 && neighbour[g] != encode(b, next)) ++errors;
      seen[g] = 0;
      neighbour[g] = 0;
    }
  }
  if (errors != 0) vx_printf("FAILED: %s: %d wrong entries\n", name, errors);
  return errors != 0;
}

int main() {
  const uint32_t per_core = (uint32_t)(vx_num_warps() * vx_num_threads());
  const uint32_t cores = (uint32_t)vx_num_cores();
  // Blocks that fit a core: 3x2x2 (12 threads) or smaller, and one of exactly two warps.
  const uint32_t bx = per_core >= 12 ? 3 : per_core >= 2 ? 2 : 1;
  const uint32_t by = per_core >= 12 ? 2 : 1;
  const uint32_t bz = per_core >= 12 ? 2 : 1;
  const uint32_t two_warps = (uint32_t)vx_num_threads() * (vx_num_warps() >= 2 ? 2 : 1);
  const Launch launches[] = {
      {{5, 3, 2}, {1, 1, 1}},           // tasks, 3-D grid
      {{37, 1, 1}, {1, 1, 1}},          // tasks, odd 1-D grid
      {{3, 2, 2}, {bx, by, bz}},        // CTAs, 3-D grid and block
      {{7, 3, 1}, {two_warps, 1, 1}},   // CTAs spanning warps exactly
      {{3, 1, 1}, {per_core, 1, 1}},    // one CTA fills a core
  };
  const char* names[] = {"tasks 5x3x2", "tasks 37", "ctas 3x2x2 of 3x2x2", "ctas 7x3 of two warps",
                         "ctas 3 of a whole core"};
  int failed = 0;
  for (uint32_t i = 0; i < sizeof(launches) / sizeof(launches[0]); ++i) {
    const Launch& l = launches[i];
    const uint32_t dims = l.grid[2] > 1 || l.block[2] > 1 ? 3 : l.grid[1] > 1 || l.block[1] > 1 ? 2 : 1;
    if (vx_spawn_threads(dims, l.grid, l.block, record, nullptr) != 0) return 100 + (int)i;
    if (cores > 1) vx_barrier(0x80000000, (int)cores);
    if (vx_core_id() == 0) failed += check(l, names[i]);
    if (cores > 1) vx_barrier(0x80000000, (int)cores);  // the next launch starts from clean arrays
  }
  if (vx_core_id() != 0) return 0;
  vx_printf("cta: %d of 5 launches wrong\n", failed);
  return failed;
}
