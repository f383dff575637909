// Standalone check of vx_tensor.h for every Vortex 2.x format pair the unit supports with an
// exactly predictable result: fp16 -> fp32 and bf16 -> fp32 (products of 16-bit floats are
// exact in fp32 and the unit adds in increasing K order, as the scalar reference does),
// int8 / uint8 -> int32, and int4 / uint4 -> int32 (B col-major). One warp per core computes a
// tileM x tileN x (2 tileK) product of pseudo-random inputs; lane 0 compares with a scalar
// loop. The exit code is the number of failing formats.
#include <string.h>
#include <vx_print.h>
#include <vx_spawn.h>
#include <vx_tensor.h>

namespace vt = vortex::tensor;

static constexpr uint32_t kMaxElems = 16 * 64;  // tileM x K at 32 threads, 8-bit, 2 tiles of K
static uint8_t g_a[kMaxElems * 4];
static uint8_t g_b[kMaxElems * 4];
static uint8_t g_c[16 * 16 * 4];

static uint32_t lcg(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

static float half_to_float(uint16_t h) {  // normal numbers only (what the generator makes)
  uint32_t bits = ((uint32_t)(h & 0x8000) << 16) | ((((h >> 10) & 0x1f) - 15 + 127) << 23) | ((uint32_t)(h & 0x3ff) << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static float bf16_to_float(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

template <uint32_t NT, typename It, typename Ot>
struct Check {
  using ctx = vt::wmma_context<NT, It, Ot>;
  static constexpr uint32_t M = ctx::tileM, N = ctx::tileN, K = 2 * ctx::tileK;
  static constexpr bool kSubByte = It::bits == 4;

  // One warp (the CTA): C = A * B with the tensor unit.
  static void body(void*) {
    auto A = reinterpret_cast<const typename ctx::input_t*>(g_a);
    auto B = reinterpret_cast<const typename ctx::input_t*>(g_b);
    typename ctx::fragment_a a;
    typename ctx::fragment_b b;
    typename ctx::fragment_acc c;
    ctx::fill_fragment(c, 0);
    for (uint32_t k = 0; k < K; k += ctx::tileK) {
      if constexpr (kSubByte) {
        ctx::load_matrix_sync(a, reinterpret_cast<const uint8_t*>(A) + k / 2, K);  // byte offset of K/2
        ctx::template load_matrix_sync<vt::col_major>(b, reinterpret_cast<const uint8_t*>(B) + k / 2, K);
      } else {
        ctx::load_matrix_sync(a, A + k, K);
        ctx::load_matrix_sync(b, B + k * N, N);
      }
      ctx::mma_sync(c, a, b, c);
    }
    ctx::store_matrix_sync(reinterpret_cast<typename ctx::output_t*>(g_c), c, N);
  }

  // Element (r, k) of A and (k, col) of B as numbers.
  static double a_value(uint32_t r, uint32_t k) { return element(g_a, r * K + k); }
  static double b_value(uint32_t k, uint32_t col) { return element(g_b, kSubByte ? col * K + k : k * N + col); }
  static double element(const uint8_t* base, uint32_t index) {
    if constexpr (It::id == vt::fp16::id) return half_to_float(reinterpret_cast<const uint16_t*>(base)[index]);
    if constexpr (It::id == vt::bf16::id) return bf16_to_float(reinterpret_cast<const uint16_t*>(base)[index]);
    if constexpr (It::id == vt::int8::id) return reinterpret_cast<const int8_t*>(base)[index];
    if constexpr (It::id == vt::uint8::id) return base[index];
    const uint32_t nibble = (base[index / 2] >> (4 * (index % 2))) & 0xf;
    if constexpr (It::id == vt::int4::id) return (int32_t)(nibble << 28) >> 28;
    return nibble;
  }

  static void fill(uint32_t seed) {
    uint32_t state = seed;
    for (uint32_t i = 0; i < M * K; ++i) put(g_a, i, lcg(state));
    for (uint32_t i = 0; i < K * N; ++i) put(g_b, i, lcg(state));
  }
  static void put(uint8_t* base, uint32_t index, uint32_t random) {
    if constexpr (It::bits == 16) {
      uint16_t v;
      if constexpr (It::id == vt::fp16::id) {
        v = (uint16_t)(((random & 1) << 15) | ((13 + (random >> 1) % 5) << 10) | ((random >> 4) & 0x3ff));
      } else {
        v = (uint16_t)(((random & 1) << 15) | ((125 + (random >> 1) % 5) << 7) | ((random >> 4) & 0x7f));
      }
      reinterpret_cast<uint16_t*>(base)[index] = v;
    } else if constexpr (It::bits == 8) {
      base[index] = (uint8_t)random;
    } else {
      const uint32_t shift = 4 * (index % 2);
      base[index / 2] = (uint8_t)((base[index / 2] & ~(0xf << shift)) | ((random & 0xf) << shift));
    }
  }

  static int run(const char* name, uint32_t seed) {
    fill(seed);
    memset(g_c, 0xA5, sizeof g_c);
    const uint32_t one = 1, block = NT;
    if (vx_spawn_threads(1, &one, &block, body, nullptr) != 0) return 1;
    int wrong = 0;
    for (uint32_t r = 0; r < M; ++r) {
      for (uint32_t col = 0; col < N; ++col) {
        if constexpr (Ot::id == vt::fp32::id) {
          float expected = 0.0f;
          for (uint32_t k = 0; k < K; ++k) expected += (float)a_value(r, k) * (float)b_value(k, col);
          wrong += reinterpret_cast<const float*>(g_c)[r * N + col] != expected;
        } else {
          int32_t expected = 0;
          for (uint32_t k = 0; k < K; ++k) expected += (int32_t)a_value(r, k) * (int32_t)b_value(k, col);
          wrong += reinterpret_cast<const int32_t*>(g_c)[r * N + col] != expected;
        }
      }
    }
    if (wrong != 0) vx_printf("FAILED: %s: %d of %u elements wrong\n", name, wrong, (unsigned)(M * N));
    return wrong != 0;
  }
};

template <uint32_t NT>
static int check_all() {
  int failed = 0;
  failed += Check<NT, vt::fp16, vt::fp32>::run("fp16 -> fp32", 1);
  failed += Check<NT, vt::bf16, vt::fp32>::run("bf16 -> fp32", 2);
  failed += Check<NT, vt::int8, vt::int32>::run("int8 -> int32", 3);
  failed += Check<NT, vt::uint8, vt::int32>::run("uint8 -> int32", 4);
  failed += Check<NT, vt::int4, vt::int32>::run("int4 -> int32", 5);
  failed += Check<NT, vt::uint4, vt::int32>::run("uint4 -> int32", 6);
  return failed;
}

int main() {
  // Core 0 only: the checks share the global buffers.
  if (vx_core_id() != 0) return 0;
  int failed;
  switch (vx_num_threads()) {
    case 1: failed = check_all<1>(); break;
    case 2: failed = check_all<2>(); break;
    case 4: failed = check_all<4>(); break;
    case 8: failed = check_all<8>(); break;
    case 16: failed = check_all<16>(); break;
    case 32: failed = check_all<32>(); break;
    default: return 100;
  }
  vx_printf("tensor formats: %d of 6 failed at %d threads a warp\n", failed, vx_num_threads());
  return failed;
}
