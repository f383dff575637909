// The layout-transform op kind: spec fields and errors, the CPU reference (a permute, checked
// against an independent per-coordinate formula on odd sizes), and the exact equivalence check.
#include <gtest/gtest.h>

#include <cstring>

#include "common/error.h"
#include "common/json_io.h"
#include "ops/equivalence.h"
#include "ops/inputs.h"
#include "ops/op_spec.h"
#include "ops/reference.h"

using namespace vxsynth;
using namespace vxsynth::ops;

namespace {

template <typename F>
void expect_input_error(F f, std::initializer_list<const char*> fragments) {
  try {
    f();
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    for (const char* frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
  }
}

Json transform_json() {
  return Json::parse(R"({"schema": "vxsynth.op/1", "kind": "layout_transform", "precision": "fp32",
    "transform": {"batch": 3, "channels": 7, "spatial": [5], "from": "NCL", "to": "NLC"}})");
}

// Flat index of logical (n, c, pos) in a tensor of `layout`.
std::int64_t flat_of(const TransformParams& p, ConvLayout layout, std::int64_t n, std::int64_t c, std::int64_t pos) {
  const std::int64_t P = p.positions(), C = p.channels;
  return layout == ConvLayout::channels_first ? (n * C + c) * P + pos : (n * P + pos) * C + c;
}

}  // namespace

TEST(Transform, SpecShapesAndRoundTrip) {
  const OpSpec w = read_op_spec("data/ops/dp_weight_transform.json");
  EXPECT_EQ(w.kind, OpKind::layout_transform);
  EXPECT_EQ(w.transform.tensor, "weight");
  ASSERT_EQ(w.inputs().size(), 1u);
  EXPECT_EQ(w.inputs()[0].name, "x");
  EXPECT_EQ(w.inputs()[0].shape, (Shape{2048, 2048, 5}));
  EXPECT_EQ(w.output().shape, (Shape{2048, 5, 2048}));
  EXPECT_EQ(w.reduction_length(), 1);
  EXPECT_EQ(w.flops(), 0.0);
  EXPECT_FALSE(w.has_bias());
  const GemmView g = w.gemm_view();
  EXPECT_EQ(g.batch, 2048);
  EXPECT_EQ(g.m, 2048);
  EXPECT_EQ(g.n, 5);

  const OpSpec b = read_op_spec("data/ops/small_transform_bf16.json");
  EXPECT_EQ(b.inputs()[0].shape, (Shape{3, 5, 7, 37}));
  EXPECT_EQ(b.output().shape, (Shape{3, 37, 5, 7}));
  EXPECT_EQ(b.output().dtype, DType::bf16);
  EXPECT_EQ(b.vortex_precision, PrecisionPath::bf16);
  EXPECT_EQ(b.transform.tensor, "activation");  // the default

  for (const OpSpec& s : {w, b}) {
    const OpSpec back = op_spec_from_json(op_spec_to_json(s), "round trip");
    EXPECT_EQ(op_spec_to_json(back), op_spec_to_json(s));
  }
  // A plain integer stands for a one-entry spatial list.
  Json j = transform_json();
  j["transform"]["spatial"] = 9;
  EXPECT_EQ(op_spec_from_json(j, "t.json").transform.spatial, (std::vector<std::int64_t>{9}));
}

TEST(Transform, ClearErrors) {
  expect_input_error([] { read_op_spec("data/ops/bad_transform_tf32.json"); },
                     {"bad_transform_tf32.json", "precision", "without arithmetic"});
  auto with = [](const char* key, Json value) {
    Json j = transform_json();
    j["transform"][key] = std::move(value);
    return j;
  };
  expect_input_error([&] { op_spec_from_json(with("to", "NCL"), "t.json"); }, {"t.json", "transform.to", "equals"});
  expect_input_error([&] { op_spec_from_json(with("from", "NCHW"), "t.json"); },
                     {"transform.from", "\"NCL\" or \"NLC\""});
  expect_input_error([&] { op_spec_from_json(with("spatial", Json::array({2, 3, 4})), "t.json"); },
                     {"transform.spatial"});
  expect_input_error([&] { op_spec_from_json(with("channels", 0), "t.json"); }, {"transform.channels", "positive"});
  expect_input_error([&] { op_spec_from_json(with("tensor", "bias"), "t.json"); }, {"transform.tensor", "weight"});
  expect_input_error([&] { op_spec_from_json(with("chanels", 3), "t.json"); }, {"transform.chanels", "unknown field"});
  Json j = transform_json();
  j["transform"].erase("from");
  expect_input_error([&] { op_spec_from_json(j, "t.json"); }, {"transform.from", "missing"});
  j = transform_json();
  j["conv"] = j["transform"];
  expect_input_error([&] { op_spec_from_json(j, "t.json"); }, {"conv", "does not belong"});
  j = transform_json();
  j["vortex_precision"] = "fp16";
  expect_input_error([&] { op_spec_from_json(j, "t.json"); }, {"vortex_precision"});
}

