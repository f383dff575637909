// Equivalence checks between two outputs of the same op (docs/tolerances.md).
//
// An element passes when it is finite and |actual - expected| <= atol + rtol * |expected|; under
// an exact tolerance (a layout transform: no arithmetic) only when its bits equal expected's.
// NaN never passes; an element still holding the poison bits is reported as unwritten; an
// infinity passes only when expected holds the same infinity (it is still counted).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "common/json_fwd.h"
#include "ops/op_spec.h"
#include "ops/tensor.h"

namespace vxsynth::ops {

// source    : CUDA candidate vs the vendor operator (cuBLAS/cuDNN), both on `precision`, or the
//             CPU reference vs either of them.
// candidate : CUDA candidate (`precision`) vs Vortex candidate (`vortex_precision`).
enum class Check { source, candidate };
std::string to_string(Check c);
bool parse_check(const std::string& s, Check& out);

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  // Systematic error, over the whole output: the least-squares slope c of d = actual - expected
  // on expected must satisfy |c| <= max_bias + 6 standard errors of c (from the residuals).
  // Negative: no such check (fp32). tf32 needs it: a candidate that truncates its operands is
  // within the per-element bound of a correct one at large K, but biased by ~-6.8e-4 (toward
  // zero); bf16/fp16: a candidate that truncates its output instead of rounding it is within one
  // output ulp per element, but biased by ~-(2/3) u_out (bf16 -2.6e-3, fp16 -3.3e-4).
  double max_bias = -1.0;
  bool exact = false;  // bit for bit: any differing bit fails (-0 vs +0 too); atol = rtol = 0
};
// The tolerance of an op without arithmetic.
inline Tolerance exact_tolerance() {
  Tolerance t;
  t.exact = true;
  return t;
}

// The error model behind one row of the tolerance table (docs/tolerances.md derives each value).
struct ToleranceModel {
  double input_sigma = 0.0;  // std of the relative mismatch of one product between the sides
  double input_bias = 0.0;   // bound on its mean (a relative error on y -> rtol)
  double input_max = 0.0;    // hard bound on the relative mismatch of one product
  double input_cv = 1.5;     // relative std of one product's share of the per-element variance
  double tie_prob = 0.0;     // per factor: probability that the two sides' roundings differ
  double tie_rel = 0.0;      // ... and by how much then (relative to the factor)
  bool fp16_subnormals = false;  // one side rounds to fp16: operands below 2^-14 lose bits
  double acc_unit = 0.0;     // unit roundoff of the accumulator (2^-24 RN, 2^-23 truncating)
  double acc_bias_block = 0.0;  // k per truncating block-add (tensor cores), 0 when unbiased
  double out_unit = 0.0;     // unit roundoff of the output type
  // The input and tie terms describe exclusive cases (tf32: one side rounds its operands and the
  // other does not, or both round and differ at ties only): the larger one applies, not the sum.
  bool input_or_tie = false;
};

// The bias check needs this many finite element pairs to estimate a slope (fewer: not made).
inline constexpr std::int64_t kBiasMinElements = 64;

// Confidence factor of the statistical terms: 6 sigma keeps the expected number of false
// failures below 0.03 at the largest output of the suite (13.4 M elements).
inline constexpr double kToleranceSigmas = 6.0;

ToleranceModel tolerance_model(PrecisionPath cuda_path, PrecisionPath vortex_path, Check check);
// (atol, rtol) for accumulation length K, with inputs from generate_inputs() (docs/tolerances.md):
//   acc(K)  = z * acc_unit * sqrt(K/3) + acc_unit/2 * ceil(K / acc_bias_block)
//   in(K)   = min(input_max * 3 sqrt(K),  z * input_sigma * sqrt(1 + input_cv z / sqrt(K)))
//   tie(K)  = n(2K tie_prob) * tie_rel * 3/sqrt(K), n(l) = the Poisson(l) count exceeded with
//             probability < 1e-9; plus 2^-25 per operand in fp16's subnormal range (same bound)
//   atol    = in(K) + tie(K) + acc(K) + output subnormal spacing (fp16 only); tf32: max(in, tie)
//             instead of the sum (input_or_tie)
//   rtol    = 2 * out_unit + input_bias + acc(K)
Tolerance tolerance_for(PrecisionPath cuda_path, PrecisionPath vortex_path, Check check,
                        std::int64_t k);
// For an op: K from the spec; exact_tolerance() for a layout transform, on both checks. A source check also allows the extra output roundings of the
// vendor's unfused epilogue: a conv's bias added after the conv was rounded, and an activation
// run as its own kernel (PyTorch's linear then gelu), whose double rounding is also slightly
// biased (max_bias grows by it). docs/tolerances.md, item 4 and "The bias check".
Tolerance tolerance_for(const OpSpec& spec, Check check);

struct EquivalenceReport {
  Check check = Check::source;
  Tolerance tolerance;
  std::int64_t count = 0;          // elements compared
  std::int64_t failed = 0;         // elements that did not pass (includes the three below)
  std::int64_t nan_count = 0;      // NaN in actual that is not poison
  std::int64_t inf_count = 0;      // +-Inf in actual
  std::int64_t unwritten_count = 0;  // poison bits in actual
  std::int64_t expected_nonfinite = 0;  // NaN/Inf/poison in expected (expected is broken)
  std::int64_t bit_mismatches = 0;  // exact checks: finite, written elements whose bits differ
  std::int64_t finite_pairs = 0;   // pairs with both values finite: the ones the errors below are over
  std::int64_t beyond_tolerance = 0;  // finite pairs whose difference exceeds the tolerance
  double max_abs_error = 0.0;      // over finite pairs
  double max_rel_error = 0.0;      // |d| / |expected| over finite pairs with expected != 0
  std::int64_t worst_index = -1;   // largest |d| / (atol + rtol |y|); non-finite/unwritten first
  Shape worst_coords;
  double worst_expected = 0.0, worst_actual = 0.0, worst_ratio = 0.0;
  std::int64_t first_unwritten_index = -1;
  // The systematic-error check (Tolerance::max_bias; needs >= kBiasMinElements finite pairs).
  bool bias_checked = false;
  double bias_slope = 0.0, bias_limit = 0.0;
  bool bias_failed() const { return bias_checked && std::fabs(bias_slope) > bias_limit; }
  bool passed() const { return failed == 0 && expected_nonfinite == 0 && count > 0 && !bias_failed(); }

  std::string text() const;  // multi-line human report
  Json to_json() const;
};

// InputError when dtypes or shapes differ (file names come from Tensor::name()).
EquivalenceReport compare_outputs(const Tensor& expected, const Tensor& actual,
                                  const Tolerance& tol, Check check = Check::source);

// Same, on selected flat indices only (sampled checks at full-size shapes); expected[i] is the
// expected value of element indices[i], actual is the full output.
EquivalenceReport compare_selected(const std::vector<float>& expected, const Tensor& actual,
                                   const std::vector<std::int64_t>& indices, const Tolerance& tol,
                                   Check check = Check::source);

}  // namespace vxsynth::ops
