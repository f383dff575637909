#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iterator>

#include "common/error.h"
#include "common/json_io.h"
#include "temp_dir.h"
#include "ops/op_spec.h"

using namespace vxsynth;
using namespace vxsynth::ops;

namespace {

// Runs f, expects an InputError whose message mentions every fragment.
template <typename F>
void expect_input_error(F f, std::initializer_list<const char*> fragments) {
  try {
    f();
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    for (const char* frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(OpSpec, ReadsSuiteShapes) {
  const OpSpec g = read_op_spec("data/ops/pi0_gate_proj.json");
  EXPECT_EQ(g.kind, OpKind::linear);
  EXPECT_EQ(g.precision, PrecisionPath::bf16);
  EXPECT_EQ(g.vortex_precision, PrecisionPath::bf16);
  EXPECT_EQ(g.reduction_length(), 2048);
  EXPECT_EQ(g.output().shape, (Shape{816, 16384}));
  EXPECT_EQ(g.output().dtype, DType::bf16);
  EXPECT_DOUBLE_EQ(g.flops(), 2.0 * 816 * 16384 * 2048);

  const OpSpec c = read_op_spec("data/ops/act_layer4_conv.json");
  EXPECT_EQ(c.vortex_precision, PrecisionPath::fp16);
  EXPECT_EQ(c.reduction_length(), 4608);
  EXPECT_EQ(c.output().shape, (Shape{1, 512, 15, 20}));
  ASSERT_EQ(c.inputs().size(), 2u);
  EXPECT_EQ(c.inputs()[1].shape, (Shape{512, 512, 3, 3}));
  EXPECT_EQ(c.inputs()[0].dtype, DType::f32);

  // Scalars stand for one-entry lists in conv1d; defaults for stride/dilation/groups.
  const OpSpec d = read_op_spec("data/ops/dp_conv1d.json");
  EXPECT_EQ(d.kind, OpKind::conv1d);
  EXPECT_EQ(d.reduction_length(), 2048 * 5);
  EXPECT_EQ(d.output().shape, (Shape{1, 2048, 4}));
  EXPECT_EQ(d.inputs().size(), 3u);
  EXPECT_EQ(d.inputs()[2].shape, (Shape{2048}));

  const OpSpec m = read_op_spec("data/ops/act_attn_bmm.json");
  EXPECT_EQ(m.inputs()[1].shape, (Shape{8, 302, 64}));  // transpose_b: [N, K]
  EXPECT_EQ(m.output().shape, (Shape{8, 302, 302}));
}

TEST(OpSpec, JsonRoundTripEveryKind) {
  const OpSpec specs[] = {
      make_linear("l", PrecisionPath::fp16, 3, 5, 7, true, Activation::silu),
      make_matmul("m", PrecisionPath::tf32, {2, 1, 3}, {4, 1}, 5, 6, 7, true, false),
      make_conv("c1", PrecisionPath::bf16, 2, 6, 4, {11}, {3}, {2}, {1}, {2}, 2, true, ConvLayout::channels_last,
                Activation::relu),
      make_conv("c2", PrecisionPath::tf32, 1, 4, 8, {9, 7}, {3, 2}, {1, 2}, {1, 0}, {1, 1}, 4),
  };
  const test_support::TempDir dir("ops-spec");
  for (const OpSpec& s : specs) {
    const std::string path = dir / (s.name + ".json");
    write_op_spec(path, s);
    const OpSpec r = read_op_spec(path);
    EXPECT_EQ(op_spec_to_json(r), op_spec_to_json(s)) << s.name;
    EXPECT_EQ(r.output().shape, s.output().shape);
  }
  EXPECT_EQ(specs[1].output().shape, (Shape{2, 4, 3, 5, 6}));  // broadcast [2,1,3] with [4,1]
  EXPECT_EQ(specs[1].inputs()[0].shape, (Shape{2, 1, 3, 7, 5}));
  EXPECT_EQ(specs[2].output().shape, (Shape{2, 5, 4}));  // NLC: (11 + 2 - 2*2 - 1)/2 + 1 = 5
  EXPECT_EQ(specs[2].inputs()[1].shape, (Shape{4, 3, 3}));  // [Cout, k, Cin/groups]
  EXPECT_EQ(specs[3].output().shape, (Shape{1, 8, 9, 3}));
  EXPECT_EQ(specs[3].reduction_length(), 1 * 3 * 2);
}

TEST(OpSpec, ClearErrors) {
  expect_input_error([] { read_op_spec("data/ops/bad_groups.json"); }, {"bad_groups.json", "conv.groups", "divide"});
  expect_input_error([] { read_op_spec("data/ops/bad_unknown_field.json"); }, {"linear.bais", "unknown field"});
  expect_input_error([] { read_op_spec("data/ops/bad_vortex_path.json"); }, {"vortex_precision", "fp16"});
  expect_input_error([] { read_op_spec("data/ops/bad_schema.json"); }, {"bad_schema.json", "vxsynth.op/2"});
  expect_input_error([] { read_op_spec("data/ops/does_not_exist.json"); }, {"does_not_exist.json"});
  auto parse = [](const char* text) { return op_spec_from_json(Json::parse(text), "x.json"); };
  expect_input_error([&] { parse(R"({"schema":"vxsynth.op/1","kind":"gemm","precision":"fp32"})"); },
                     {"kind", "gemm"});
  expect_input_error([&] { parse(R"({"schema":"vxsynth.op/1","kind":"linear","precision":"fp64","linear":{}})"); },
                     {"precision"});
  expect_input_error([&] { parse(R"({"schema":"vxsynth.op/1","kind":"linear","precision":"fp32"})"); },
                     {"linear", "missing"});
  expect_input_error(
      [&] { parse(R"({"schema":"vxsynth.op/1","kind":"linear","precision":"fp32","linear":{"m":0,"n":1,"k":1}})"); },
      {"linear.m", "positive"});
  expect_input_error(
      [&] { parse(R"({"schema":"vxsynth.op/1","kind":"linear","precision":"fp32","linear":{"m":"8","n":1,"k":1}})"); },
      {"linear.m", "integer"});
  expect_input_error(
      [&] {
        parse(R"({"schema":"vxsynth.op/1","kind":"matmul","precision":"fp32",
                  "matmul":{"batch_a":[3],"batch_b":[4],"m":2,"n":2,"k":2}})");
      },
      {"broadcast"});
  expect_input_error(
      [&] {
        parse(R"({"schema":"vxsynth.op/1","kind":"conv2d","precision":"fp32",
                  "conv":{"batch":1,"in_channels":1,"out_channels":1,"input_size":[4,4],"kernel":[7,7]}})");
      },
      {"empty output"});
  expect_input_error(
      [&] {
        parse(R"({"schema":"vxsynth.op/1","kind":"conv2d","precision":"fp32",
                  "conv":{"batch":1,"in_channels":1,"out_channels":1,"input_size":[4,4],"kernel":[3]}})");
      },
      {"conv.kernel", "2 entries"});
  expect_input_error(
      [&] {
        parse(R"({"schema":"vxsynth.op/1","kind":"conv1d","precision":"fp32",
                  "conv":{"batch":1,"in_channels":1,"out_channels":1,"input_size":8,"kernel":3,"layout":"NCHW"}})");
      },
      {"layout", "NCL"});
  expect_input_error(
      [&] {
        parse(R"({"schema":"vxsynth.op/1","kind":"linear","precision":"fp32","linear":{"m":1,"n":1,"k":1},
                  "conv":{}})");
      },
      {"conv", "does not belong"});
}

