#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/json_io.h"
#include "emulate.h"
#include "ops/equivalence.h"
#include "ops/inputs.h"
#include "ops/reference.h"

using namespace vxsynth;
using namespace vxsynth::ops;

namespace {

Tensor filled(DType t, Shape shape, float v, const char* name) {
  Tensor x(t, std::move(shape), name);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, v);
  return x;
}

}  // namespace

TEST(Equivalence, ReportFields) {
  Tensor e = filled(DType::f32, {3, 4}, 1.0f, "e");
  Tensor a = filled(DType::f32, {3, 4}, 1.0f, "a");
  a.set(5, 1.5f);    // worst: [1, 1]
  a.set(7, 1.01f);
  e.set(8, 0.0f);
  a.set(8, 1e-7f);   // passes on atol only
  const Tolerance tol{1e-6, 0.02};
  const auto r = compare_outputs(e, a, tol);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.count, 12);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.worst_index, 5);
  EXPECT_EQ(r.worst_coords, (Shape{1, 1}));
  EXPECT_FLOAT_EQ(static_cast<float>(r.worst_actual), 1.5f);
  EXPECT_NEAR(r.max_abs_error, 0.5, 1e-9);
  EXPECT_NEAR(r.max_rel_error, 0.5, 1e-9);
  EXPECT_NEAR(r.worst_ratio, 0.5 / (1e-6 + 0.02), 1e-6);
  EXPECT_NE(r.text().find("FAIL"), std::string::npos);
  EXPECT_NE(r.text().find("[1, 1]"), std::string::npos);
  EXPECT_EQ(r.to_json()["failed"], 1);
  a.set(5, 1.0f);
  EXPECT_TRUE(compare_outputs(e, a, tol).passed());
}

TEST(Equivalence, NanInfAndUnwritten) {
  const float inf = std::numeric_limits<float>::infinity();
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Tensor e = filled(t, {10}, 2.0f, "e");
    Tensor a = filled(t, {10}, 2.0f, "a");
    const Tolerance huge{1e30, 1e30};  // NaN, Inf and poison fail whatever the tolerance
    a.set(1, std::nanf(""));
    a.set(2, inf);
    a.set_bits(3, poison_bits(t));
    a.set_bits(4, poison_bits(t));
    auto r = compare_outputs(e, a, huge);
    EXPECT_EQ(r.nan_count, 1);
    EXPECT_EQ(r.inf_count, 1);
    EXPECT_EQ(r.unwritten_count, 2);
    EXPECT_EQ(r.first_unwritten_index, 3);
    EXPECT_EQ(r.failed, 4);
    EXPECT_FALSE(r.passed());
    EXPECT_NE(r.text().find("unwritten      2"), std::string::npos) << r.text();
    // The same infinity on both sides passes (counted); NaN in expected never does.
    Tensor e2 = filled(t, {2}, inf, "e2"), a2 = filled(t, {2}, inf, "a2");
    r = compare_outputs(e2, a2, huge);
    EXPECT_TRUE(r.passed());
    EXPECT_EQ(r.inf_count, 2);
    e2.set(0, std::nanf(""));
    a2.set(0, std::nanf(""));
    r = compare_outputs(e2, a2, huge);
    EXPECT_FALSE(r.passed());
    EXPECT_EQ(r.expected_nonfinite, 1);
    e2.fill_poison();
    EXPECT_FALSE(compare_outputs(e2, a2, huge).passed());
  }
}

TEST(Equivalence, MismatchedTensorsAreInputErrors) {
  const Tensor e = filled(DType::f32, {2, 3}, 1, "expected.tensor");
  EXPECT_THROW(compare_outputs(e, filled(DType::f32, {3, 2}, 1, "a"), {}), InputError);
  EXPECT_THROW(compare_outputs(e, filled(DType::bf16, {2, 3}, 1, "a"), {}), InputError);
  // An empty comparison never passes.
  EXPECT_FALSE(compare_outputs(filled(DType::f32, {0}, 0, "e"), filled(DType::f32, {0}, 0, "a"), {}).passed());
}

