// Tensor unit (WMMA, vortex-isa.md §5, Vortex 2.x): geometry, register binding, element
// formats and conversions. Used by insns/wmma.h.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace vxsynth::vxsim::tensor {

// v2 format ids (the rd field carries the output format, rs1 the input format).
enum : uint32_t {
  kFp32 = 0, kFp16 = 1, kBf16 = 2, kInt32 = 8, kInt8 = 9, kUint8 = 10, kInt4 = 11, kUint4 = 12,
};

// wmma_config_t<NT, It, Ot> with 8 registers per fragment (§5.2); sizes in 32-bit words.
struct Geometry {
  uint32_t tile_m, tile_n, tile_k;        // xtileM, xtileN (elements), xtileK (words)
  uint32_t tc_m, tc_n, tc_k;              // one step (words for K)
  uint32_t m_steps, n_steps, k_steps;
  uint32_t a_sub_blocks, b_sub_blocks;    // step blocks that share one register
  uint32_t a_base, b_base, c_base;        // first FP register of the A, B and C/D fragments
};

inline Geometry geometry(uint32_t threads) {
  const uint32_t log_nt = static_cast<uint32_t>(std::countr_zero(threads));
  const uint32_t cap = threads * 8, log_cap = log_nt + 3;
  Geometry g{};
  g.tile_m = 1u << ((log_cap + 1) / 2);
  g.tile_n = 1u << (log_cap / 2);
  g.tile_k = cap / std::max(g.tile_m, g.tile_n);
  g.tc_m = 1u << ((log_nt + 1) / 2);
  g.tc_n = 1u << (log_nt / 2);
  g.tc_k = threads / std::max(g.tc_m, g.tc_n);
  g.m_steps = g.tile_m / g.tc_m;
  g.n_steps = g.tile_n / g.tc_n;
  g.k_steps = g.tile_k / g.tc_k;
  g.a_sub_blocks = threads / (g.tc_m * g.tc_k);
  g.b_sub_blocks = threads / (g.tc_k * g.tc_n);
  const uint32_t nrb = g.tile_n * g.tile_k / threads;
  // §5.3: A in f0-f7; B in f10-f17 and C/D in f24-f31 when B needs 8 registers, else B in
  // f28-f31 and C/D in f10-f17.
  g.a_base = 0;
  g.b_base = nrb == 8 ? 10 : 28;
  g.c_base = nrb == 8 ? 24 : 10;
  return g;
}

inline float half_to_float(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

// Round to nearest even.
inline uint32_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  if (std::isnan(f)) return sign | 0x7e00u;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00u;
  if (a < 6.103515625e-05f) {  // below 2^-14: subnormal half (exact scaling by 2^24)
    return sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f));
  }
  const uint32_t exp = ((x >> 23) & 0xff) - 112, man = x & 0x7fffff;
  uint32_t r = (exp << 10) | (man >> 13);
  const uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) ++r;
  return sign | r;
}

inline float bf16_to_float(uint32_t b) { return std::bit_cast<float>((b & 0xffffu) << 16); }

inline uint32_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return (x >> 16) | 0x40u;
  return (x + 0x7fffu + ((x >> 16) & 1)) >> 16;
}

}  // namespace vxsynth::vxsim::tensor
