// The blocked, multithreaded reference against the per-element definition (reference_terms) on
// small odd shapes for every op, layout and path, and the definition against hand-computed values.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "common/error.h"
#include "ops/gemm_kernel.h"
#include "ops/inputs.h"
#include "ops/reference.h"

using namespace vxsynth;
using namespace vxsynth::ops;

namespace {

std::vector<OpSpec> odd_specs(PrecisionPath p) {
  const auto last = ConvLayout::channels_last, first = ConvLayout::channels_first;
  return {
      make_linear("lin", p, 67, 13, 301),  // crosses the 64-row chunk, k blocks and lane tails
      make_linear("lin_bias_gelu", p, 5, 9, 3, true, Activation::gelu_tanh),
      make_linear("lin_wide", p, 3, 201, 77, true),  // few rows: columns split across threads
      make_linear("lin_bias_relu", p, 3, 7, 37, true, Activation::relu),
      make_linear("lin_silu", p, 1, 1, 1, false, Activation::silu),
      make_linear("lin_gelu", p, 2, 3, 5, true, Activation::gelu),
      make_matmul("mm", p, {}, {}, 7, 5, 9),
      make_matmul("mm_ta", p, {3}, {3}, 7, 5, 9, true, false),
      make_matmul("mm_tb_bcast", p, {2, 1}, {3}, 5, 6, 11, false, true),
      make_matmul("mm_tatb", p, {1}, {2, 3}, 3, 4, 5, true, true),
      make_matmul("mm_big_unbatched", p, {}, {}, 70, 130, 33, true, false),
      make_conv("c1", p, 2, 3, 5, {17}, {3}, {1}, {1}, {1}, 1, true, first),
      make_conv("c1_nlc_s2_d2", p, 1, 4, 6, {19}, {3}, {2}, {2}, {2}, 2, false, last, Activation::relu),
      make_conv("c1_k5", p, 1, 7, 3, {4}, {5}, {1}, {2}, {1}),
      make_conv("c2", p, 2, 3, 4, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, first),
      make_conv("c2_nhwc_s2", p, 1, 3, 5, {11, 10}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, 1, false, last),
      make_conv("c2_groups_dil", p, 1, 6, 4, {8, 9}, {3, 2}, {2, 1}, {2, 0}, {2, 3}, 2, true, first),
      make_conv("c2_nhwc_groups", p, 2, 4, 8, {5, 6}, {1, 3}, {1, 2}, {0, 1}, {1, 1}, 4, true, last),
      make_conv("c2_depthwise", p, 1, 5, 5, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 5),
      make_conv("c1_wide_groups", p, 1, 6, 262, {3}, {3}, {1}, {1}, {1}, 2, true, last),
  };
}

}  // namespace

TEST(Reference, BlockedMatchesDefinitionOnOddShapes) {
  for (PrecisionPath p : {PrecisionPath::fp32, PrecisionPath::tf32, PrecisionPath::bf16, PrecisionPath::fp16}) {
    for (const OpSpec& spec : odd_specs(p)) {
      const auto inputs = generate_inputs(spec, 1234);
      for (Side side : {Side::cuda, Side::vortex}) {
        for (int threads : {1, 2}) {
          const Tensor y = compute_reference(spec, inputs, {side, threads});
          ASSERT_EQ(y.shape(), spec.output().shape);
          ASSERT_EQ(y.dtype(), storage_dtype(p));
          std::vector<std::int64_t> all(static_cast<std::size_t>(y.numel()));
          for (std::int64_t i = 0; i < y.numel(); ++i) all[static_cast<std::size_t>(i)] = i;
          const auto exact = reference_elements_exact(spec, inputs, all, side);
          for (std::int64_t i = 0; i < y.numel(); ++i) {
            ASSERT_EQ(y.get(i), round_fp64_to(y.dtype(), exact[static_cast<std::size_t>(i)]))
                << spec.name << " " << to_string(p) << " side " << static_cast<int>(side) << " element " << i
                << " " << shape_to_string(unravel_index(y.shape(), i));
          }
        }
      }
    }
  }
}

TEST(Reference, VortexSideOfTf32RoundsInputsToFp16) {
  const OpSpec spec = make_linear("l", PrecisionPath::tf32, 3, 4, 50);
  EXPECT_EQ(spec.vortex_precision, PrecisionPath::fp16);
  const auto inputs = generate_inputs(spec, 5);
  const ElementTerms cuda = reference_terms(spec, inputs, 5, Side::cuda);
  const ElementTerms vx = reference_terms(spec, inputs, 5, Side::vortex);
  int differ = 0;
  for (std::size_t k = 0; k < cuda.a.size(); ++k) {
    EXPECT_EQ(vx.a[k], round_to_fp16(inputs[0].get(1 * 50 + static_cast<std::int64_t>(k))));
    EXPECT_EQ(cuda.a[k], round_to_tf32(inputs[0].get(1 * 50 + static_cast<std::int64_t>(k))));
    differ += vx.b[k] != cuda.b[k];  // weights ~0.4: fp16 keeps 10 bits like tf32, ties differ
  }
  EXPECT_LE(differ, 50);
}