// The table in docs/tolerances.md, pinned: change both together.
TEST(Equivalence, ToleranceTableMatchesTheDocs) {
  struct Row {
    PrecisionPath p;
    Check c;
    std::int64_t k;
    double atol, rtol;
  };
  const Row rows[] = {
      {PrecisionPath::fp32, Check::source, 3200, 1.168e-05, 1.180e-05},
      {PrecisionPath::fp32, Check::candidate, 20480, 2.992e-05, 2.967e-05},
      {PrecisionPath::tf32, Check::source, 4608, 1.9288e-03, 9.682e-05},
      {PrecisionPath::tf32, Check::candidate, 147, 2.2868e-03, 7.331e-06},
      {PrecisionPath::tf32, Check::source, 2, 4.1449e-03, 7.628e-07},
      {PrecisionPath::tf32, Check::source, 20480, 2.1381e-03, 3.6439e-04},
      {PrecisionPath::tf32, Check::candidate, 10240, 1.9919e-03, 1.9450e-04},
      {PrecisionPath::bf16, Check::source, 2048, 4.921e-05, 7.862e-03},
      {PrecisionPath::bf16, Check::candidate, 16384, 2.970e-04, 8.109e-03},
      {PrecisionPath::fp16, Check::candidate, 2048, 4.927e-05, 1.026e-03},
  };
  for (const Row& r : rows) {
    const Tolerance t = tolerance_for(r.p, vortex_path_for(r.p), r.c, r.k);
    EXPECT_NEAR(t.atol, r.atol, r.atol * 1e-3) << to_string(r.p) << " " << to_string(r.c) << " K=" << r.k;
    EXPECT_NEAR(t.rtol, r.rtol, r.rtol * 1e-3) << to_string(r.p) << " " << to_string(r.c);
  }
  // The accumulation part grows with K (tf32's input term shrinks a little with K at first).
  for (PrecisionPath p : {PrecisionPath::fp32, PrecisionPath::tf32, PrecisionPath::bf16, PrecisionPath::fp16}) {
    for (Check c : {Check::source, Check::candidate}) {
      const auto small = tolerance_for(p, vortex_path_for(p), c, 64), large = tolerance_for(p, vortex_path_for(p), c, 65536);
      if (p != PrecisionPath::tf32) {
        EXPECT_LT(small.atol, large.atol);
      }
      EXPECT_LT(small.rtol, large.rtol);
    }
  }
}

// tf32: a side that rounds its operands (TF32 vendor, Vortex fp16) against one that does not
// (a SIMT candidate): z * 2^-11 sqrt(586/1701) sqrt(1 + 1.53 z / sqrt(K)), the larger of it and
// the tie term (docs/tolerances.md, "Input term (tf32)"). At K = 4608 the first model allowed
// 6.1e-4, below the 1.3e-3 that a correct fp32 result differs from cuDNN's TF32 output by.
TEST(Equivalence, Tf32InputTermCoversAnUnroundedSide) {
  const ToleranceModel m = tolerance_model(PrecisionPath::tf32, PrecisionPath::fp16, Check::source);
  EXPECT_DOUBLE_EQ(m.input_sigma, std::ldexp(1.0, -11) * std::sqrt(586.0 / 1701.0));
  EXPECT_DOUBLE_EQ(m.input_max, std::ldexp(1.0, -10) + std::ldexp(1.0, -22));
  EXPECT_TRUE(m.input_or_tie);
  for (const std::int64_t k : {147, 4608, 20480}) {
    const double z = kToleranceSigmas, kd = static_cast<double>(k);
    const double in = z * m.input_sigma * std::sqrt(1.0 + 1.53 * z / std::sqrt(kd));
    const double acc = z * std::ldexp(1.0, -23) * std::sqrt(kd / 3.0) + std::ldexp(1.0, -24) * std::ceil(kd / 4.0);
    const Tolerance t = tolerance_for(PrecisionPath::tf32, PrecisionPath::fp16, Check::source, k);
    EXPECT_NEAR(t.atol, in + acc, 1e-12) << "K=" << k;  // the input term wins over ties here
    EXPECT_GT(t.atol, 1.3e-3 * 1.3) << "K=" << k;
  }
  // fp32, bf16 and fp16 source checks are unchanged: both sides see the same operands.
  EXPECT_EQ(tolerance_model(PrecisionPath::fp32, PrecisionPath::fp32, Check::source).input_sigma, 0.0);
  EXPECT_EQ(tolerance_model(PrecisionPath::bf16, PrecisionPath::bf16, Check::source).input_sigma, 0.0);
}

