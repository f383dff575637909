#include "ops/equivalence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

#include "common/error.h"
#include "common/json_io.h"
#include "ops/parallel.h"
#include "ops/reference.h"

namespace vxsynth::ops {

std::string to_string(Check c) { return c == Check::source ? "source" : "candidate"; }

bool parse_check(const std::string& s, Check& out) {
  if (s == "source") { out = Check::source; return true; }
  if (s == "candidate") { out = Check::candidate; return true; }
  return false;
}

// The numbers below are derived in docs/tolerances.md; keep the two in step.
ToleranceModel tolerance_model(PrecisionPath cuda_path, PrecisionPath vortex_path, Check check) {
  const double u24 = std::ldexp(1.0, -24);
  ToleranceModel m;
  m.out_unit = unit_roundoff(storage_dtype(cuda_path));
  switch (cuda_path) {
    case PrecisionPath::fp32:
      // SIMT FFMA on both sides, round to nearest: unbiased accumulation differences only. A
      // Vortex kernel may use fmul+fadd (one more rounding per product): input_sigma covers it.
      m.acc_unit = u24;
      m.input_sigma = check == Check::candidate ? u24 : 0.0;
      m.input_max = check == Check::candidate ? 2.0 * u24 : 0.0;
      break;
    case PrecisionPath::tf32:
      // A side either rounds fp32 operands to 10 mantissa bits to nearest -- cvt.rna (tensor-core
      // candidates), cuBLAS/cuDNN (measured on the H200: ties may go to even), fp16 RNE on
      // Vortex -- or multiplies them unrounded (a SIMT candidate, fp32 or better). Two
      // round-to-nearest variants differ only at exact ties (low 13 bits == 0x1000, probability
      // 2^-13 for generated inputs), by one tf32 ulp (<= 2^-10 relative). A rounding side against
      // an unrounded one differs by its whole operand rounding: absolute error uniform within
      // +-ulp/2 per operand; for generated inputs (x uniform in [-1, 1], w uniform in
      // +-M 2^E) sum_k E[w^2 dx^2 + x^2 dw^2] <= 2^-22 (1/7 + 49/243) sum_k E[t_k^2]. The two
      // cases are exclusive (input_or_tie). Vortex's fp16 also loses bits below 2^-14.
      m.tie_prob = std::ldexp(1.0, -13);
      m.tie_rel = std::ldexp(1.0, -10);
      m.input_sigma = std::ldexp(1.0, -11) * std::sqrt(586.0 / 1701.0);
      m.input_max = std::ldexp(1.0, -10) + std::ldexp(1.0, -22);  // (1 + 2^-11)^2 - 1
      m.input_cv = 1.53;
      m.input_or_tie = true;
      m.fp16_subnormals = check == Check::candidate && vortex_path == PrecisionPath::fp16;
      m.acc_unit = 2.0 * u24;  // tensor-core accumulation truncates (1 ulp = 2^-23)
      m.acc_bias_block = 4.0;
      break;
    case PrecisionPath::bf16:
    case PrecisionPath::fp16:
      // Inputs are stored in the narrow type: both sides multiply the same values exactly.
      m.acc_unit = 2.0 * u24;
      m.acc_bias_block = 4.0;
      break;
  }
  return m;
}

namespace {

// Smallest n with P(Poisson(lambda) > n) < 1e-9.
double poisson_bound(double lambda) {
  double pmf = std::exp(-lambda), cdf = pmf;
  int n = 0;
  while (1.0 - cdf >= 1e-9 && n < 100000) {
    ++n;
    pmf *= lambda / n;
    cdf += pmf;
    if (pmf < 1e-300 && static_cast<double>(n) > lambda) break;
  }
  return n;
}

}  // namespace

Tolerance tolerance_for(PrecisionPath cuda_path, PrecisionPath vortex_path, Check check, std::int64_t k) {
  const ToleranceModel m = tolerance_model(cuda_path, vortex_path, check);
  const double z = kToleranceSigmas;
  const double kd = static_cast<double>(std::max<std::int64_t>(k, 1));
  // Accumulation: rounding errors scale with the partial sums, whose size is ~max(1, |y|) for
  // generated inputs, so this term goes into both atol and rtol.
  double acc = z * m.acc_unit * std::sqrt(kd / 3.0);
  if (m.acc_bias_block > 0) acc += 0.5 * m.acc_unit * std::ceil(kd / m.acc_bias_block);
  // Input rounding mismatch: sum_k t_k e_k with sqrt(sum t_k^2) = R, R^2 = 1 on average and
  // std(R^2) = 1.5/sqrt(K) for generated inputs; never more than the hard bound
  // input_max * sum |t_k| <= input_max * 3 sqrt(K).
  const double in_stat = z * m.input_sigma * std::sqrt(1.0 + m.input_cv * z / std::sqrt(kd));
  const double in_hard = m.input_max * 3.0 * std::sqrt(kd);
  const double in = std::min(in_stat, in_hard);
  // Rare rounding disagreements (ties; fp16 subnormal operands): a Poisson count of events, each
  // bounded, rather than a Gaussian (with ~1 event per element the 6-sigma rule does not hold).
  double tie = 0.0;
  if (m.tie_prob > 0) tie = poisson_bound(2.0 * kd * m.tie_prob) * m.tie_rel * 3.0 / std::sqrt(kd);
  const double in_or_tie = m.input_or_tie ? std::max(in, tie) : in + tie;
  double subnormal = 0.0;
  if (m.fp16_subnormals) {
    // |x| < 2^-14 (probability 2^-14) or |w| < 2^-14 (probability 2^-14 sqrt(K)/3); each such
    // operand is off by <= 2^-25 absolute, times the other factor (<= 1, resp. <= 3/sqrt(K)).
    subnormal = poisson_bound(kd * std::ldexp(1.0, -14) * (1.0 + std::sqrt(kd) / 3.0)) * std::ldexp(1.0, -25);
  }
  const double out_floor = storage_dtype(cuda_path) == DType::f16 ? std::ldexp(1.0, -24) : 0.0;
  Tolerance t;
  t.atol = in_or_tie + subnormal + acc + out_floor;
  t.rtol = 2.0 * m.out_unit + m.input_bias + acc;
  if (cuda_path != PrecisionPath::fp32) {
    // Correct sides are unbiased but for the tensor cores' truncating accumulation (and the
    // input bias, 0 here): the systematic relative error allowed is that bias part of acc(K).
    // tf32: catches operands truncated instead of rounded (-6.8e-4). bf16/fp16: both sides round
    // their fp32 result to the narrow output to nearest, which is unbiased; a candidate that
    // truncates it is off by -(2/3) u_out on average (bf16 -2.6e-3, fp16 -3.3e-4), mostly
    // within one output ulp per element (docs/tolerances.md, "The bias check").
    t.max_bias = m.input_bias + (m.acc_bias_block > 0 ? 0.5 * m.acc_unit * std::ceil(kd / m.acc_bias_block) : 0.0);
  }
  return t;
}

namespace {

// Bounds of an extra rounding of z before y = act(z): |dy| <= |act'(z)| u |z| <= u (s |y| + g)
// with s = max |act'| and g = max(|act'(z) z| - s |act(z)|) over |z| <= 8 (scanned once).
struct ActivationSlack {
  double s = 1.0, g = 0.0;
};

ActivationSlack activation_slack(Activation a) {
  ActivationSlack r;
  if (a == Activation::none) return r;
  r.s = 0.0;
  const double h = 1e-6;
  auto slope = [&](double z) { return (apply_activation(a, z + h) - apply_activation(a, z - h)) / (2 * h); };
  for (double z = -8.0; z <= 8.0; z += 1.0 / 256) r.s = std::max(r.s, std::fabs(slope(z)));
  for (double z = -8.0; z <= 8.0; z += 1.0 / 256) {
    r.g = std::max(r.g, std::fabs(slope(z) * z) - r.s * std::fabs(apply_activation(a, z)));
  }
  return r;
}

// The systematic part of that extra rounding. The vendor outputs rn(act(rn(z))), the values of
// act on the output grid's points, rounded again; where act is close to the identity (gelu and
// silu for z > 3: act(z) = z - eps, eps below half an ulp) that lands back on rn(z) every time,
// so the vendor loses the -eps that rn(act(z)) keeps a share eps/ulp of the time: a bias that no
// per-element bound shows. Its slope on y (as the bias check measures it) for z ~ N(0, sigma^2),
// computed over every output cell of |z| in [2^-12, 8 sigma] with 16 points a cell, the largest
// over sigma in [0.5, 2] (generated outputs: sigma ~ 1). bf16 gelu_tanh: ~9.4e-5 (the H200's
// PyTorch output of SigLIP's fc1 + gelu_tanh shows 9.3e-5). fp32 outputs: bounded by u s.
double unfused_activation_bias(Activation a, DType out) {
  if (a == Activation::none || a == Activation::relu) return 0.0;  // relu maps the grid onto itself
  if (out == DType::f32) return unit_roundoff(out) * activation_slack(a).s;
  static std::map<std::pair<int, int>, double> cache;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(static_cast<int>(a), static_cast<int>(out));
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const int frac_bits = out == DType::bf16 ? 7 : 10;
  double worst = 0.0;
  for (double sigma : {0.5, 0.75, 1.0, 1.25, 1.5, 2.0}) {
    double sum_dy = 0.0, sum_yy = 0.0;
    for (int sign : {-1, 1}) {
      for (int e = -12; std::ldexp(1.0, e) < 8.0 * sigma; ++e) {
        const double ulp = std::ldexp(1.0, e - frac_bits);
        for (int m = 0; m < (1 << frac_bits); ++m) {
          const double q = sign * (std::ldexp(1.0, e) + m * ulp);  // a grid point of the output type
          for (int j = 0; j < 16; ++j) {
            const double z = q + sign * ((j + 0.5) / 16.0 - 0.5) * ulp;  // the cell of q
            const double w = std::exp(-0.5 * z * z / (sigma * sigma)) * ulp;
            const double y = round_fp64_to(out, apply_activation(a, z));
            const double v = round_fp64_to(out, apply_activation(a, round_fp64_to(out, z)));
            sum_dy += w * (v - y) * y;
            sum_yy += w * y * y;
          }
        }
      }
    }
    worst = std::max(worst, std::fabs(sum_dy / sum_yy));
  }
  cache[key] = worst;
  return worst;
}

}  // namespace

Tolerance tolerance_for(const OpSpec& spec, Check check) {
  if (spec.kind == OpKind::layout_transform) return exact_tolerance();
  Tolerance t = tolerance_for(spec.precision, spec.vortex_precision, check, spec.reduction_length());
  const bool conv = spec.kind == OpKind::conv1d || spec.kind == OpKind::conv2d;
  if (check == Check::source && conv && spec.has_bias()) {
    // PyTorch adds a conv's bias in a separate step when cuDNN cannot fuse it (and cuDNN may
    // round before its own blend): one more output rounding of y - bias, at most
    // u |y| + u |bias| with |bias| <= 0.5 for generated inputs.
    const double u = unit_roundoff(storage_dtype(spec.precision));
    t.rtol += u;
    t.atol += u * 0.5;
  }
  if (check == Check::source && spec.activation() != Activation::none) {
    // PyTorch runs the activation as a separate kernel: the vendor result is rounded to the
    // output type once more before the activation (docs/tolerances.md, "Fused activation").
    const ActivationSlack a = activation_slack(spec.activation());
    const double u = unit_roundoff(storage_dtype(spec.precision));
    t.rtol += u * a.s;
    t.atol += u * a.g;
    // ... and that rounding's bias, which the per-element slack hides but the bias check sees.
    if (t.max_bias >= 0) t.max_bias += unfused_activation_bias(spec.activation(), storage_dtype(spec.precision));
  }
  return t;
}

namespace {

struct Accumulator {
  EquivalenceReport r;
  double worst_score = -1.0;
  // Sums for the slope of d on y over finite pairs (the systematic-error check).
  double sum_dy = 0.0, sum_yy = 0.0, sum_dd = 0.0;
  std::int64_t pairs = 0;

