// Tensor-unit GEMM host program for every Vortex 2.x format pair (Vortex regression style):
//   ./tensor_gemm [-t FORMAT|all] [-m M] [-n N] [-k K] [-c] [-s SEED] [-f kernel.vxbin]
// FORMAT: fp16_fp32 bf16_fp32 fp16_fp16 bf16_bf16 int8 uint8 int4 uint4 (default all). -c adds
// a random C (D = C + A * B; otherwise D = A * B). Sizes are padded with zeros to the tile shape
// of the device's warp width. Each result is checked two ways:
//   bit for bit against a CPU model of the unit's arithmetic in its order (per output element,
//   K in increasing order from C: fp32 multiply then fp32 add, both rounded, for fp16/bf16 ->
//   fp32; fp32 fused multiply-add rounded to fp16/bf16 after every element for fp16 -> fp16 and
//   bf16 -> bf16; wrapping int32 multiply-accumulate for the integer formats);
//   against a float64 reference within the error bound of that arithmetic (exact for integers).
#include <unistd.h>
#include <vortex.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common.h"

#define RT_CHECK(_expr)                                      \
  do {                                                       \
    int _ret = _expr;                                        \
    if (0 == _ret) break;                                    \
    printf("Error: '%s' returned %d!\n", #_expr, (int)_ret); \
    cleanup();                                               \
    exit(-1);                                                \
  } while (false)

static const char* kFormatNames[kNumFormats] = {"fp16_fp32", "bf16_fp32", "fp16_fp16", "bf16_bf16",
                                                "int8",      "uint8",     "int4",      "uint4"};

static const char* kernel_file = "kernel.vxbin";
static uint32_t M = 24, N = 40, K = 56;
static int only_format = -1;  // -1: all
static bool accumulate = false;
static uint32_t seed = 1;

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr, B_buffer = nullptr, C_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr, args_buffer = nullptr;

static void show_usage() {
  printf("Usage: [-t fp16_fp32|bf16_fp32|fp16_fp16|bf16_bf16|int8|uint8|int4|uint4|all] [-m M] [-n N] [-k K] [-c]"
         " [-s seed] [-f kernel] [-h]\n");
}

static uint32_t parse_size(const char* flag, const char* text) {
  char* end = nullptr;
  const unsigned long v = strtoul(text, &end, 10);
  if (end == text || *end != '\0' || v == 0 || v > 4096) {
    printf("Error: %s %s: expected a size from 1 to 4096\n", flag, text);
    exit(-1);
  }
  return (uint32_t)v;
}

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "t:m:n:k:cs:f:h")) != -1) {
    switch (c) {
      case 't': {
        only_format = -2;
        if (std::string(optarg) == "all") only_format = -1;
        for (int f = 0; f < kNumFormats; ++f) {
          if (std::string(optarg) == kFormatNames[f]) only_format = f;
        }
        if (only_format == -2) {
          printf("Error: -t %s: unknown format\n", optarg);
          show_usage();
          exit(-1);
        }
        break;
      }
      case 'm': M = parse_size("-m", optarg); break;
      case 'n': N = parse_size("-n", optarg); break;
      case 'k': K = parse_size("-k", optarg); break;
      case 'c': accumulate = true; break;
      case 's': seed = (uint32_t)atoi(optarg); break;
      case 'f': kernel_file = optarg; break;
      case 'h': show_usage(); exit(0);
      default: show_usage(); exit(-1);
    }
  }
}

static void free_buffers() {
  vx_mem_free(A_buffer);
  vx_mem_free(B_buffer);
  vx_mem_free(C_buffer);
  vx_mem_free(args_buffer);
  A_buffer = B_buffer = C_buffer = args_buffer = nullptr;
}

static void cleanup() {
  if (device) {
    free_buffers();
    vx_mem_free(krnl_buffer);
    vx_dev_close(device);
    device = nullptr;
  }
}

// Element conversions (round to nearest even, as the unit does).
// std::bit_cast is C++20; Vortex's host flags are -std=c++17.
template <typename To, typename From>
static To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

static uint16_t to_half(float f) { return bit_cast<uint16_t>(static_cast<_Float16>(f)); }
static float from_half(uint32_t h) { return static_cast<float>(bit_cast<_Float16>(static_cast<uint16_t>(h))); }
static uint16_t to_bf16(float f) {
  const uint32_t x = bit_cast<uint32_t>(f);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}
static float from_bf16(uint32_t b) { return bit_cast<float>((b & 0xffffu) << 16); }

