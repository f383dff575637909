// Shared-memory tiled SGEMM, C = A * B (row-major, n x n, n a multiple of TILE), for vxsim's
// speed benchmark and its correctness test. Built with stock GCC: every branch is
// warp-uniform (loop bounds do not depend on the lane).
#include <stdint.h>

#define TILE 16
#define LMEM_BASE 0xFFFF0000u

struct sgemm_args {
  uint32_t n;
  uint32_t a, b, c;  // device addresses
};

static inline uint32_t csr_read_thread_id(void) { uint32_t v; __asm__ volatile("csrr %0, 0xCC0" : "=r"(v)); return v; }
static inline uint32_t csr_read_warp_id(void) { uint32_t v; __asm__ volatile("csrr %0, 0xCC1" : "=r"(v)); return v; }
static inline uint32_t csr_read_core_id(void) { uint32_t v; __asm__ volatile("csrr %0, 0xCC2" : "=r"(v)); return v; }
static inline uint32_t csr_read_num_threads(void) { uint32_t v; __asm__ volatile("csrr %0, 0xFC0" : "=r"(v)); return v; }
static inline uint32_t csr_read_num_warps(void) { uint32_t v; __asm__ volatile("csrr %0, 0xFC1" : "=r"(v)); return v; }
static inline uint32_t csr_read_num_cores(void) { uint32_t v; __asm__ volatile("csrr %0, 0xFC2" : "=r"(v)); return v; }
static inline void barrier(uint32_t id, uint32_t warps) {
  __asm__ volatile(".insn r 0x0b, 4, 0, x0, %0, %1" ::"r"(id), "r"(warps) : "memory");
}

void kernel_main(const struct sgemm_args* arg) {
  const uint32_t n = arg->n;
  const float* A = (const float*)arg->a;
  const float* B = (const float*)arg->b;
  float* C = (float*)arg->c;
  const uint32_t nt = csr_read_num_threads(), nw = csr_read_num_warps();
  const uint32_t threads = nt * nw;                // threads of this core
  const uint32_t tid = csr_read_warp_id() * nt + csr_read_thread_id();
  const uint32_t per_thread = TILE * TILE / threads;  // C elements per thread (>= 1)
  float* As = (float*)LMEM_BASE;
  float* Bs = As + TILE * TILE;
  const uint32_t tiles_per_row = n / TILE;
  const uint32_t tiles = tiles_per_row * tiles_per_row;
  float acc[TILE * TILE];

  for (uint32_t t = csr_read_core_id(); t < tiles; t += csr_read_num_cores()) {
    const uint32_t row0 = (t / tiles_per_row) * TILE, col0 = (t % tiles_per_row) * TILE;
    for (uint32_t e = 0; e < per_thread; ++e) acc[e] = 0.0f;
    for (uint32_t k0 = 0; k0 < n; k0 += TILE) {
      // Stage the A and B tiles in local memory, cooperatively.
      for (uint32_t e = 0; e < per_thread; ++e) {
        const uint32_t i = tid + e * threads, r = i / TILE, c = i % TILE;
        As[i] = A[(row0 + r) * n + k0 + c];
        Bs[i] = B[(k0 + r) * n + col0 + c];
      }
      barrier(0, nw);
      for (uint32_t e = 0; e < per_thread; ++e) {
        const uint32_t i = tid + e * threads, r = i / TILE, c = i % TILE;
        float sum = acc[e];
        for (uint32_t k = 0; k < TILE; ++k) sum += As[r * TILE + k] * Bs[k * TILE + c];
        acc[e] = sum;
      }
      barrier(0, nw);
    }
    for (uint32_t e = 0; e < per_thread; ++e) {
      const uint32_t i = tid + e * threads, r = i / TILE, c = i % TILE;
      C[(row0 + r) * n + col0 + c] = acc[e];
    }
  }
}
