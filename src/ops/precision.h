// Precision emulation: element types, precision paths and IEEE-style rounding between them.
//
// Every conversion rounds to nearest, ties to even (the rounding of cuda's __float2bfloat16_rn
// and __float2half_rn), keeps signed zeros, produces and consumes subnormals, overflows to
// infinity and maps NaN to a quiet NaN of the target type (payload bits are truncated, the
// quiet bit is forced so a NaN never becomes an infinity).
#pragma once

#include <cstdint>
#include <string>

namespace vxsynth::ops {

// Element type of a stored tensor. Names follow torch: "float32", "bfloat16", "float16".
enum class DType { f32, bf16, f16 };

std::string to_string(DType t);
// Parses "float32" | "bfloat16" | "float16" (also "f32", "bf16", "f16"); false when unknown.
bool parse_dtype(const std::string& s, DType& out);
// Bytes per element: 4 for f32, 2 for bf16 and f16.
int dtype_size(DType t);

// How a GPU computes an operator (see docs/ops.md):
//   fp32 : fp32 tensors, SIMT FFMA, fp32 accumulation, fp32 out
//   tf32 : fp32 tensors, tensor cores read the inputs rounded to tf32 (10 mantissa bits),
//          fp32 accumulation, fp32 out
//   bf16 : bf16 tensors, fp32 accumulation, bf16 out
//   fp16 : fp16 tensors, fp32 accumulation, fp16 out
// On the Vortex side a path may differ: tf32 is computed as fp16 (fp32 tensors whose values are
// rounded to fp16 at the tensor unit, fp32 accumulation, fp32 out).
enum class PrecisionPath { fp32, tf32, bf16, fp16 };

std::string to_string(PrecisionPath p);
bool parse_precision_path(const std::string& s, PrecisionPath& out);

// Element type of the tensors (inputs and output) of a path: f32 for fp32/tf32.
DType storage_dtype(PrecisionPath p);

// How the multiply unit sees an fp32 input value on a given path (identity for fp32; tf32 or
// fp16 rounding; bf16/fp16 storage is already exact in its type).
float round_compute_input(float v, PrecisionPath compute_path);

// How an fp32 operand is reduced to tf32. PTX's cvt.rna.tf32.f32 (wmma::__float_to_tf32) rounds
// to nearest with ties away from zero; cuBLAS/cuDNN round to nearest too (measured on the H200,
// docs/tolerances.md; ties may go to even); an mma fed raw fp32 bits ignores the low 13 bits
// (truncation), which the tolerances treat as a bug.
enum class Tf32Rounding { nearest_away, truncate, nearest_even };

// ---- scalar conversions (exact bit-level behaviour, tested over all 65,536 patterns) ----
std::uint16_t fp32_to_bf16_bits(float v);
float bf16_bits_to_fp32(std::uint16_t bits);
std::uint16_t fp32_to_fp16_bits(float v);
float fp16_bits_to_fp32(std::uint16_t bits);
// fp64 -> bf16/fp16 in one rounding (no double rounding through fp32).
std::uint16_t fp64_to_bf16_bits(double v);
std::uint16_t fp64_to_fp16_bits(double v);

// Value-level helpers: the fp32 value nearest to v that the narrow type can hold.
float round_to_bf16(float v);
float round_to_fp16(float v);
float round_to_tf32(float v, Tf32Rounding mode = Tf32Rounding::nearest_away);

// Rounds an fp64 value once to the given storage type and returns it as fp32 (exact).
float round_fp64_to(DType t, double v);

// Unit roundoff (half an ulp at 1, relative) of a type's significand: 2^-24 f32, 2^-8 bf16,
// 2^-11 f16 and tf32.
double unit_roundoff(DType t);

}  // namespace vxsynth::ops