// The extra output rounding before a separate activation kernel (source check only):
// rtol += u s, atol += u g with s = max|act'|, g = max(|act'(z) z| - s |act(z)|) over |z| <= 8.
TEST(Equivalence, ActivationSlackIsPinned) {
  struct Row {
    Activation a;
    double s, g;
  };
  const Row rows[] = {{Activation::relu, 1.0, 0.0},
                      {Activation::gelu, 1.128904, 0.142891},
                      {Activation::gelu_tanh, 1.128993, 0.142742},
                      {Activation::silu, 1.099839, 0.244236}};
  const double u = std::ldexp(1.0, -8);  // bf16 output
  const OpSpec plain = make_linear("fc1", PrecisionPath::bf16, 256, 4304, 1152, true);
  const Tolerance base = tolerance_for(plain, Check::source);
  for (const Row& r : rows) {
    const OpSpec with = make_linear("fc1", PrecisionPath::bf16, 256, 4304, 1152, true, r.a);
    const Tolerance t = tolerance_for(with, Check::source);
    EXPECT_NEAR(t.rtol - base.rtol, u * r.s, u * 1e-5) << to_string(r.a);
    EXPECT_NEAR(t.atol - base.atol, u * r.g, u * 1e-5) << to_string(r.a);
    // Candidates fuse the activation: no slack in the candidate check.
    const Tolerance c = tolerance_for(with, Check::candidate), c0 = tolerance_for(plain, Check::candidate);
    EXPECT_EQ(c.atol, c0.atol);
    EXPECT_EQ(c.rtol, c0.rtol);
  }
  // The docs' SigLIP fc1 row (bf16, K = 1152, bias, gelu_tanh): 5.89e-4 / 1.23e-2.
  const Tolerance siglip =
      tolerance_for(make_linear("siglip", PrecisionPath::bf16, 256, 4304, 1152, true, Activation::gelu_tanh), Check::source);
  EXPECT_NEAR(siglip.atol, 5.8877e-4, 5e-8);
  EXPECT_NEAR(siglip.rtol, 1.2254e-2, 5e-7);
}