namespace {

Tensor from_values(DType t, Shape shape, const std::vector<float>& v, const char* name) {
  Tensor x(t, std::move(shape), name);
  x.assign_floats(v);
  return x;
}

std::vector<float> run(const OpSpec& spec, const std::vector<Tensor>& inputs) {
  return compute_reference(spec, inputs).to_floats();
}

}  // namespace

TEST(Reference, HandComputedValues) {
  const DType f = DType::f32;
  // linear: [1 2] . [[3 4] [5 6]]^T + [0.5 -1]
  const OpSpec lin = make_linear("l", PrecisionPath::fp32, 1, 2, 2, true);
  EXPECT_EQ(run(lin, {from_values(f, {1, 2}, {1, 2}, "x"), from_values(f, {2, 2}, {3, 4, 5, 6}, "weight"),
                      from_values(f, {2}, {0.5f, -1}, "bias")}),
            (std::vector<float>{11.5f, 16.0f}));
  // relu after bias
  const OpSpec lin_relu = make_linear("l", PrecisionPath::fp32, 1, 2, 2, true, Activation::relu);
  EXPECT_EQ(run(lin_relu, {from_values(f, {1, 2}, {1, 2}, "x"), from_values(f, {2, 2}, {3, 4, -5, -6}, "weight"),
                           from_values(f, {2}, {0.5f, -1}, "bias")}),
            (std::vector<float>{11.5f, 0.0f}));

  const std::vector<float> img{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const Tensor x33 = from_values(f, {1, 1, 3, 3}, img, "input");
  const Tensor ones = from_values(f, {1, 1, 2, 2}, {1, 1, 1, 1}, "weight");
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 1, 1, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}), {x33, ones}),
            (std::vector<float>{12, 16, 24, 28}));
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 1, 1, {3, 3}, {2, 2}, {2, 2}, {1, 1}, {1, 1}), {x33, ones}),
            (std::vector<float>{1, 5, 11, 28}));
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 1, 1, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {2, 2}), {x33, ones}),
            (std::vector<float>{20}));
  // weight position matters: kernel [[1 10] [100 1000]]
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 1, 1, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}),
                {x33, from_values(f, {1, 1, 2, 2}, {1, 10, 100, 1000}, "weight")}),
            (std::vector<float>{1 + 20 + 400 + 5000, 2 + 30 + 500 + 6000, 4 + 50 + 700 + 8000, 5 + 60 + 800 + 9000}));
  // NHWC with 2 channels, 1x1 kernel, 3 outputs: y[pos][co] = sum_ci x[pos][ci] w[co][ci]
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 2, 3, {1, 2}, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, false,
                          ConvLayout::channels_last),
                {from_values(f, {1, 1, 2, 2}, {1, 2, 3, 4}, "input"),
                 from_values(f, {3, 1, 1, 2}, {1, 0, 0, 1, 1, 1}, "weight")}),
            (std::vector<float>{1, 2, 3, 3, 4, 7}));
  // groups = 2: output channel 0 sees input channel 0 only, channel 1 sees channel 1.
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 2, 2, {2}, {1}, {1}, {0}, {1}, 2),
                {from_values(f, {1, 2, 2}, {1, 2, 30, 40}, "input"), from_values(f, {2, 1, 1}, {2, 3}, "weight")}),
            (std::vector<float>{2, 4, 90, 120}));
  // conv1d padding 1, kernel 3: [0 1 2][1 2 3][2 3 0] . [1 1 1]
  EXPECT_EQ(run(make_conv("c", PrecisionPath::fp32, 1, 1, 1, {3}, {3}, {1}, {1}, {1}),
                {from_values(f, {1, 1, 3}, {1, 2, 3}, "input"), from_values(f, {1, 1, 3}, {1, 1, 1}, "weight")}),
            (std::vector<float>{3, 6, 5}));
  // matmul: A [2,1,1,2] broadcast against B [3,2,1] -> [2,3,1,1]; transpose_b stores B as [N,K]
  EXPECT_EQ(run(make_matmul("m", PrecisionPath::fp32, {2, 1}, {3}, 1, 1, 2, false, true),
                {from_values(f, {2, 1, 1, 2}, {1, 2, 3, 4}, "a"),
                 from_values(f, {3, 1, 2}, {1, 0, 0, 1, 1, 1}, "b")}),
            (std::vector<float>{1, 2, 3, 3, 4, 7}));
  // transpose_a stores A as [K,M]: A^T = [[1 2] [3 4]] -> A = [[1 3] [2 4]]; B = I
  EXPECT_EQ(run(make_matmul("m", PrecisionPath::fp32, {}, {}, 2, 2, 2, true, false),
                {from_values(f, {2, 2}, {1, 2, 3, 4}, "a"), from_values(f, {2, 2}, {1, 0, 0, 1}, "b")}),
            (std::vector<float>{1, 3, 2, 4}));
}

