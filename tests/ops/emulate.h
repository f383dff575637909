// Test helpers: emulations of how GPU kernels (vendor or candidate) compute one output element,
// to check that the tolerances pass every correct implementation and fail plausible bugs.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/op_spec.h"
#include "ops/precision.h"

namespace vxsynth::ops::emulate {

enum class Accumulation {
  fp32_sequential,  // one SIMT thread: fmaf over k ascending (cuBLAS SIMT, naive kernels, Vortex)
  fp32_split4,      // split-K in 4 slices, each sequential, slices summed in fp32
  tensor_core,      // blocks of 8 exact products added to the accumulator, truncated to fp32
  bf16_sequential,  // BUG: the accumulator rounded to bf16 after every step
};

// fp64 value truncated toward zero to fp32.
inline float truncate_to_fp32(double v) {
  float f = static_cast<float>(v);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return f;
}

inline float accumulate(const std::vector<float>& a, const std::vector<float>& b, std::size_t k_end,
                        Accumulation mode) {
  float acc = 0.0f;
  switch (mode) {
    case Accumulation::fp32_sequential:
      for (std::size_t k = 0; k < k_end; ++k) acc = std::fma(a[k], b[k], acc);
      return acc;
    case Accumulation::fp32_split4: {
      const std::size_t slice = (k_end + 3) / 4;
      for (std::size_t s = 0; s < k_end; s += slice) {
        float part = 0.0f;
        for (std::size_t k = s; k < std::min(k_end, s + slice); ++k) part = std::fma(a[k], b[k], part);
        acc += part;
      }
      return acc;
    }
    case Accumulation::tensor_core:
      for (std::size_t k0 = 0; k0 < k_end; k0 += 8) {
        double block = static_cast<double>(acc);
        for (std::size_t k = k0; k < std::min(k_end, k0 + 8); ++k)
          block += static_cast<double>(a[k]) * static_cast<double>(b[k]);
        acc = truncate_to_fp32(block);
      }
      return acc;
    case Accumulation::bf16_sequential:
      for (std::size_t k = 0; k < k_end; ++k) acc = round_to_bf16(std::fma(a[k], b[k], acc));
      return acc;
  }
  return acc;
}

// BUG emulation: fp32 value converted to bf16/fp16 by truncation toward zero (a `bits >> 16`
// bf16 conversion, __float2half_rz) instead of rounding to nearest. fp32: unchanged.
inline float truncate_to(DType t, float v) {
  if (t == DType::f32 || !std::isfinite(v)) return v;
  const float r = round_fp64_to(t, static_cast<double>(v));
  if (std::fabs(r) <= std::fabs(v)) return r;
  // Rounded away from zero: one step back. Sign-magnitude bits: magnitude - 1 is the next value
  // toward zero, across binades too.
  if (t == DType::bf16) return bf16_bits_to_fp32(static_cast<std::uint16_t>(fp32_to_bf16_bits(r) - 1));
  return fp16_bits_to_fp32(static_cast<std::uint16_t>(fp32_to_fp16_bits(r) - 1));
}

// The epilogue of a GPU kernel: fp32 bias add and activation, then the output rounding.
inline float epilogue(float acc, float bias, Activation act, DType out) {
  const float v = static_cast<float>(apply_activation(act, static_cast<double>(acc + bias)));
  return round_fp64_to(out, static_cast<double>(v));
}

// The same epilogue with the output conversion truncating (the mutation above).
inline float epilogue_truncated(float acc, float bias, Activation act, DType out) {
  return truncate_to(out, static_cast<float>(apply_activation(act, static_cast<double>(acc + bias))));
}

// PyTorch's unfused epilogue: the GEMM result (with bias) is rounded to the output type, then a
// separate kernel applies the activation and rounds again.
inline float epilogue_unfused(float acc, float bias, Activation act, DType out) {
  const float z = round_fp64_to(out, static_cast<double>(acc + bias));
  return round_fp64_to(out, apply_activation(act, static_cast<double>(z)));
}

}  // namespace vxsynth::ops::emulate