  void finish() {
    if (r.tolerance.max_bias < 0 || pairs < kBiasMinElements || sum_yy <= 0) return;
    r.bias_checked = true;
    r.bias_slope = sum_dy / sum_yy;
    // Standard error of the slope from the residuals d - c y (elements independent).
    const double residual = std::max(0.0, sum_dd - sum_dy * sum_dy / sum_yy);
    const double se = std::sqrt(residual / static_cast<double>(pairs - 1) / sum_yy);
    r.bias_limit = r.tolerance.max_bias + kToleranceSigmas * se;
  }

  void add(std::int64_t index, float expected, std::uint32_t expected_bits, bool expected_poison, float actual,
           bool actual_poison, std::uint32_t actual_bits = 0) {
    ++r.count;
    double score;
    if (expected_poison || !std::isfinite(expected)) {
      // Only an identical infinity on both sides passes; anything else means expected is broken.
      if (std::isinf(expected) && actual == expected) {
        ++r.inf_count;
        return;
      }
      ++r.expected_nonfinite;
      ++r.failed;
      score = 3e300;
    } else if (actual_poison) {
      ++r.unwritten_count;
      ++r.failed;
      if (r.first_unwritten_index < 0) r.first_unwritten_index = index;
      score = 2e300;
    } else if (std::isnan(actual)) {
      ++r.nan_count;
      ++r.failed;
      score = 1e300;
    } else if (std::isinf(actual)) {
      ++r.inf_count;
      ++r.failed;
      score = 1e300;
    } else if (r.tolerance.exact) {
      // A permute moves bits: equal values with other bits (-0 for +0) are wrong too.
      const double d = std::fabs(static_cast<double>(actual) - static_cast<double>(expected));
      r.max_abs_error = std::max(r.max_abs_error, d);
      if (expected != 0.0f) r.max_rel_error = std::max(r.max_rel_error, d / std::fabs(static_cast<double>(expected)));
      if (actual_bits != expected_bits) {
        ++r.failed;
        ++r.bit_mismatches;
        score = d > 0 ? 1e299 * 0.5 + d : 1.0e298;  // ranked after NaN/Inf/unwritten, by |d|
      } else {
        score = 0.0;
      }
    } else {
      const double y = expected, signed_d = static_cast<double>(actual) - y, d = std::fabs(signed_d);
      const double allowed = r.tolerance.atol + r.tolerance.rtol * std::fabs(y);
      sum_dy += signed_d * y;
      sum_yy += y * y;
      sum_dd += signed_d * signed_d;
      ++pairs;
      ++r.finite_pairs;
      r.max_abs_error = std::max(r.max_abs_error, d);
      if (y != 0.0) r.max_rel_error = std::max(r.max_rel_error, d / std::fabs(y));
      if (d > allowed) {
        ++r.failed;
        ++r.beyond_tolerance;
      }
      score = allowed > 0 ? d / allowed : (d > 0 ? 1e299 : 0.0);
    }
    if (score > worst_score) {
      worst_score = score;
      r.worst_index = index;
      r.worst_expected = expected;
      r.worst_actual = actual;
      r.worst_ratio = score;
    }
  }