// A conv's bias added by PyTorch in a separate step (source check only): one more output rounding,
// rtol += u_out and atol += 0.5 u_out (|bias| <= 0.5 for generated inputs), on every path; the
// candidate check fuses the bias and gets nothing (docs/tolerances.md, "An unfused vendor
// epilogue", and its bf16 conv row, pinned here).
TEST(Equivalence, ConvBiasSlackIsPinnedOnEveryPath) {
  for (PrecisionPath p : {PrecisionPath::fp32, PrecisionPath::tf32, PrecisionPath::bf16, PrecisionPath::fp16}) {
    const OpSpec plain = make_conv("conv", p, 2, 64, 64, {30, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false);
    const OpSpec biased = make_conv("conv", p, 2, 64, 64, {30, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true);
    const double u = unit_roundoff(storage_dtype(p));
    const Tolerance t0 = tolerance_for(plain, Check::source), t = tolerance_for(biased, Check::source);
    EXPECT_DOUBLE_EQ(t.rtol - t0.rtol, u) << to_string(p);
    EXPECT_DOUBLE_EQ(t.atol - t0.atol, 0.5 * u) << to_string(p);
    EXPECT_EQ(t.max_bias, t0.max_bias) << to_string(p);  // a second rounding to nearest adds no bias
    const Tolerance c0 = tolerance_for(plain, Check::candidate), c = tolerance_for(biased, Check::candidate);
    EXPECT_EQ(c.atol, c0.atol) << to_string(p);
    EXPECT_EQ(c.rtol, c0.rtol) << to_string(p);
  }
  // The docs' bf16 3x3 conv row (K = 576, bias): source 1.97e-3 / 1.17e-2, candidate 1.85e-5 / 7.83e-3.
  const OpSpec bf16 = make_conv("conv", PrecisionPath::bf16, 2, 64, 64, {30, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true);
  const Tolerance s = tolerance_for(bf16, Check::source), c = tolerance_for(bf16, Check::candidate);
  EXPECT_NEAR(s.atol, 1.9716e-3, 5e-8);
  EXPECT_NEAR(s.rtol, 1.17372e-2, 5e-8);
  EXPECT_NEAR(c.atol, 1.8494e-5, 5e-9);
  EXPECT_NEAR(c.rtol, 7.8310e-3, 5e-8);
  // The docs' Diffusion Policy up0.res0.conv1 row (tf32, K = 20480, bias) at the op level.
  const OpSpec dp = make_conv("dp", PrecisionPath::tf32, 1, 4096, 1024, {4}, {5}, {1}, {2}, {1}, 1, true);
  ASSERT_EQ(dp.reduction_length(), 20480);
  EXPECT_NEAR(tolerance_for(dp, Check::source).atol, 2.14e-3, 5e-6);
  EXPECT_NEAR(tolerance_for(dp, Check::source).rtol, 3.64e-4, 5e-7);
}

// The fp16-subnormal term of a tf32 op's candidate check (Vortex rounds to fp16): n(lambda) events
// of 2^-25 each, lambda = K 2^-14 (1 + sqrt(K)/3); 27 at K = 4608. Far below the atol's own size,
// so it is pinned as a difference, exactly.
TEST(Equivalence, Fp16SubnormalTermIsPinned) {
  const std::pair<std::int64_t, int> rows[] = {{147, 5}, {4608, 27}, {20480, 113}};
  for (const auto& [k, events] : rows) {
    const Tolerance fp16 = tolerance_for(PrecisionPath::tf32, PrecisionPath::fp16, Check::candidate, k);
    const Tolerance tf32 = tolerance_for(PrecisionPath::tf32, PrecisionPath::tf32, Check::candidate, k);
    EXPECT_NEAR(fp16.atol - tf32.atol, events * std::ldexp(1.0, -25), 1e-15) << "K=" << k;
    EXPECT_EQ(fp16.rtol, tf32.rtol);
    // The source check has no Vortex side: no subnormal term.
    EXPECT_EQ(tolerance_for(PrecisionPath::tf32, PrecisionPath::fp16, Check::source, k).atol, tf32.atol);
  }
}

// A systematic relative error that every element hides inside atol (the signature of tf32
// operands truncated instead of rounded at large K) fails the bias check; the same spread
// without the bias passes; paths without a bias limit do not check it.
TEST(Equivalence, BiasCheckCatchesASystematicError) {
  const Tolerance tol = tolerance_for(PrecisionPath::tf32, PrecisionPath::fp16, Check::source, 20480);
  ASSERT_GT(tol.max_bias, 0.0);
  EXPECT_NEAR(tol.max_bias, std::ldexp(1.0, -24) * 5120, 1e-15);  // half an ulp per block of 4
  Tensor e(DType::f32, {4000}, "expected"), unbiased(DType::f32, {4000}, "unbiased"), biased(DType::f32, {4000}, "biased");
  SplitMix64 rng(17);
  for (std::int64_t i = 0; i < e.numel(); ++i) {
    const double y = 1.5 * rng.uniform_pm1(), noise = 3e-4 * rng.uniform_pm1();
    e.set(i, static_cast<float>(y));
    unbiased.set(i, static_cast<float>(y + noise));
    biased.set(i, static_cast<float>(y * (1.0 - 6.8e-4) + noise));
  }
  const auto good = compare_outputs(e, unbiased, tol);
  EXPECT_TRUE(good.passed()) << good.text();
  EXPECT_TRUE(good.bias_checked);
  const auto bad = compare_outputs(e, biased, tol);
  EXPECT_EQ(bad.failed, 0);  // every element is within atol + rtol |y| ...
  EXPECT_TRUE(bad.bias_failed()) << bad.text();  // ... but the output as a whole is biased
  EXPECT_FALSE(bad.passed());
  EXPECT_NEAR(bad.bias_slope, -6.8e-4, 2e-5);
  EXPECT_NE(bad.text().find("systematic"), std::string::npos);
  EXPECT_EQ(bad.to_json()["bias_failed"], true);
  // fp32 sets no bias limit; a report with few elements makes no bias check.
  EXPECT_LT(tolerance_for(PrecisionPath::fp32, PrecisionPath::fp32, Check::source, 20480).max_bias, 0.0);
  Tolerance loose = tol;
  loose.atol = 1.0;
  EXPECT_FALSE(compare_outputs(filled(DType::f32, {kBiasMinElements - 1}, 1.0f, "e"),
                               filled(DType::f32, {kBiasMinElements - 1}, 0.99f, "a"), loose)
                   .bias_checked);
}

// bf16/fp16 outputs: a candidate that converts its fp32 result to the output type by truncation
// instead of rounding to nearest stays within one output ulp of a correct result, so no element
// fails; its bias, -(2/3) u_out for outputs of unit scale (docs/tolerances.md), fails the check.
// A correct result (rounded to nearest from a slightly different fp32 value) passes both.
TEST(Equivalence, BiasCheckCatchesTruncatedNarrowOutputs) {
  for (const PrecisionPath p : {PrecisionPath::bf16, PrecisionPath::fp16}) {
    SCOPED_TRACE(to_string(p));
    const DType t = storage_dtype(p);
    const double u = unit_roundoff(t);
    const Tolerance tol = tolerance_for(p, p, Check::source, 2048);
    ASSERT_GT(tol.max_bias, 0.0);
    EXPECT_NEAR(tol.max_bias, std::ldexp(1.0, -24) * 512, 1e-15);  // the accumulation's share only
    const Shape shape = {8000};
    Tensor e(t, shape, "expected"), good(t, shape, "rounded"), bad(t, shape, "truncated");
    SplitMix64 rng(23);
    for (std::int64_t i = 0; i < e.numel(); ++i) {
      double y = 0;  // ~N(0, 1), like generated outputs
      for (int j = 0; j < 12; ++j) y += 0.5 * rng.uniform_pm1();
      const float y32 = static_cast<float>(y);
      const float other = static_cast<float>(y * (1.0 + 1e-5 * rng.uniform_pm1()));  // another correct fp32 sum
      e.set(i, round_fp64_to(t, y32));
      good.set(i, round_fp64_to(t, other));
      bad.set(i, emulate::truncate_to(t, y32));
    }
    const auto ok = compare_outputs(e, good, tol);
    EXPECT_TRUE(ok.passed()) << ok.text();
    EXPECT_TRUE(ok.bias_checked);
    const auto r = compare_outputs(e, bad, tol);
    EXPECT_EQ(r.failed, 0) << r.text();         // every element within one output ulp ...
    EXPECT_TRUE(r.bias_failed()) << r.text();  // ... but all of them toward zero
    EXPECT_NEAR(r.bias_slope, -2.0 / 3.0 * u, 0.1 * u) << r.text();
    EXPECT_GT(std::fabs(r.bias_slope), 3.0 * r.bias_limit) << r.text();
  }
}

// The source check of an op whose activation the vendor runs as its own kernel allows that
// kernel's bias (rn(act(rn(z))) against rn(act(z)), docs/tolerances.md): pinned per activation and
// output type. relu maps the grid onto itself (no bias); the candidate check has none.
TEST(Equivalence, UnfusedActivationBiasIsPinned) {
  struct Row {
    Activation a;
    PrecisionPath p;
    double bias;
  };
  const Row rows[] = {{Activation::relu, PrecisionPath::bf16, 0.0},
                      {Activation::gelu_tanh, PrecisionPath::bf16, 1.827e-4},
                      {Activation::gelu, PrecisionPath::bf16, 2.107e-4},
                      {Activation::silu, PrecisionPath::bf16, 1.208e-4},
                      {Activation::gelu_tanh, PrecisionPath::fp16, 1.131e-5},
                      {Activation::silu, PrecisionPath::fp16, 2.456e-6}};
  for (const Row& r : rows) {
    const OpSpec plain = make_linear("fc1", r.p, 256, 4304, 1152, true);
    const OpSpec with = make_linear("fc1", r.p, 256, 4304, 1152, true, r.a);
    const double extra = tolerance_for(with, Check::source).max_bias - tolerance_for(plain, Check::source).max_bias;
    std::printf("unfused %s, %s: bias allowance %.4g\n", to_string(r.a).c_str(), to_string(r.p).c_str(), extra);
    EXPECT_NEAR(extra, r.bias, 0.01 * r.bias + 1e-12) << to_string(r.a) << " " << to_string(r.p);
    EXPECT_EQ(tolerance_for(with, Check::candidate).max_bias, tolerance_for(plain, Check::candidate).max_bias);
    // far below what an output truncation costs, (2/3) u_out
    EXPECT_LT(extra, 0.1 * unit_roundoff(storage_dtype(r.p)));
  }
}

TEST(Equivalence, ReferenceAgainstItselfAndPerturbed) {
  const OpSpec s = make_conv("c", PrecisionPath::bf16, 1, 16, 8, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true);
  const auto in = generate_inputs(s, 4);
  const Tensor y = compute_reference(s, in);
  const Tolerance tol = tolerance_for(s, Check::source);
  EXPECT_TRUE(compare_outputs(y, y, tol).passed());
  Tensor z = y;
  // One ulp everywhere, up or down at random, passes (two roundings to nearest); one ulp
  // everywhere away from zero is within tolerance element by element but a systematic error
  // (the bias check); three ulps at a value of order one fails.
  SplitMix64 rng(5);
  for (std::int64_t i = 0; i < z.numel(); ++i) z.set_bits(i, (rng.next() & 1) ? z.bits(i) + 1 : z.bits(i) - 1);
  EXPECT_TRUE(compare_outputs(y, z, tol).passed()) << compare_outputs(y, z, tol).text();
  z = y;
  for (std::int64_t i = 0; i < z.numel(); ++i) z.set_bits(i, z.bits(i) + 1);
  const auto up = compare_outputs(y, z, tol);
  EXPECT_EQ(up.failed, 0);
  EXPECT_TRUE(up.bias_failed()) << up.text();
  std::int64_t big = 0;
  while (std::fabs(y.get(big)) < 0.5f) ++big;
  z = y;
  z.set_bits(big, z.bits(big) + 3);
  const auto r = compare_outputs(y, z, tol);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.worst_index, big);
}

namespace {

// Runs f with $VXSYNTH_THREADS set to n (the chunked host loops read it), restoring it after.
template <typename F>
auto with_threads(int n, F f) {
  const char* old = std::getenv("VXSYNTH_THREADS");
  const std::string saved = old ? old : "";
  setenv("VXSYNTH_THREADS", std::to_string(n).c_str(), 1);
  auto r = f();
  if (old) setenv("VXSYNTH_THREADS", saved.c_str(), 1);
  else unsetenv("VXSYNTH_THREADS");
  return r;
}

}  // namespace

// The comparison runs in chunks of 2^18 elements on several threads: at an output of three
// chunks and more, with failures planted across chunk edges, it reports what one pass reports.
TEST(Equivalence, ChunkedCompareMatchesOnePassOnALargeOutput) {
  const Shape shape{1001, 733};  // 733 733 elements: 3 chunks, the last one partial
  Tensor e(DType::f32, shape, "e");
  SplitMix64 rng(99);
  for (std::int64_t i = 0; i < e.numel(); ++i) e.set(i, static_cast<float>(rng.uniform_pm1()));
  Tensor a = e;
  const Tolerance tol{1e-3, 1e-3};
  std::vector<std::int64_t> beyond = {5, 262143, 262144, 500000, 733732};
  for (auto i : beyond) a.set(i, e.get(i) + 0.5f);
  // Two elements with the same, largest error ratio in different chunks: the first one is the worst.
  e.set(300000, 0.0f);
  a.set(300000, 2.0f);
  e.set(700000, 0.0f);
  a.set(700000, 2.0f);
  a.set_bits(600001, poison_bits(DType::f32));
  a.set_bits(262200, poison_bits(DType::f32));
  a.set(400000, std::numeric_limits<float>::quiet_NaN());

  std::vector<std::int64_t> all(static_cast<std::size_t>(e.numel()));
  std::vector<float> values(all.size());
  for (std::int64_t i = 0; i < e.numel(); ++i) {
    all[static_cast<std::size_t>(i)] = i;
    values[static_cast<std::size_t>(i)] = e.get(i);
  }
  const EquivalenceReport one_pass = compare_selected(values, a, all, tol);  // a single accumulator
  for (int threads : {1, 3, 8}) {
    const EquivalenceReport r = with_threads(threads, [&] { return compare_outputs(e, a, tol); });
    SCOPED_TRACE("threads " + std::to_string(threads));
    EXPECT_EQ(r.count, e.numel());
    EXPECT_EQ(r.count, one_pass.count);
    EXPECT_EQ(r.failed, one_pass.failed);
    EXPECT_EQ(r.failed, 5 + 2 + 2 + 1);
    EXPECT_EQ(r.beyond_tolerance, 7);
    EXPECT_EQ(r.unwritten_count, 2);
    EXPECT_EQ(r.nan_count, 1);
    EXPECT_EQ(r.first_unwritten_index, 262200);
    EXPECT_EQ(r.finite_pairs, one_pass.finite_pairs);
    EXPECT_EQ(r.max_abs_error, one_pass.max_abs_error);
    EXPECT_EQ(r.max_rel_error, one_pass.max_rel_error);
    // Unwritten elements rank above finite errors: the first unwritten one is the worst.
    EXPECT_EQ(r.worst_index, one_pass.worst_index);
    EXPECT_EQ(r.worst_index, 262200);
    EXPECT_EQ(r.bias_checked, one_pass.bias_checked);
    EXPECT_NEAR(r.bias_slope, one_pass.bias_slope, 1e-12);
  }
  // Without the unwritten and NaN elements the worst is the first of the two equal ratios.
  a.set(600001, e.get(600001));
  a.set(262200, e.get(262200));
  a.set(400000, e.get(400000));
  const EquivalenceReport r = with_threads(8, [&] { return compare_outputs(e, a, tol); });
  EXPECT_EQ(r.worst_index, 300000);
  EXPECT_EQ(r.failed, 7);
}

// Inputs are drawn in chunks on several threads from one counter stream: the values are those
// of one sequential stream, whatever the thread count.
TEST(Inputs, ChunkedDrawsAreOneSequentialStream) {
  SplitMix64 sequential(1234), jumped(1234);
  for (int i = 0; i < 1000; ++i) sequential.next();
  jumped.skip(1000);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(sequential.next(), jumped.next());

  // A weight of 700 x 900 = 630 000 draws: three chunks.
  const OpSpec s = make_linear("big", PrecisionPath::bf16, 37, 700, 900, true);
  const auto one = with_threads(1, [&] { return generate_inputs(s, 21); });
  const auto many = with_threads(7, [&] { return generate_inputs(s, 21); });
  ASSERT_EQ(one.size(), many.size());
  for (std::size_t t = 0; t < one.size(); ++t) {
    ASSERT_EQ(one[t].numel(), many[t].numel());
    std::int64_t differ = 0;
    for (std::int64_t i = 0; i < one[t].numel(); ++i) differ += one[t].bits(i) != many[t].bits(i);
    EXPECT_EQ(differ, 0) << one[t].name();
  }
  // The draw of element i of the weight is the stream's (i+1)-th: the ratio of two elements'
  // values is the ratio of their draws (one scale for the whole tensor), across chunk edges.
  const Tensor& w = one[1];
  SplitMix64 seeder(21ull ^ (0xa0761d6478bd642full * 2));
  SplitMix64 stream(seeder.next());
  std::vector<double> draws;
  for (std::int64_t i = 0; i < w.numel(); ++i) draws.push_back(stream.uniform_pm1());
  std::size_t big = 0;  // the largest draw gives the scale to within the element's rounding
  for (std::size_t i = 0; i < draws.size(); ++i) big = std::fabs(draws[i]) > std::fabs(draws[big]) ? i : big;
  const double scale = w.get(static_cast<std::int64_t>(big)) / draws[big];
  for (std::int64_t i : {std::int64_t{1}, std::int64_t{262143}, std::int64_t{262144}, std::int64_t{524288}, w.numel() - 1}) {
    EXPECT_NEAR(w.get(i), scale * draws[static_cast<std::size_t>(i)], 1e-2 * std::fabs(scale)) << i;
  }
}
