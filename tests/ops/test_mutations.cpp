// The tolerances at the suite's real shapes (docs/tolerances.md, "Validation"):
//  - correct results pass: the CPU reference, a vendor-like kernel (tensor-core accumulation that
//    truncates, tf32 rounded to nearest even; split-K SIMT for fp32), a candidate (sequential FMA,
//    tf32 rounded to nearest, ties away) and the Vortex candidate (fp16 inputs for tf32), in every
//    pairing a check makes;
//  - plausible bugs fail: a transposed operand, an off-by-one in K, one wrong element, bf16
//    accumulation, a missing bias, a dropped boundary row (left poisoned, or zeroed), tf32
//    operands truncated instead of rounded, bf16/fp16 outputs truncated instead of rounded,
//    fp16 operands truncated to bf16.
// Full-size inputs are generated; outputs are evaluated on a sample (1,500 random elements plus up
// to 512 of the last output row), because emulating several kernels on every element of
// 816 x 16384 x 2048 would take minutes. The table printed here is quoted in the docs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "common/json_io.h"
#include "design/seed.h"
#include "emulate.h"
#include "ops/equivalence.h"
#include "ops/inputs.h"
#include "ops/reference.h"

using namespace vxsynth;
using namespace vxsynth::ops;
using emulate::Accumulation;