// Every element of every direction, rank and dtype, against the per-coordinate definition, on
// odd sizes (nothing is a multiple of a tile or a vector width).
TEST(Transform, ReferenceIsThePermuteBitForBit) {
  for (PrecisionPath path : {PrecisionPath::fp32, PrecisionPath::bf16, PrecisionPath::fp16}) {
    for (const std::vector<std::int64_t>& spatial : {std::vector<std::int64_t>{5}, std::vector<std::int64_t>{3, 7}}) {
      for (ConvLayout from : {ConvLayout::channels_first, ConvLayout::channels_last}) {
        const ConvLayout to = from == ConvLayout::channels_first ? ConvLayout::channels_last : ConvLayout::channels_first;
        const OpSpec s = make_transform("t", path, 3, 11, spatial, from, to);
        const auto in = generate_inputs(s, 41);
        const Tensor y = compute_reference(s, in);
        ASSERT_EQ(y.shape(), s.output().shape);
        const Tensor vy = compute_reference(s, in, {Side::vortex, 1});
        const TransformParams& p = s.transform;
        for (std::int64_t n = 0; n < p.batch; ++n) {
          for (std::int64_t c = 0; c < p.channels; ++c) {
            for (std::int64_t pos = 0; pos < p.positions(); ++pos) {
              const std::int64_t src = flat_of(p, from, n, c, pos), dst = flat_of(p, to, n, c, pos);
              ASSERT_EQ(y.bits(dst), in[0].bits(src)) << to_string(path) << " n " << n << " c " << c << " pos " << pos;
              ASSERT_EQ(vy.bits(dst), y.bits(dst));
              ASSERT_EQ(transform_source_index(p, dst), src);
            }
          }
        }
        // reference_terms: one term, the moved value times one.
        const ElementTerms t = reference_terms(s, in, y.numel() - 2);
        ASSERT_EQ(t.a.size(), 1u);
        EXPECT_EQ(t.a[0], y.get(y.numel() - 2));
        EXPECT_EQ(t.b[0], 1.0f);
        // There and back is the identity.
        const OpSpec back = make_transform("back", path, 3, 11, spatial, to, from);
        Tensor yy = y;
        yy.set_name("x");
        const Tensor z = compute_reference(back, {yy});
        for (std::int64_t i = 0; i < z.numel(); ++i) ASSERT_EQ(z.bits(i), in[0].bits(i));
      }
    }
  }
}

TEST(Transform, ExactCheckFailsAnyDifferingBit) {
  const OpSpec s = make_transform("t", PrecisionPath::fp32, 2, 9, {5}, ConvLayout::channels_first,
                                  ConvLayout::channels_last);
  for (Check c : {Check::source, Check::candidate}) {
    const Tolerance t = tolerance_for(s, c);
    EXPECT_TRUE(t.exact);
    EXPECT_EQ(t.atol, 0.0);
    EXPECT_EQ(t.rtol, 0.0);
  }
  const auto in = generate_inputs(s, 3);
  const Tensor y = compute_reference(s, in);
  const Tolerance exact = tolerance_for(s, Check::source);
  EXPECT_TRUE(compare_outputs(y, y, exact).passed());

  Tensor one_ulp = y;
  one_ulp.set_bits(17, one_ulp.bits(17) ^ 1u);
  EquivalenceReport r = compare_outputs(y, one_ulp, exact);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.bit_mismatches, 1);
  EXPECT_EQ(r.worst_index, 17);
  EXPECT_NE(r.text().find("exact"), std::string::npos);
  EXPECT_EQ(r.to_json()["exact"], true);
  // The same element under a (tiny) numeric tolerance passes: exactness is the point.
  EXPECT_TRUE(compare_outputs(y, one_ulp, Tolerance{1e-6, 1e-6}).passed());

  // -0 where +0 belongs: equal values, other bits.
  Tensor zeros(DType::f32, y.shape()), neg = zeros;
  neg.set_bits(4, 0x80000000u);
  r = compare_outputs(zeros, neg, exact);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.worst_index, 4);

  // Unwritten elements are reported as such, not as bit mismatches.
  Tensor partial = y;
  for (std::int64_t i = 40; i < 45; ++i) partial.set_bits(i, kPoisonF32);
  r = compare_outputs(y, partial, exact);
  EXPECT_EQ(r.unwritten_count, 5);
  EXPECT_EQ(r.first_unwritten_index, 40);
  EXPECT_EQ(r.bit_mismatches, 0);
  EXPECT_EQ(r.failed, 5);

  // 16-bit: one flipped low bit of a bf16 fails too.
  const OpSpec h = make_transform("h", PrecisionPath::bf16, 1, 3, {3, 5}, ConvLayout::channels_last,
                                  ConvLayout::channels_first);
  const Tensor hy = compute_reference(h, generate_inputs(h, 9));
  Tensor hbad = hy;
  hbad.set_bits(44, hbad.bits(44) ^ 1u);
  EXPECT_TRUE(compare_outputs(hy, hy, tolerance_for(h, Check::candidate)).passed());
  EXPECT_EQ(compare_outputs(hy, hbad, tolerance_for(h, Check::candidate)).bit_mismatches, 1);
  // A sampled check cannot be exact: it is refused, not passed.
  EXPECT_THROW(compare_selected({0.0f}, hy, {0}, exact), InputError);
}
