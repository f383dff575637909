// Real vendor outputs (tests/data/ops/h200/, written by tests/ops/h200/vendor_outputs.py on an
// H200: cuBLAS/cuDNN through PyTorch with its default math modes, on the inputs vxsynth
// generates) against the CPU reference under the tolerances of docs/tolerances.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "common/json_io.h"
#include "ops/equivalence.h"
#include "ops/inputs.h"
#include "ops/reference.h"
#include "ops/tensor_file.h"

using namespace vxsynth;
using namespace vxsynth::ops;

namespace {

const std::string kDir = "data/ops/h200/";

struct VendorCase {
  std::string name, variant;
  OpSpec spec;
  std::uint64_t seed = 0;
  std::vector<std::int64_t> rows;  // kept rows of dim 0 (empty: all)
  Tensor output;
};

std::vector<VendorCase> load_cases() {
  const Json m = read_json_file(kDir + "manifest.json");
  std::vector<VendorCase> cases;
  for (const Json& c : m.at("cases")) {
    VendorCase v;
    v.name = c.at("name").get<std::string>();
    v.variant = c.at("variant").get<std::string>();
    v.spec = read_op_spec(kDir + c.at("op").get<std::string>());
    v.seed = c.at("seed").get<std::uint64_t>();
    if (!c.at("rows").is_null()) v.rows = c.at("rows").get<std::vector<std::int64_t>>();
    v.output = read_tensor_file(kDir + c.at("output").get<std::string>());
    cases.push_back(std::move(v));
  }
  return cases;
}

// The CPU reference of the kept rows (a linear's rows directly; other ops in full, then sliced).
Tensor reference_rows(const OpSpec& spec, const std::vector<Tensor>& inputs, const std::vector<std::int64_t>& rows,
                      Side side) {
  if (rows.empty()) return compute_reference(spec, inputs, {side, 0});
  if (spec.kind == OpKind::linear) {
    OpSpec part = spec;
    part.linear.m = static_cast<std::int64_t>(rows.size());
    std::vector<Tensor> in = inputs;
    Tensor x(inputs[0].dtype(), {part.linear.m, spec.linear.k}, "x");
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::int64_t k = 0; k < spec.linear.k; ++k)
        x.set_bits(static_cast<std::int64_t>(r) * spec.linear.k + k, inputs[0].bits(rows[r] * spec.linear.k + k));
    in[0] = x;
    return compute_reference(part, in, {side, 0});
  }
  const Tensor full = compute_reference(spec, inputs, {side, 0});
  Shape shape = full.shape();
  const std::int64_t row_size = full.numel() / shape[0];
  shape[0] = static_cast<std::int64_t>(rows.size());
  Tensor out(full.dtype(), shape, "y");
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::int64_t i = 0; i < row_size; ++i)
      out.set_bits(static_cast<std::int64_t>(r) * row_size + i, full.bits(rows[r] * row_size + i));
  return out;
}

void print(const std::string& what, const EquivalenceReport& r) {
  char bias[64] = "";
  if (r.bias_checked) std::snprintf(bias, sizeof bias, "  bias %.2e (limit %.2e)", r.bias_slope, r.bias_limit);
  std::printf("%-52s %-9s %s  max abs %.3g  worst %.3g x allowed  (%lld elements)%s\n", what.c_str(),
              to_string(r.check).c_str(), r.passed() ? "pass" : "FAIL", r.max_abs_error, r.worst_ratio,
              static_cast<long long>(r.count), bias);
}

}  // namespace