namespace {

std::vector<OpSpec> real_shapes() {
  const auto first = ConvLayout::channels_first, last = ConvLayout::channels_last;
  return {
      make_linear("pi0.gemma2b.gate_proj", PrecisionPath::bf16, 816, 16384, 2048),
      make_linear("pi0.gemma2b.down_proj", PrecisionPath::bf16, 816, 2048, 16384),
      make_linear("pi0.siglip.fc1+bias+gelu_tanh", PrecisionPath::bf16, 256, 4304, 1152, true, Activation::gelu_tanh),
      make_matmul("pi0.gemma2b.attn.qk (8 q heads, 1 kv head)", PrecisionPath::bf16, {8}, {1}, 816, 816, 256, false,
                  true),
      make_linear("pi0.gate_proj as fp16", PrecisionPath::fp16, 816, 16384, 2048),
      // fp16 at the largest K: the smallest margin of the bias check against an output truncation
      make_linear("pi0.down_proj as fp16", PrecisionPath::fp16, 816, 2048, 16384),
      make_conv("act.layer4.0.conv2", PrecisionPath::tf32, 1, 512, 512, {15, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1,
                false, first),
      make_conv("act.layer1.0.conv1 NHWC", PrecisionPath::tf32, 1, 64, 64, {120, 160}, {3, 3}, {1, 1}, {1, 1}, {1, 1},
                1, false, last),
      make_conv("act.conv1 stem 7x7/2", PrecisionPath::tf32, 1, 3, 64, {480, 640}, {7, 7}, {2, 2}, {3, 3}, {1, 1}, 1,
                false, first),
      make_conv("act.img_feat_proj 1x1+bias", PrecisionPath::tf32, 1, 512, 512, {15, 20}, {1, 1}, {1, 1}, {0, 0},
                {1, 1}, 1, true, first),
      make_linear("act.enc.ffn.linear2+bias", PrecisionPath::fp32, 302, 512, 3200, true),
      make_matmul("act.enc.attn.qk", PrecisionPath::fp32, {8}, {8}, 302, 302, 64, false, true),
      make_linear("act.enc.ffn.linear1 as tf32", PrecisionPath::tf32, 302, 3200, 512, true, Activation::relu),
      make_conv("dp.up0.res0.conv1+bias", PrecisionPath::fp32, 1, 4096, 1024, {4}, {5}, {1}, {2}, {1}, 1, true, first),
      // what PyTorch actually runs for it on the H200 (docs/tolerances.md): the hardest tf32 case
      make_conv("dp.up0.res0.conv1+bias tf32", PrecisionPath::tf32, 1, 4096, 1024, {4}, {5}, {1}, {2}, {1}, 1, true,
                first),
      make_conv("dp.down0.downsample k3/s2", PrecisionPath::fp32, 1, 512, 512, {16}, {3}, {2}, {1}, {1}, 1, true,
                first),
  };
}

// Elements in the last output row of the GEMM view: linear row M-1, the last batch's row M-1 of a
// matmul, the last output row (oh = Ho-1, or the last position of a conv1d) of the last image.
bool in_boundary_row(const OpSpec& s, const Shape& idx, const Shape& shape) {
  switch (s.kind) {
    case OpKind::linear: return idx[0] == shape[0] - 1;
    case OpKind::matmul: {
      for (std::size_t i = 0; i + 2 < idx.size(); ++i)
        if (idx[i] != shape[i] - 1) return false;
      return idx[idx.size() - 2] == shape[shape.size() - 2] - 1;
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      const bool last = s.conv.layout == ConvLayout::channels_last;
      const std::size_t row_dim = last ? 1 : 2;  // oh for conv2d, the position for conv1d
      return idx[0] == shape[0] - 1 && idx[row_dim] == shape[row_dim] - 1;
    }
    case OpKind::layout_transform: return false;
  }
  return false;
}

struct Sampled {
  std::vector<std::int64_t> index;
  std::vector<char> boundary;
  std::vector<ElementTerms> rn, vx, raw;
  std::vector<std::int64_t> column;  // output feature / channel of each element
};

Sampled sample(const OpSpec& spec, const std::vector<Tensor>& inputs, std::uint64_t seed) {
  const Shape shape = spec.output().shape;
  const std::int64_t numel = shape_numel(shape);
  Sampled s;
  SplitMix64 rng(seed);
  std::vector<std::int64_t> boundary_all;
  // The boundary row: enumerate candidates cheaply by walking a stride of the flat index space.
  for (std::int64_t i = numel - 1; i >= 0 && boundary_all.size() < 200000; --i) {
    if (in_boundary_row(spec, unravel_index(shape, i), shape)) boundary_all.push_back(i);
    if (spec.kind == OpKind::linear && i < numel - shape[1]) break;
    if (spec.kind == OpKind::matmul && i < numel - shape.back() * 1) break;
  }
  const std::size_t take = std::min<std::size_t>(512, boundary_all.size());
  for (std::size_t t = 0; t < take; ++t) s.index.push_back(boundary_all[t * boundary_all.size() / take]);
  for (int t = 0; t < 1500; ++t) s.index.push_back(static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(numel)));
  std::sort(s.index.begin(), s.index.end());
  s.index.erase(std::unique(s.index.begin(), s.index.end()), s.index.end());

  OpSpec raw_spec = spec;  // same f32 storage, no tf32 rounding: the operands as stored
  if (spec.precision == PrecisionPath::tf32) raw_spec.precision = raw_spec.vortex_precision = PrecisionPath::fp32;
  for (std::int64_t i : s.index) {
    const Shape idx = unravel_index(shape, i);
    s.boundary.push_back(in_boundary_row(spec, idx, shape) ? 1 : 0);
    s.rn.push_back(reference_terms(spec, inputs, i, Side::cuda));
    s.vx.push_back(reference_terms(spec, inputs, i, Side::vortex));
    s.raw.push_back(reference_terms(raw_spec, inputs, i, Side::cuda));
    s.column.push_back(spec.kind == OpKind::conv1d || spec.kind == OpKind::conv2d
                           ? (spec.conv.layout == ConvLayout::channels_last ? idx.back() : idx[1])
                           : idx.back());
  }
  return s;
}

struct Outcome {
  std::string what;
  EquivalenceReport report;
};

// Every correct pairing passes and every mutation fails at one shape; counts what was caught.
void check_shape(const OpSpec& spec, std::map<std::string, int>& caught, std::map<std::string, int>& tried) {
  {
    SCOPED_TRACE(spec.name);
    const auto inputs = generate_inputs(spec, 2026);
    const Sampled s = sample(spec, inputs, 99);
    const DType out = spec.output().dtype;
    const Activation act = spec.activation();
    const std::size_t K = static_cast<std::size_t>(spec.reduction_length());
    const bool tc = spec.precision != PrecisionPath::fp32;  // tensor-core path
    const std::size_t n = s.index.size();

    auto values = [&](auto&& element) {
      std::vector<float> v(n);
      for (std::size_t e = 0; e < n; ++e) v[e] = element(e);
      return v;
    };
    auto tf32_with = [](std::vector<float> x, Tf32Rounding mode) {
      for (float& f : x) f = round_to_tf32(f, mode);
      return x;
    };
    const Tf32Rounding even = Tf32Rounding::nearest_even;
    const std::vector<float> ref = values([&](std::size_t e) {
      double acc = 0;
      for (std::size_t k = 0; k < K; ++k) acc += static_cast<double>(s.rn[e].a[k]) * s.rn[e].b[k];
      return round_fp64_to(out, apply_activation(act, acc + s.rn[e].bias));
    });
    // Vendor-like: tensor cores with truncating accumulation and tf32 operands rounded to nearest
    // even (the candidates round ties away); SIMT split-K for fp32; the activation as a separate
    // kernel (one more output rounding).
    auto tensor_core_like = [&](bool fused) {
      return values([&](std::size_t e) {
        const auto& t = s.raw[e];
        const float acc =
            tc ? (spec.precision == PrecisionPath::tf32
                      ? emulate::accumulate(tf32_with(t.a, even), tf32_with(t.b, even), K, Accumulation::tensor_core)
                      : emulate::accumulate(t.a, t.b, K, Accumulation::tensor_core))
               : emulate::accumulate(t.a, t.b, K, Accumulation::fp32_split4);
        return fused ? emulate::epilogue(acc, static_cast<float>(t.bias), act, out)
                     : emulate::epilogue_unfused(acc, static_cast<float>(t.bias), act, out);
      });
    };
    const std::vector<float> vendor = tensor_core_like(false);
    const std::vector<float> tc_candidate = tensor_core_like(true);  // a CUDA candidate on tensor cores
    auto candidate_with = [&](const std::vector<ElementTerms>& terms, std::size_t k_end, Accumulation mode,
                              bool with_bias, bool truncate_output = false) {
      return values([&](std::size_t e) {
        const float acc = emulate::accumulate(terms[e].a, terms[e].b, k_end, mode);
        const float bias = with_bias ? static_cast<float>(terms[e].bias) : 0.0f;
        return truncate_output ? emulate::epilogue_truncated(acc, bias, act, out) : emulate::epilogue(acc, bias, act, out);
      });
    };
    const auto candidate = candidate_with(s.rn, K, Accumulation::fp32_sequential, true);
    const auto vortex = candidate_with(s.vx, K, Accumulation::fp32_sequential, true);
    // tf32 ops: a SIMT candidate multiplies the fp32 operands unrounded, so it differs from a TF32
    // vendor by the vendor's whole operand rounding (docs/tolerances.md, item 1); the vendor may
    // accumulate on tensor cores (above), in fp32 or in fp64.
    const bool is_tf32 = spec.precision == PrecisionPath::tf32;
    const auto simt = candidate_with(s.raw, K, Accumulation::fp32_sequential, true);
    const std::vector<float> fp32_ref = values([&](std::size_t e) {
      double acc = 0;
      for (std::size_t k = 0; k < K; ++k) acc += static_cast<double>(s.raw[e].a[k]) * s.raw[e].b[k];
      return round_fp64_to(out, apply_activation(act, acc + s.raw[e].bias));
    });
    auto tf32_vendor = [&](bool fp64_acc) {
      return values([&](std::size_t e) {
        const auto a = tf32_with(s.raw[e].a, even), b = tf32_with(s.raw[e].b, even);
        double acc64 = 0;
        for (std::size_t k = 0; k < K; ++k) acc64 += static_cast<double>(a[k]) * b[k];
        const float acc = fp64_acc ? static_cast<float>(acc64) : emulate::accumulate(a, b, K, Accumulation::fp32_sequential);
        return emulate::epilogue_unfused(acc, static_cast<float>(s.raw[e].bias), act, out);
      });
    };
    const auto vendor_fp32_acc = is_tf32 ? tf32_vendor(false) : std::vector<float>{};
    const auto vendor_fp64_acc = is_tf32 ? tf32_vendor(true) : std::vector<float>{};

    Tensor actual(out, spec.output().shape, "actual");
    auto check = [&](const std::vector<float>& expected, const std::vector<float>& got, Check c,
                     const std::vector<char>* unwritten = nullptr, bool zero_fill = false) {
      // compare_selected reads the sampled elements only: poison those, not the whole output.
      for (const std::int64_t i : s.index) actual.set_bits(i, poison_bits(out));
      for (std::size_t e = 0; e < n; ++e) {
        if (unwritten && (*unwritten)[e]) {
          if (zero_fill) actual.set(s.index[e], 0.0f);
          continue;
        }
        actual.set(s.index[e], got[e]);
      }
      return compare_selected(expected, actual, s.index, tolerance_for(spec, c), c);
    };
    auto print = [&](const std::string& what, Check c, const EquivalenceReport& r) {
      char label[128];
      std::snprintf(label, sizeof label, "%s (%s/%s, K=%zu)", spec.name.substr(0, 30).c_str(),
                    to_string(spec.precision).c_str(), to_string(spec.vortex_precision).c_str(), K);
      char bias[32] = "-";
      if (r.bias_checked) std::snprintf(bias, sizeof bias, "%.3g", r.bias_slope / r.bias_limit);
      std::printf("%-44s %-9s %-28s %6lld/%-5lld %10.3g %8s\n", label, to_string(c).c_str(), what.c_str(),
                  static_cast<long long>(r.failed), static_cast<long long>(r.count),
                  r.worst_ratio > 1e298 ? INFINITY : r.worst_ratio, bias);
    };

    // ---- correct results pass
    const std::pair<const char*, std::pair<const std::vector<float>*, const std::vector<float>*>> good_source[] = {
        {"vendor vs reference", {&ref, &vendor}},
        {"candidate vs reference", {&ref, &candidate}},
        {"candidate vs vendor", {&vendor, &candidate}},
    };
    // TF32 vendor against an fp32-or-better result, in both directions (either may be expected).
    const std::pair<const char*, std::pair<const std::vector<float>*, const std::vector<float>*>> good_tf32_source[] = {
        {"SIMT cand. vs vendor", {&vendor, &simt}},
        {"vendor vs SIMT cand.", {&simt, &vendor}},
        {"vendor vs fp32 reference", {&fp32_ref, &vendor}},
        {"fp32 reference vs vendor", {&vendor, &fp32_ref}},
        {"SIMT vs vendor (fp32 acc)", {&vendor_fp32_acc, &simt}},
        {"vendor (fp32 acc) vs SIMT", {&simt, &vendor_fp32_acc}},
        {"SIMT vs vendor (fp64 acc)", {&vendor_fp64_acc, &simt}},
        {"vendor (fp64 acc) vs fp32 ref.", {&fp32_ref, &vendor_fp64_acc}},
    };
    for (const auto& [what, pair] : good_source) {
      const auto r = check(*pair.first, *pair.second, Check::source);
      print(what, Check::source, r);
      EXPECT_TRUE(r.passed()) << what << "\n" << r.text();
    }
    if (is_tf32) {
      for (const auto& [what, pair] : good_tf32_source) {
        const auto r = check(*pair.first, *pair.second, Check::source);
        print(what, Check::source, r);
        EXPECT_TRUE(r.passed()) << what << "\n" << r.text();
      }
    }
    const std::pair<const char*, std::pair<const std::vector<float>*, const std::vector<float>*>> good_cand[] = {
        {"vortex vs candidate", {&candidate, &vortex}},
        {"vortex vs tensor-core cand.", {&tc_candidate, &vortex}},
        {"vortex vs SIMT cand.", {&simt, &vortex}},
        {"SIMT cand. vs vortex", {&vortex, &simt}},
    };
    for (const auto& [what, pair] : good_cand) {
      if (!is_tf32 && std::string(what).find("SIMT") != std::string::npos) continue;  // same as candidate
      const auto r = check(*pair.first, *pair.second, Check::candidate);
      print(what, Check::candidate, r);
      EXPECT_TRUE(r.passed()) << what << "\n" << r.text();
    }

    // ---- mutations fail. Source: mutated candidate vs vendor. Candidate: mutated Vortex vs CUDA.
    // tf32 ops also: a mutated SIMT candidate (fp32 operands) vs the vendor, and the mutated
    // Vortex candidate vs a SIMT CUDA candidate.
    struct Variant {
      Check c;
      bool simt;
    };
    std::vector<Variant> variants = {{Check::source, false}, {Check::candidate, false}};
    if (is_tf32) variants.insert(variants.end(), {{Check::source, true}, {Check::candidate, true}});
    for (const auto [c, with_simt] : variants) {
      const auto& base_terms = c == Check::source ? (with_simt ? s.raw : s.rn) : s.vx;
      const auto& expected = c == Check::source ? vendor : (with_simt ? simt : candidate);
      const auto& good = c == Check::source ? (with_simt ? simt : candidate) : vortex;
      const std::string suffix = with_simt ? (c == Check::source ? " (SIMT cand.)" : " (vs SIMT cand.)") : "";
      std::vector<std::pair<std::string, EquivalenceReport>> results;

      results.emplace_back("off-by-one in K", check(expected, candidate_with(base_terms, K - 1,
                                                                               Accumulation::fp32_sequential, true), c));
      results.emplace_back("bf16 accumulation",
                           check(expected, candidate_with(base_terms, K, Accumulation::bf16_sequential, true), c));
      if (spec.has_bias()) {
        results.emplace_back("missing bias",
                             check(expected, candidate_with(base_terms, K, Accumulation::fp32_sequential, false), c));
      }
      {
        // one element takes the value of another sampled element (a stale or misplaced write)
        std::vector<float> wrong = good;
        std::size_t victim = n / 2, donor = 0;
        for (std::size_t e = 0; e < n; ++e) {
          if (std::fabs(good[e] - good[victim]) > 0.25f) { donor = e; break; }
        }
        wrong[victim] = good[donor];
        const auto r = check(expected, wrong, c);
        EXPECT_EQ(r.failed, 1) << "one wrong element";
        results.emplace_back("one wrong element", r);
      }
      results.emplace_back("dropped boundary row (poison)", check(expected, good, c, &s.boundary));
      EXPECT_GT(results.back().second.unwritten_count, 0);
      results.emplace_back("dropped boundary row (zero)", check(expected, good, c, &s.boundary, true));
      if (is_tf32 && !(with_simt && c == Check::source)) {
        // tf32 operands truncated (raw fp32 bits fed to mma, __float_to_tf32 forgotten)
        std::vector<ElementTerms> truncated = s.raw;
        for (auto& t : truncated) {
          t.a = tf32_with(t.a, Tf32Rounding::truncate);
          t.b = tf32_with(t.b, Tf32Rounding::truncate);
        }
        results.emplace_back("tf32 operands truncated",
                             check(expected, candidate_with(truncated, K, Accumulation::fp32_sequential, true), c));
      }
      if (out != DType::f32) {
        // bf16/fp16 output converted by truncation (`bits >> 16`, __float2half_rz) instead of
        // rounding to nearest: within one output ulp per element, caught by the bias check.
        results.emplace_back("output truncated",
                             check(expected, candidate_with(base_terms, K, Accumulation::fp32_sequential, true, true), c));
      }
      if (spec.precision == PrecisionPath::fp16) {
        // fp16 operands truncated to bf16's 7 mantissa bits (fp16 data fed to a bf16 MMA through
        // a truncating conversion). bf16 operands have no narrower type to be truncated to.
        std::vector<ElementTerms> narrowed = base_terms;
        for (auto& t : narrowed) {
          for (float& f : t.a) f = emulate::truncate_to(DType::bf16, f);
          for (float& f : t.b) f = emulate::truncate_to(DType::bf16, f);
        }
        results.emplace_back("operands truncated to bf16",
                             check(expected, candidate_with(narrowed, K, Accumulation::fp32_sequential, true), c));
      }
      if (spec.kind != OpKind::matmul && (spec.spatial_dims() == 0 || spec.conv.groups == 1)) {
        // The weight read as its transpose: [N][K] storage indexed as [K][N].
        const Tensor& w = inputs[1];
        const std::int64_t N = w.shape()[0];
        const PrecisionPath p =
            c == Check::source ? (with_simt ? PrecisionPath::fp32 : spec.precision) : spec.vortex_precision;
        std::vector<ElementTerms> transposed = base_terms;
        // k outer: the elements' reads of one k fall in one stored row (a strided walk per element
        // missed the cache on every read of a 16384 x 2048 weight).
        for (std::size_t k = 0; k < K; ++k) {
          for (std::size_t e = 0; e < n; ++e) {
            transposed[e].b[k] = round_compute_input(w.get(static_cast<std::int64_t>(k) * N + s.column[e]), p);
          }
        }
        results.emplace_back("transposed operand",
                             check(expected, candidate_with(transposed, K, Accumulation::fp32_sequential, true), c));
      }
      for (const auto& [what, r] : results) {
        print(what + suffix, c, r);
        ++tried[what + " / " + to_string(c) + suffix];
        if (!r.passed()) ++caught[what + " / " + to_string(c) + suffix];
        EXPECT_FALSE(r.passed()) << what << " not caught by the " << to_string(c) << " check\n" << r.text();
      }
    }
  }
}

void print_header() {
  std::printf("%-44s %-9s %-28s %12s %10s %8s\n", "shape (path, K)", "check", "actual vs expected", "failed", "worst/allowed",
              "bias/lim");
}

void print_caught(const std::map<std::string, int>& caught, const std::map<std::string, int>& tried) {
  std::printf("\nmutation / check: caught on how many of the shapes\n");
  for (const auto& [what, count] : tried) {
    const auto it = caught.find(what);
    std::printf("  %-44s %d/%d\n", what.c_str(), it == caught.end() ? 0 : it->second, count);
  }
}

}  // namespace

