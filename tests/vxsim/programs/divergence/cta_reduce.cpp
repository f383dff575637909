// CTA tree reduction written against Vortex's API names (issue 22): a halving-stride loop with
// vx_split(t < stride)/vx_join and __syncthreads(), then a vx_split(t == 0)-guarded store. GCC
// -O3 unrolls and threads it so that lanes reconverge at a copy of the join and skip the store.
#include <vx_intrinsics.h>
#include <vx_print.h>
#include <vx_spawn.h>

static constexpr int kBlock = 64;
static constexpr int kBlocks = 6;
static int input[kBlock * kBlocks];
static int sums[kBlocks];

static void reduce(void*) {
  int* s = reinterpret_cast<int*>(__local_mem(kBlock * sizeof(int)));
  const int t = (int)threadIdx.x;
  s[t] = input[blockIdx.x * kBlock + t];
  __syncthreads();
#ifdef PLAIN  // as a CUDA programmer writes it: the toolchain inserts split/join
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
#else
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    int sp = vx_split(t < stride);
    if (t < stride) s[t] += s[t + stride];
    vx_join(sp);
    __syncthreads();
  }
  int sp = vx_split(t == 0);
  if (t == 0) sums[blockIdx.x] = s[0];
  vx_join(sp);
#endif
}

int main() {
  for (int i = 0; i < kBlock * kBlocks; ++i) input[i] = (i * 37) % 101 - 40;
  uint32_t grid = kBlocks, block = kBlock;
  if (vx_spawn_threads(1, &grid, &block, reduce, nullptr) != 0) return 100;
  int wrong = 0;
  for (int b = 0; b < kBlocks; ++b) {
    int want = 0;
    for (int t = 0; t < kBlock; ++t) want += input[b * kBlock + t];
    if (sums[b] != want) { ++wrong; vx_printf("block %d: got %d want %d\n", b, sums[b], want); }
  }
  vx_printf("reduce: %d of %d blocks wrong\n", wrong, kBlocks);
  return wrong;
}
