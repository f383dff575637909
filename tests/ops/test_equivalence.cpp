#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/error.h"
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
      {PrecisionPath::tf32, Check::source, 4608, 6.146e-04, 9.682e-05},
      {PrecisionPath::tf32, Check::candidate, 147, 9.739e-04, 7.331e-06},
      {PrecisionPath::tf32, Check::source, 2, 4.144e-03, 7.628e-07},
      {PrecisionPath::bf16, Check::source, 2048, 4.921e-05, 7.862e-03},
      {PrecisionPath::bf16, Check::candidate, 16384, 2.970e-04, 8.109e-03},
      {PrecisionPath::fp16, Check::candidate, 2048, 4.927e-05, 1.026e-03},
  };
  for (const Row& r : rows) {
    const Tolerance t = tolerance_for(r.p, vortex_path_for(r.p), r.c, r.k);
    EXPECT_NEAR(t.atol, r.atol, r.atol * 1e-3) << to_string(r.p) << " " << to_string(r.c) << " K=" << r.k;
    EXPECT_NEAR(t.rtol, r.rtol, r.rtol * 1e-3) << to_string(r.p) << " " << to_string(r.c);
  }
  // The accumulation part grows with K (tf32's tie term shrinks like 1/sqrt(K) at first).
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

TEST(Equivalence, ReferenceAgainstItselfAndPerturbed) {
  const OpSpec s = make_conv("c", PrecisionPath::bf16, 1, 16, 8, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true);
  const auto in = generate_inputs(s, 4);
  const Tensor y = compute_reference(s, in);
  const Tolerance tol = tolerance_for(s, Check::source);
  EXPECT_TRUE(compare_outputs(y, y, tol).passed());
  Tensor z = y;
  // One ulp everywhere passes (two roundings), three ulps at a value of order one fails.
  for (std::int64_t i = 0; i < z.numel(); ++i) z.set_bits(i, z.bits(i) + 1);
  EXPECT_TRUE(compare_outputs(y, z, tol).passed());
  std::int64_t big = 0;
  while (std::fabs(y.get(big)) < 0.5f) ++big;
  z = y;
  z.set_bits(big, z.bits(big) + 3);
  const auto r = compare_outputs(y, z, tol);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.worst_index, big);
}