// One test per shape, so CTest spreads them over the cores (each builds full-size inputs).
class RealShape : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RealShape, PassesCorrectAndFailsMutations) {
  const OpSpec spec = real_shapes().at(GetParam());
  print_header();
  std::map<std::string, int> caught, tried;
  check_shape(spec, caught, tried);
  print_caught(caught, tried);
}

std::string shape_test_name(const ::testing::TestParamInfo<std::size_t>& p) {
  std::string out = std::to_string(p.param) + "_";
  const std::string name = real_shapes().at(p.param).name;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Tolerances, RealShape, ::testing::Range<std::size_t>(0, real_shapes().size()), shape_test_name);

// The same at the ops of the shipped suite (suite/vx-robotics/h200/*/reference.json, read as
// the refinement loop reads them), with their real K: up to 20480 for Diffusion Policy's tf32
// conv1d, whose generated SIMT candidates (fp32 operands) the tf32 check once rejected on the
// H200 at 1.03-1.9x the allowed error.
std::vector<std::filesystem::path> suite_references() {
  const std::filesystem::path suite = "../suite/vx-robotics/h200";
  std::vector<std::filesystem::path> refs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(suite, ec)) {
    if (std::filesystem::exists(e.path() / "reference.json")) refs.push_back(e.path() / "reference.json");
  }
  std::sort(refs.begin(), refs.end());
  return refs;
}

