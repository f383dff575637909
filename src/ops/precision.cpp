#include "ops/precision.h"

#include <bit>
#include <cmath>

namespace vxsynth::ops {

std::string to_string(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::bf16: return "bfloat16";
    case DType::f16: return "float16";
  }
  return "?";
}

bool parse_dtype(const std::string& s, DType& out) {
  if (s == "float32" || s == "f32") { out = DType::f32; return true; }
  if (s == "bfloat16" || s == "bf16") { out = DType::bf16; return true; }
  if (s == "float16" || s == "f16") { out = DType::f16; return true; }
  return false;
}

int dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }

std::string to_string(PrecisionPath p) {
  switch (p) {
    case PrecisionPath::fp32: return "fp32";
    case PrecisionPath::tf32: return "tf32";
    case PrecisionPath::bf16: return "bf16";
    case PrecisionPath::fp16: return "fp16";
  }
  return "?";
}

bool parse_precision_path(const std::string& s, PrecisionPath& out) {
  if (s == "fp32") { out = PrecisionPath::fp32; return true; }
  if (s == "tf32") { out = PrecisionPath::tf32; return true; }
  if (s == "bf16") { out = PrecisionPath::bf16; return true; }
  if (s == "fp16") { out = PrecisionPath::fp16; return true; }
  return false;
}

DType storage_dtype(PrecisionPath p) {
  switch (p) {
    case PrecisionPath::bf16: return DType::bf16;
    case PrecisionPath::fp16: return DType::f16;
    default: return DType::f32;
  }
}

float round_compute_input(float v, PrecisionPath compute_path) {
  switch (compute_path) {
    case PrecisionPath::fp32: return v;
    case PrecisionPath::tf32: return round_to_tf32(v, Tf32Rounding::nearest_away);
    case PrecisionPath::bf16: return round_to_bf16(v);
    case PrecisionPath::fp16: return round_to_fp16(v);
  }
  return v;
}

std::uint16_t fp32_to_bf16_bits(float v) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(v);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    // NaN: keep sign and the top payload bits, force the quiet bit.
    return static_cast<std::uint16_t>((x >> 16) | 0x0040u);
  }
  // Round to nearest even on the 16 dropped bits; a carry into the exponent is the correct
  // result (next binade, or infinity past the largest finite value).
  const std::uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<std::uint16_t>(x >> 16);
}

float bf16_bits_to_fp32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t fp32_to_fp16_bits(float v) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(v);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) {  // NaN
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  }
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520 -> inf
  if (ax < 0x38800000u) {
    // Below the smallest normal 2^-14: a multiple of 2^-24. The scaling is exact in fp64 and
    // nearbyint rounds to nearest even (the default rounding mode); 1024 encodes 2^-14.
    const double scaled = static_cast<double>(std::bit_cast<float>(ax)) * 16777216.0;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  std::uint32_t r = ax - (112u << 23);  // rebias the exponent from 127 to 15
  const std::uint32_t lsb = (r >> 13) & 1u;
  r += 0x0fffu + lsb;
  return static_cast<std::uint16_t>(sign | (r >> 13));
}

float fp16_bits_to_fp32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t man = h & 0x3ffu;
  if (exp == 0) {
    const float mag = std::ldexp(static_cast<float>(man), -24);
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(mag) | sign);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
}

namespace {

// fp64 -> fp32 rounding to odd: rounding a round-to-odd result with at least two more bits than
// the final type to nearest-even gives the correctly rounded result (no double rounding).
float fp64_to_fp32_round_odd(double v) {
  if (std::isnan(v)) return static_cast<float>(v);
  float f = static_cast<float>(v);
  if (static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

}  // namespace

std::uint16_t fp64_to_bf16_bits(double v) { return fp32_to_bf16_bits(fp64_to_fp32_round_odd(v)); }
std::uint16_t fp64_to_fp16_bits(double v) { return fp32_to_fp16_bits(fp64_to_fp32_round_odd(v)); }

float round_to_bf16(float v) { return bf16_bits_to_fp32(fp32_to_bf16_bits(v)); }
float round_to_fp16(float v) { return fp16_bits_to_fp32(fp32_to_fp16_bits(v)); }

float round_to_tf32(float v, Tf32Rounding mode) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(v);
  if ((x & 0x7f800000u) == 0x7f800000u) {  // Inf stays, NaN stays a (quiet) NaN
    if ((x & 0x7fffffu) != 0) x |= 0x00400000u;
    return std::bit_cast<float>(x & 0xffffe000u);
  }
  if (mode == Tf32Rounding::nearest_away) x += 0x1000u;  // carry past the max gives infinity
  if (mode == Tf32Rounding::nearest_even) x += 0x0fffu + ((x >> 13) & 1u);
  return std::bit_cast<float>(x & 0xffffe000u);
}

float round_fp64_to(DType t, double v) {
  switch (t) {
    case DType::f32: return static_cast<float>(v);
    case DType::bf16: return bf16_bits_to_fp32(fp64_to_bf16_bits(v));
    case DType::f16: return fp16_bits_to_fp32(fp64_to_fp16_bits(v));
  }
  return static_cast<float>(v);
}

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f32: return std::ldexp(1.0, -24);
    case DType::bf16: return std::ldexp(1.0, -8);
    case DType::f16: return std::ldexp(1.0, -11);
  }
  return 0.0;
}

}  // namespace vxsynth::ops