// The device's tile shape (vortex-isa.md §5.2: wmma_config_t<NT> with 8 registers a fragment).
struct Tile {
  uint32_t m, n, k;  // k in elements
};
static Tile tile_for(uint32_t nt, uint32_t bits) {
  uint32_t log_cap = 3;
  while ((1u << (log_cap - 3)) < nt) ++log_cap;
  const uint32_t cap = nt * 8, tm = 1u << ((log_cap + 1) / 2), tn = 1u << (log_cap / 2);
  return {tm, tn, cap / (tm > tn ? tm : tn) * (32 / bits)};
}

static uint32_t round_up(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }

// One format: random inputs, run, check. Returns the number of wrong elements.
static int run_format(int format, uint32_t nt) {
  const bool fp_in = format <= kBf16Bf16;
  const bool bf = format == kBf16Fp32 || format == kBf16Bf16;
  const bool out16 = format == kFp16Fp16 || format == kBf16Bf16;
  const bool sub_byte = format == kInt4Int32 || format == kUint4Int32;
  const bool is_signed = format == kInt8Int32 || format == kInt4Int32;
  const uint32_t bits = fp_in ? 16 : sub_byte ? 4 : 8;
  const Tile t = tile_for(nt, bits);
  const uint32_t Mp = round_up(M, t.m), Np = round_up(N, t.n), Kp = round_up(K, t.k);
  printf("%s: D(%ux%u) = %sA(%ux%u) * B(%ux%u), tile %ux%ux%u, padded to %ux%ux%u\n", kFormatNames[format], M, N,
         accumulate ? "C + " : "", M, K, K, N, t.m, t.n, t.k, Mp, Np, Kp);

  // Inputs as raw element bits, unpacked: a[r * Kp + k], b[k * Np + c]; zero padding.
  std::mt19937 rng(seed * 1000003u + (uint32_t)format * 7919u + M * 31u + N * 17u + K);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  auto random_element = [&]() -> uint32_t {
    if (format == kFp16Fp32 || format == kFp16Fp16) return to_half(dist(rng));
    if (bf) return to_bf16(dist(rng));
    return rng() & ((1u << bits) - 1);
  };
  std::vector<uint32_t> a(Mp * Kp, 0), b(Kp * Np, 0), c(Mp * Np, 0);
  for (uint32_t r = 0; r < M; ++r)
    for (uint32_t k = 0; k < K; ++k) a[r * Kp + k] = random_element();
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t col = 0; col < N; ++col) b[k * Np + col] = random_element();
  if (accumulate) {
    for (uint32_t r = 0; r < M; ++r) {
      for (uint32_t col = 0; col < N; ++col) {
        const float v = dist(rng) * 4.0f;
        c[r * Np + col] = !fp_in ? (uint32_t)(int32_t)(rng() % 2001) - 1000u
                          : out16 ? (bf ? to_bf16(v) : to_half(v))
                                  : bit_cast<uint32_t>(v);
      }
    }
  }

  // Device images.
  const uint32_t out_bytes = out16 ? 2 : 4;
  std::vector<uint8_t> h_A(sub_byte ? Mp * Kp / 2 : Mp * Kp * (bits / 8), 0);
  std::vector<uint8_t> h_B(sub_byte ? Kp * Np / 2 : Kp * Np * (bits / 8), 0);
  std::vector<uint8_t> h_C(Mp * Np * out_bytes);
  auto put = [&](std::vector<uint8_t>& img, uint32_t index, uint32_t v) {
    if (sub_byte) {
      img[index / 2] |= (uint8_t)((v & 0xf) << (4 * (index % 2)));
    } else {
      memcpy(&img[index * (bits / 8)], &v, bits / 8);  // little-endian low bytes
    }
  };
  for (uint32_t r = 0; r < Mp; ++r)
    for (uint32_t k = 0; k < Kp; ++k) put(h_A, r * Kp + k, a[r * Kp + k]);
  for (uint32_t k = 0; k < Kp; ++k)
    for (uint32_t col = 0; col < Np; ++col) put(h_B, sub_byte ? col * Kp + k : k * Np + col, b[k * Np + col]);
  for (uint32_t i = 0; i < Mp * Np; ++i) memcpy(&h_C[i * out_bytes], &c[i], out_bytes);

  kernel_arg_t arg = {};
  arg.format = (uint32_t)format;
  arg.accumulate = accumulate ? 1 : 0;
  arg.M = Mp;
  arg.N = Np;
  arg.K = Kp;
  RT_CHECK(vx_mem_alloc(device, h_A.size(), VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, h_B.size(), VX_MEM_READ, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &arg.B_addr));
  RT_CHECK(vx_mem_alloc(device, h_C.size(), VX_MEM_READ_WRITE, &C_buffer));
  RT_CHECK(vx_mem_address(C_buffer, &arg.C_addr));
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, h_A.size()));
  RT_CHECK(vx_copy_to_dev(B_buffer, h_B.data(), 0, h_B.size()));
  RT_CHECK(vx_copy_to_dev(C_buffer, h_C.data(), 0, h_C.size()));
  RT_CHECK(vx_upload_bytes(device, &arg, sizeof arg, &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_C.data(), C_buffer, 0, h_C.size()));
  free_buffers();

  auto value = [&](uint32_t x) -> double {  // an input element as a number
    if (fp_in) return bf ? from_bf16(x) : from_half(x);
    if (!is_signed) return x;
    return bits == 8 ? (double)(int8_t)x : (double)((int32_t)(x << 28) >> 28);
  };
  const double u = format == kFp16Fp16 ? std::ldexp(1.0, -11) : format == kBf16Bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -24);
  int errors = 0;
  for (uint32_t r = 0; r < Mp; ++r) {
    for (uint32_t col = 0; col < Np; ++col) {
      uint32_t actual = 0;
      memcpy(&actual, &h_C[(r * Np + col) * out_bytes], out_bytes);
      // The model, in the unit's order (padding included: it runs over Kp like the device).
      uint32_t model;
      double exact, magnitude;
      const uint32_t c0 = c[r * Np + col];
      if (!fp_in) {
        uint32_t acc = c0;
        int64_t sum = (int32_t)c0;
        for (uint32_t k = 0; k < Kp; ++k) {
          const int64_t p = (int64_t)value(a[r * Kp + k]) * (int64_t)value(b[k * Np + col]);
          acc += (uint32_t)p;
          sum += p;
        }
        model = acc;
        exact = (double)sum;
        magnitude = 0;  // integers are exact
      } else if (!out16) {
        float acc = bit_cast<float>(c0);
        exact = acc;
        magnitude = std::fabs(acc);
        for (uint32_t k = 0; k < Kp; ++k) {
          const float x = (float)value(a[r * Kp + k]), y = (float)value(b[k * Np + col]);
          const float product = x * y;
          acc = acc + product;
          exact += (double)x * y;
          magnitude += std::fabs((double)x * y);
        }
        model = bit_cast<uint32_t>(acc);
      } else {
        uint32_t acc = c0;
        exact = value(c0);
        magnitude = std::fabs(exact);
        for (uint32_t k = 0; k < Kp; ++k) {
          const float x = (float)value(a[r * Kp + k]), y = (float)value(b[k * Np + col]);
          const float sum = std::fma(x, y, (float)value(acc));
          acc = bf ? to_bf16(sum) : to_half(sum);
          exact += (double)x * y;
          magnitude += std::fabs((double)x * y);
        }
        model = acc;
      }
      const double got = !fp_in ? (double)(int32_t)actual : out16 ? value(actual) : bit_cast<float>(actual);
      // Each of the Kp roundings is relative to a partial sum bounded by the magnitude.
      // fp16 results below 2^-14 are subnormal: an absolute 2^-25 each rounding.
      const double bound = (Kp + 1) * (u * magnitude + (format == kFp16Fp16 ? std::ldexp(1.0, -25) : 0.0));
      const bool bit_exact = actual == model;
      const bool within = std::fabs(got - exact) <= bound;
      if (!bit_exact || !within) {
        if (errors < 10) {
          printf("*** error: %s [%u][%u] actual=0x%08x model=0x%08x (%s), value=%.9g float64=%.9g bound=%.3g (%s)\n",
                 kFormatNames[format], r, col, actual, model, bit_exact ? "same" : "differs", got, exact, bound,
                 within ? "within" : "outside");
        }
        ++errors;
      }
    }
  }
  return errors;
}

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  RT_CHECK(vx_dev_open(&device));
  uint64_t isa = 0, threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_ISA_FLAGS, &isa));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &threads));
  if (!(isa & VX_ISA_EXT_TCU)) {
    printf("Error: the device has no tensor unit\n");
    cleanup();
    return -1;
  }
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  int errors = 0;
  for (int f = 0; f < kNumFormats; ++f) {
    if (only_format >= 0 && f != only_format) continue;
    errors += run_format(f, (uint32_t)threads);
  }
  cleanup();
  if (errors != 0) {
    printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  printf("PASSED!\n");
  return 0;
}