// The served op: diffusion_policy-1/-3/-4/-5 are layout transforms of their conv1d (exact check,
// tests/ops/test_transform.cpp); the tolerances here are the convs'.
OpSpec suite_op(const std::filesystem::path& ref) {
  OpSpec spec = design::op_spec_from_reference(read_json_file(ref.string()), ref.string(), true);
  spec.name = ref.parent_path().filename().string();
  return spec;
}

TEST(Tolerances, SuiteShapesAreTheSuitesReferences) {
  const auto refs = suite_references();
  ASSERT_GE(refs.size(), 15u) << "suite references under ../suite/vx-robotics/h200";
  int tf32 = 0;
  for (const auto& ref : refs) tf32 += suite_op(ref).precision == PrecisionPath::tf32;
  EXPECT_EQ(tf32, 6);  // act-5 conv2d and diffusion_policy-1..5 conv1d
}

// One test per reference (the list is read when the tests are registered, from tests/).
class SuiteShape : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(SuiteShape, PassesCorrectAndFailsMutations) {
  print_header();
  std::map<std::string, int> caught, tried;
  check_shape(suite_op(GetParam()), caught, tried);
  print_caught(caught, tried);
}

std::string suite_test_name(const ::testing::TestParamInfo<std::filesystem::path>& p) {
  const std::string bench = p.param.parent_path().filename().string();
  std::string out;
  for (char c : bench) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Tolerances, SuiteShape, ::testing::ValuesIn(suite_references()), suite_test_name);