TEST(Reference, RoundsOnceFromFp64) {
  // 1 + 2^-8 + 2^-30: fp32 accumulation then bf16 would see the tie 1 + 2^-8 (-> 1.0, even); one
  // rounding of the exact sum goes up to 1 + 2^-7.
  const OpSpec s = make_linear("l", PrecisionPath::bf16, 1, 1, 3);
  const float third = std::ldexp(1.0f, -30);
  const Tensor x = from_values(DType::bf16, {1, 3}, {1.0f, std::ldexp(1.0f, -8), third}, "x");
  const Tensor w = from_values(DType::bf16, {1, 3}, {1, 1, 1}, "weight");
  EXPECT_EQ(run(s, {x, w})[0], 1.0f + std::ldexp(1.0f, -7));
}

TEST(Reference, InputErrors) {
  const OpSpec s = make_linear("l", PrecisionPath::bf16, 2, 3, 4, true);
  auto in = generate_inputs(s, 1);
  in.pop_back();
  EXPECT_THROW(compute_reference(s, in), InputError);
  auto wrong = generate_inputs(make_linear("l", PrecisionPath::fp32, 2, 3, 4, true), 1);
  try {
    compute_reference(s, wrong);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bfloat16"), std::string::npos) << e.what();
  }
  auto bad_shape = generate_inputs(make_linear("l", PrecisionPath::bf16, 2, 3, 5, true), 1);
  EXPECT_THROW(compute_reference(s, bad_shape), InputError);
  EXPECT_THROW(reference_terms(s, generate_inputs(s, 1), 6), InputError);
}

TEST(Inputs, DeterministicScaledNeverZero) {
  const OpSpec s = make_conv("c", PrecisionPath::bf16, 1, 64, 32, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true);
  const auto a = generate_inputs(s, 77), b = generate_inputs(s, 77), c = generate_inputs(s, 78);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t t = 0; t < a.size(); ++t) {
    EXPECT_EQ(a[t].name(), s.inputs()[t].name);
    EXPECT_EQ(*a[t].seed(), 77u);
    double sum2 = 0, maxabs = 0;
    std::int64_t zeros = 0, same_as_other_seed = 0;
    for (std::int64_t i = 0; i < a[t].numel(); ++i) {
      ASSERT_EQ(a[t].bits(i), b[t].bits(i));
      same_as_other_seed += a[t].bits(i) == c[t].bits(i);
      zeros += a[t].get(i) == 0.0f;
      sum2 += a[t].get(i) * a[t].get(i);
      maxabs = std::max(maxabs, std::fabs(static_cast<double>(a[t].get(i))));
    }
    EXPECT_LT(same_as_other_seed, a[t].numel() / 10 + 2);
    EXPECT_LT(zeros, a[t].numel() / 100 + 2);
    EXPECT_LE(maxabs, generated_bound(s, t));
    const double rms = std::sqrt(sum2 / static_cast<double>(a[t].numel()));
    EXPECT_NEAR(rms, generated_bound(s, t) / std::sqrt(3.0), 0.15 * generated_bound(s, t));
  }
  // Outputs of order one: rms of the (pre-activation) output close to sqrt(1 + var(bias)).
  const Tensor y = compute_reference(s, a);
  double sum2 = 0;
  for (std::int64_t i = 0; i < y.numel(); ++i) sum2 += y.get(i) * y.get(i);
  const double rms = std::sqrt(sum2 / static_cast<double>(y.numel()));
  EXPECT_GT(rms, 0.6);  // zero padding at the borders lowers it a little
  EXPECT_LT(rms, 1.3);
}

// The kernel runs as an AVX2+FMA copy where the CPU has it and as a baseline copy elsewhere:
// both must give the same bits (the reference may not depend on the machine).
TEST(Reference, KernelCopiesAgreeBitForBit) {
  SplitMix64 rng(8);
  for (const auto [m, n, k] : {std::array<std::int64_t, 3>{1, 1, 1}, {5, 3, 7}, {13, 9, 300}, {64, 33, 1031}}) {
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(n * k));
    for (float& v : a) v = static_cast<float>(rng.uniform_pm1());
    for (float& v : b) v = static_cast<float>(rng.uniform_pm1() * 1e-3);
    std::vector<double> c1(static_cast<std::size_t>(m * n)), c2(c1.size());
    gemm_nt_f64(a.data(), k, b.data(), k, m, n, k, c1.data(), n);
    gemm_nt_f64_baseline(a.data(), k, b.data(), k, m, n, k, c2.data(), n);
    for (std::size_t i = 0; i < c1.size(); ++i) ASSERT_EQ(c1[i], c2[i]) << m << "x" << n << "x" << k << " at " << i;
  }
}