TEST(VendorOutputs, PassTheirChecksAndRevealThePath) {
  const Json m = read_json_file(kDir + "manifest.json");
  auto text = [&](const char* key) { return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : "-"; };
  std::printf("vendor outputs from %s, torch %s, CUDA %s\n", text("device").c_str(), text("torch").c_str(),
              text("cuda").c_str());
  const auto cases = load_cases();
  ASSERT_GE(cases.size(), 7u);
  const Tensor* tf32_layer4 = nullptr;
  for (const VendorCase& c : cases) {
    SCOPED_TRACE(c.name);
    const auto inputs = generate_inputs(c.spec, c.seed);
    Tensor vendor = c.output;
    vendor.set_name(c.name);
    if (c.variant == "default") {
      const Tensor ref = reference_rows(c.spec, inputs, c.rows, Side::cuda);
      const auto r = compare_outputs(ref, vendor, tolerance_for(c.spec, Check::source), Check::source);
      print(c.name + " vs reference", r);
      EXPECT_TRUE(r.passed()) << r.text();
      if (c.spec.precision == PrecisionPath::tf32) {
        // Did the vendor really run tf32? Against the fp32 reference, the fp32 tolerance says.
        OpSpec as_fp32 = c.spec;
        as_fp32.precision = as_fp32.vortex_precision = PrecisionPath::fp32;
        const Tensor ref32 = reference_rows(as_fp32, inputs, c.rows, Side::cuda);
        const auto strict = compare_outputs(ref32, vendor, tolerance_for(as_fp32, Check::source), Check::source);
        print(c.name + " vs fp32 reference, fp32 tolerance", strict);
        if (c.name == "act_layer4_conv2") {
          EXPECT_FALSE(strict.passed()) << "cuDNN did not use TF32 for the fp32 conv?";
          tf32_layer4 = &c.output;
        }
      }
    } else if (c.variant == "fp16_operands") {
      // fp16 operands, fp32 accumulation: what the Vortex side of a tf32 op computes.
      const Tensor ref_vx = reference_rows(c.spec, inputs, c.rows, Side::vortex);
      const auto r = compare_outputs(ref_vx, vendor, tolerance_for(c.spec, Check::candidate), Check::candidate);
      print(c.name + " vs vortex-side reference", r);
      EXPECT_TRUE(r.passed()) << r.text();
      ASSERT_NE(tf32_layer4, nullptr);
      const auto pair = compare_outputs(*tf32_layer4, vendor, tolerance_for(c.spec, Check::candidate), Check::candidate);
      print(c.name + " vs the tf32 output (CUDA vs Vortex-like)", pair);
      EXPECT_TRUE(pair.passed()) << pair.text();
    } else if (c.variant == "no_tf32") {
      OpSpec as_fp32 = c.spec;
      as_fp32.precision = as_fp32.vortex_precision = PrecisionPath::fp32;
      const Tensor ref = reference_rows(as_fp32, inputs, c.rows, Side::cuda);
      const auto r = compare_outputs(ref, vendor, tolerance_for(as_fp32, Check::source), Check::source);
      print(c.name + " vs fp32 reference", r);
      EXPECT_TRUE(r.passed()) << r.text();
    }
  }
}

// The same vendor outputs with one plausible bug each fail their check.
TEST(VendorOutputs, MutatedVendorOutputsFail) {
  for (const VendorCase& c : load_cases()) {
    if (c.variant != "default") continue;
    SCOPED_TRACE(c.name);
    const auto inputs = generate_inputs(c.spec, c.seed);
    const Tensor ref = reference_rows(c.spec, inputs, c.rows, Side::cuda);
    const Tolerance tol = tolerance_for(c.spec, Check::source);
    Tensor wrong = c.output;
    const std::int64_t at = wrong.numel() / 3;
    wrong.set(at, wrong.get(at) + 0.05f + 0.05f * std::fabs(wrong.get(at)));
    auto r = compare_outputs(ref, wrong, tol);
    EXPECT_EQ(r.failed, 1);
    EXPECT_EQ(r.worst_index, at);
    Tensor dropped = c.output;
    const std::int64_t last_row = dropped.numel() / dropped.shape()[0];
    for (std::int64_t i = dropped.numel() - last_row; i < dropped.numel(); ++i) dropped.set_bits(i, poison_bits(dropped.dtype()));
    r = compare_outputs(ref, dropped, tol);
    EXPECT_EQ(r.unwritten_count, last_row);
    EXPECT_FALSE(r.passed());
  }
}

// A correct fp32-or-better result passes the tf32 check against the real cuDNN / cuBLAS TF32
// outputs, whichever side is the expected one: the vendor's own operand rounding is inside the
// tolerance (docs/tolerances.md, item 1). Before that term, a plain fp32 result failed 2,192 of
// the 153,600 elements of act_layer4_conv2 (K = 4608) at 1.78x the allowed error.
TEST(VendorOutputs, Tf32OutputsAcceptAPlainFp32Result) {
  int checked = 0;
  for (const VendorCase& c : load_cases()) {
    if (c.variant != "default" || c.spec.precision != PrecisionPath::tf32) continue;
    SCOPED_TRACE(c.name);
    const auto inputs = generate_inputs(c.spec, c.seed);
    OpSpec as_fp32 = c.spec;  // the same fp32 tensors, multiplied without rounding
    as_fp32.precision = as_fp32.vortex_precision = PrecisionPath::fp32;
    Tensor fp32 = reference_rows(as_fp32, inputs, c.rows, Side::cuda);
    fp32.set_name("fp32 result");
    Tensor vendor = c.output;
    vendor.set_name(c.name);
    for (const Check check : {Check::source, Check::candidate}) {
      const Tolerance tol = tolerance_for(c.spec, check);
      const auto r = compare_outputs(vendor, fp32, tol, check);
      print("fp32 result vs " + c.name + " (tf32 tolerance)", r);
      EXPECT_TRUE(r.passed()) << r.text();
      const auto back = compare_outputs(fp32, vendor, tol, check);
      print(c.name + " vs fp32 result (tf32 tolerance)", back);
      EXPECT_TRUE(back.passed()) << back.text();
      // ... while the error is real: several times what two round-to-nearest tf32 sides differ by.
      EXPECT_GT(r.max_abs_error, 5 * compare_outputs(reference_rows(c.spec, inputs, c.rows, Side::cuda), vendor, tol)
                                          .max_abs_error);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3);  // act_layer4_conv2 (K = 4608), dp_up0_conv1 (K = 20480), act_ffn_linear1 (K = 512)
}