  // Adds a later chunk's elements (indices all above this one's): the result is the serial
  // pass's, but for the rounding of the three sums.
  void merge(const Accumulator& o) {
    r.count += o.r.count;
    r.failed += o.r.failed;
    r.nan_count += o.r.nan_count;
    r.inf_count += o.r.inf_count;
    r.unwritten_count += o.r.unwritten_count;
    r.expected_nonfinite += o.r.expected_nonfinite;
    r.bit_mismatches += o.r.bit_mismatches;
    r.finite_pairs += o.r.finite_pairs;
    r.beyond_tolerance += o.r.beyond_tolerance;
    r.max_abs_error = std::max(r.max_abs_error, o.r.max_abs_error);
    r.max_rel_error = std::max(r.max_rel_error, o.r.max_rel_error);
    if (r.first_unwritten_index < 0) r.first_unwritten_index = o.r.first_unwritten_index;
    if (o.worst_score > worst_score) {  // strictly: the first of equal scores stays, as in one pass
      worst_score = o.worst_score;
      r.worst_index = o.r.worst_index;
      r.worst_expected = o.r.worst_expected;
      r.worst_actual = o.r.worst_actual;
      r.worst_ratio = o.r.worst_ratio;
    }
    sum_dy += o.sum_dy;
    sum_yy += o.sum_yy;
    sum_dd += o.sum_dd;
    pairs += o.pairs;
  }
};

}  // namespace

EquivalenceReport compare_outputs(const Tensor& expected, const Tensor& actual, const Tolerance& tol, Check check) {
  const std::string ename = expected.name().empty() ? "expected" : expected.name();
  const std::string aname = actual.name().empty() ? "actual" : actual.name();
  if (expected.dtype() != actual.dtype()) {
    throw InputError(aname, "dtype", to_string(actual.dtype()) + " but " + ename + " is " + to_string(expected.dtype()));
  }
  if (expected.shape() != actual.shape()) {
    throw InputError(aname, "shape", shape_to_string(actual.shape()) + " but " + ename + " is " +
                                         shape_to_string(expected.shape()));
  }
  // Fixed chunks on several threads, merged in index order: the report does not depend on the
  // thread count (a real output is tens of millions of elements).
  std::vector<Accumulator> parts(static_cast<std::size_t>(chunk_count(expected.numel())));
  for_each_chunk(expected.numel(), [&](std::int64_t c, std::int64_t begin, std::int64_t end) {
    Accumulator& part = parts[static_cast<std::size_t>(c)];
    part.r.check = check;
    part.r.tolerance = tol;
    for (std::int64_t i = begin; i < end; ++i) {
      part.add(i, expected.get(i), expected.bits(i), expected.is_poison(i), actual.get(i), actual.is_poison(i),
               actual.bits(i));
    }
  });
  Accumulator acc = std::move(parts.front());
  for (std::size_t c = 1; c < parts.size(); ++c) acc.merge(parts[c]);
  if (acc.r.worst_index >= 0) acc.r.worst_coords = unravel_index(expected.shape(), acc.r.worst_index);
  acc.finish();
  return acc.r;
}

EquivalenceReport compare_selected(const std::vector<float>& expected, const Tensor& actual,
                                   const std::vector<std::int64_t>& indices, const Tolerance& tol, Check check) {
  if (expected.size() != indices.size()) {
    throw InputError("compare_selected: " + std::to_string(expected.size()) + " expected values for " +
                     std::to_string(indices.size()) + " indices");
  }
  Accumulator acc;
  acc.r.check = check;
  acc.r.tolerance = tol;
  for (std::size_t s = 0; s < indices.size(); ++s) {
    const std::int64_t i = indices[s];
    if (i < 0 || i >= actual.numel()) throw InputError("compare_selected: index " + std::to_string(i) + " out of range");
    if (tol.exact) throw InputError("compare_selected: an exact check needs the expected bits (use compare_outputs)");
    acc.add(i, expected[s], 0, false, actual.get(i), actual.is_poison(i));
  }
  if (acc.r.worst_index >= 0) acc.r.worst_coords = unravel_index(actual.shape(), acc.r.worst_index);
  acc.finish();
  return acc.r;
}

std::string EquivalenceReport::text() const {
  char buf[512];
  std::string s;
  std::snprintf(buf, sizeof buf, "check %s: %s\n", to_string(check).c_str(), passed() ? "PASS" : "FAIL");
  s += buf;
  if (!passed()) {
    // What failed comes first: the error maxima below are over finite pairs only and can read 0
    // when nothing finite was written.
    std::string why;
    auto part = [&](std::int64_t n, const std::string& what) {
      if (n == 0) return;
      why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    };
    part(unwritten_count, "unwritten (still poison)");
    part(nan_count, "NaN");
    part(failed - unwritten_count - nan_count - beyond_tolerance - expected_nonfinite - bit_mismatches, "Inf");
    part(beyond_tolerance, "finite beyond tolerance");
    part(bit_mismatches, "with bits that differ (exact check)");
    part(expected_nonfinite, "non-finite or poison in expected (the expected output is broken)");
    if (bias_failed()) why += std::string(why.empty() ? "" : ", ") + "a systematic error (bias, below)";
    if (count == 0) why = "nothing was compared";
    std::snprintf(buf, sizeof buf, "  failed         %lld of %lld elements: %s\n", static_cast<long long>(failed),
                  static_cast<long long>(count), why.c_str());
    s += buf;
  }
  if (tolerance.exact) {
    s += "  tolerance      exact: every bit equal (a layout transform has no arithmetic)\n";
  } else {
    std::snprintf(buf, sizeof buf, "  tolerance      |d| <= atol + rtol*|y|, atol = %.3e, rtol = %.3e\n", tolerance.atol,
                  tolerance.rtol);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "  elements       %lld compared, %lld failed\n", static_cast<long long>(count),
                static_cast<long long>(failed));
  s += buf;
  const std::string over = finite_pairs == count ? "" : " (over the " + std::to_string(finite_pairs) + " finite pairs only)";
  std::snprintf(buf, sizeof buf, "  max abs error  %.6e%s\n  max rel error  %.6e\n", max_abs_error, over.c_str(),
                max_rel_error);
  s += buf;
  if (worst_index >= 0) {
    std::snprintf(buf, sizeof buf, "  worst element  #%lld %s: expected %.9g, actual %.9g (%.3g x allowed)\n",
                  static_cast<long long>(worst_index), shape_to_string(worst_coords).c_str(), worst_expected,
                  worst_actual, worst_ratio > 1e298 ? INFINITY : worst_ratio);
    if (tolerance.exact) {
      std::snprintf(buf, sizeof buf, "  worst element  #%lld %s: expected %.9g, actual %.9g (%s)\n",
                    static_cast<long long>(worst_index), shape_to_string(worst_coords).c_str(), worst_expected,
                    worst_actual, failed > 0 ? "bits differ" : "bits equal");
    }
    s += buf;
  }
  if (tolerance.exact) {
    std::snprintf(buf, sizeof buf, "  bit mismatches %lld (written, finite, other bits)\n",
                  static_cast<long long>(bit_mismatches));
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "  non-finite     %lld NaN, %lld Inf in actual; %lld non-finite in expected\n",
                static_cast<long long>(nan_count), static_cast<long long>(inf_count),
                static_cast<long long>(expected_nonfinite));
  s += buf;
  std::snprintf(buf, sizeof buf, "  unwritten      %lld (still poison)%s\n", static_cast<long long>(unwritten_count),
                first_unwritten_index >= 0 ? (", first at #" + std::to_string(first_unwritten_index)).c_str() : "");
  s += buf;
  if (bias_checked) {
    std::snprintf(buf, sizeof buf, "  bias           d ~ %.3e * y, allowed |slope| <= %.3e%s\n", bias_slope, bias_limit,
                  bias_failed() ? ": FAIL (systematic error, e.g. operands or output truncated instead of rounded)" : "");
    s += buf;
  }
  return s;
}

Json EquivalenceReport::to_json() const {
  Json j;
  j["schema"] = schema_id("check", 1);
  j["check"] = to_string(check);
  j["passed"] = passed();
  j["atol"] = tolerance.atol;
  j["rtol"] = tolerance.rtol;
  j["exact"] = tolerance.exact;
  j["bit_mismatches"] = bit_mismatches;
  j["count"] = count;
  j["failed"] = failed;
  j["finite_pairs"] = finite_pairs;
  j["beyond_tolerance"] = beyond_tolerance;
  j["max_abs_error"] = max_abs_error;
  j["max_rel_error"] = max_rel_error;
  j["worst_index"] = worst_index;
  j["worst_coords"] = worst_coords;
  j["worst_expected"] = worst_expected;
  j["worst_actual"] = worst_actual;
  j["nan"] = nan_count;
  j["inf"] = inf_count;
  j["unwritten"] = unwritten_count;
  j["first_unwritten_index"] = first_unwritten_index;
  j["worst_ratio"] = worst_ratio > 1e298 ? Json(nullptr) : Json(worst_ratio);
  j["expected_nonfinite"] = expected_nonfinite;
  if (bias_checked) {
    j["bias_slope"] = bias_slope;
    j["bias_limit"] = bias_limit;
    j["bias_failed"] = bias_failed();
  }
  return j;
}

}  // namespace vxsynth::ops