// Near-zero outputs: mirrored halves cancel exactly, so the exact result is (nearly) zero while a
// correct fp32 accumulation leaves a residue of a few fp32 ulps of the partial sums. rtol alone
// rejects these correct bf16 results; the K-dependent atol accepts them.
TEST(Tolerances, NearZeroOutputsNeedTheAbsoluteTerm) {
  const std::int64_t K = 2048, N = 64;
  const OpSpec spec = make_linear("near-zero", PrecisionPath::bf16, 1, N, K);
  auto inputs = generate_inputs(spec, 3);
  Tensor& x = inputs[0];
  Tensor& w = inputs[1];
  for (std::int64_t k = K / 2; k < K; ++k) x.set_bits(k, x.bits(k - K / 2));
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t k = K / 2; k < K; ++k) w.set_bits(n * K + k, w.bits(n * K + k - K / 2) ^ 0x8000u);
    // a tiny asymmetry so that the exact result is not exactly zero in every column
    if (n % 2) w.set(n * K + K - 1, w.get(n * K + K - 1) * (1.0f + std::ldexp(1.0f, -7)));
  }
  const Tensor ref = compute_reference(spec, inputs);
  Tensor cand(DType::bf16, {1, N}, "candidate");
  Tensor tc(DType::bf16, {1, N}, "tensor-core");
  int differ = 0;
  for (std::int64_t n = 0; n < N; ++n) {
    const ElementTerms t = reference_terms(spec, inputs, n);
    cand.set(n, emulate::epilogue(emulate::accumulate(t.a, t.b, K, Accumulation::fp32_sequential), 0, Activation::none,
                                  DType::bf16));
    tc.set(n, emulate::epilogue(emulate::accumulate(t.a, t.b, K, Accumulation::tensor_core), 0, Activation::none,
                                DType::bf16));
    differ += cand.get(n) != ref.get(n);
    EXPECT_LT(std::fabs(ref.get(n)), 1e-2);
  }
  ASSERT_GT(differ, N / 4) << "the construction must produce near-zero results that differ";
  const Tolerance full = tolerance_for(spec, Check::source);
  const Tolerance rtol_only{0.0, full.rtol};
  for (const Tensor* actual : {&cand, &tc}) {
    const auto with_atol = compare_outputs(ref, *actual, full);
    EXPECT_TRUE(with_atol.passed()) << with_atol.text();
    const auto without = compare_outputs(ref, *actual, rtol_only);
    EXPECT_FALSE(without.passed());
    EXPECT_GT(without.failed, N / 8) << without.text();
    std::printf("near-zero, %s: max |d| %.3g, with atol %lld failed, rtol only %lld/%lld failed\n",
                actual->name().c_str(), with_atol.max_abs_error, static_cast<long long>(with_atol.failed),
                static_cast<long long>(without.failed), static_cast<long long>(without.count));
  }
}