// Random edits of a valid spec's JSON values: InputError or a valid spec, never a crash, another
// exception or an absurd allocation later on.
TEST(OpSpec, MutatedSpecsNeverCrash) {
  const Json base = op_spec_to_json(make_conv("c", PrecisionPath::tf32, 2, 6, 4, {9, 7}, {3, 3}, {1, 2}, {1, 0},
                                              {1, 1}, 2, true, ConvLayout::channels_last));
  const Json replacements[] = {Json(0), Json(-3), Json(1), Json(std::int64_t{1} << 40), Json(2.5), Json("x"),
                               Json::array(), Json::array({1, 2, 3}), Json(nullptr), Json(true), Json::object()};
  std::uint64_t state = 5;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  int errors = 0, ok = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Json j = base;
    Json& conv = j["conv"];
    auto it = conv.begin();
    std::advance(it, static_cast<long>(next() % conv.size()));
    *it = replacements[next() % std::size(replacements)];
    if (next() % 4 == 0) {
      auto top = j.begin();
      std::advance(top, static_cast<long>(next() % j.size()));
      if (top.key() != "conv") *top = replacements[next() % std::size(replacements)];
    }
    try {
      const OpSpec s = op_spec_from_json(j, "fuzz.json");
      for (const auto& d : s.inputs()) EXPECT_LE(static_cast<double>(shape_numel(d.shape)), std::ldexp(1.0, 40));
      ++ok;
    } catch (const InputError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000);
  EXPECT_GT(ok, 10);
}