// Every element of three real outputs (not a sample): the vendor-like emulation against the full
// CPU reference, to see the tails of the error distribution (|y| up to ~5) under the tolerance.
TEST(Tolerances, FullOutputsAtRealShapesPass) {
  const OpSpec specs[] = {
      make_linear("act.enc.ffn.linear2+bias", PrecisionPath::fp32, 302, 512, 3200, true),
      make_linear("act.enc.ffn.linear1 as tf32 +relu", PrecisionPath::tf32, 302, 3200, 512, true, Activation::relu),
      make_linear("pi0.siglip.fc1+bias+gelu_tanh", PrecisionPath::bf16, 256, 4304, 1152, true, Activation::gelu_tanh),
  };
  for (const OpSpec& spec : specs) {
    const auto inputs = generate_inputs(spec, 11);
    const Tensor ref = compute_reference(spec, inputs);
    const std::int64_t M = spec.linear.m, N = spec.linear.n, K = spec.linear.k;
    auto x = inputs[0].to_floats(), w = inputs[1].to_floats();
    const auto bias = inputs[2].to_floats();
    if (spec.precision == PrecisionPath::tf32) {
      for (float& v : x) v = round_to_tf32(v, Tf32Rounding::nearest_even);
      for (float& v : w) v = round_to_tf32(v, Tf32Rounding::nearest_even);
    }
    const Accumulation mode = spec.precision == PrecisionPath::fp32 ? Accumulation::fp32_split4 : Accumulation::tensor_core;
    Tensor vendor(ref.dtype(), ref.shape(), "vendor");
    std::vector<float> a(static_cast<std::size_t>(K)), b(static_cast<std::size_t>(K));
    for (std::int64_t m = 0; m < M; ++m) {
      std::copy(x.begin() + m * K, x.begin() + (m + 1) * K, a.begin());
      for (std::int64_t n = 0; n < N; ++n) {
        std::copy(w.begin() + n * K, w.begin() + (n + 1) * K, b.begin());
        const float acc = emulate::accumulate(a, b, a.size(), mode);
        vendor.set(m * N + n,
                   emulate::epilogue_unfused(acc, bias[static_cast<std::size_t>(n)], spec.activation(), ref.dtype()));
      }
    }
    const auto r = compare_outputs(ref, vendor, tolerance_for(spec, Check::source));
    std::printf("full output %-36s %lld elements: max abs %.3g, worst %.3g x allowed\n", spec.name.c_str(),
                static_cast<long long>(r.count), r.max_abs_error, r.worst_ratio);
    EXPECT_TRUE(r.passed()) << spec.name << "\n" << r.text();
  }
}
