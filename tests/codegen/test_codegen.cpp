// Generated code, tested through one testbed (codegen_testbed.h): for each op family and
// precision path, a sample of the design space in which every axis value occurs (the seed and
// its single-axis neighbours) plus seeded random designs, on odd shapes that are multiples of
// no tile. The CUDA side must compile with nvcc -arch=sm_90; the Vortex side (SIMT designs)
// must build with the RISC-V toolchain and pass the candidate check on the embedded simulator.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <map>
#include <set>

#include "codegen_testbed.h"
#include "refine/sim_run.h"
#include "common/error.h"
#include "design/sample.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

using design::DesignPoint;
using design::EngineClass;
using ops::PrecisionPath;
namespace tb = testbed;

// Small odd shapes (no dimension a multiple of any tile), one per family, with bias and an
// activation wherever the op has them.
ops::OpSpec family_op(const std::string& family, PrecisionPath p, ops::Activation act = ops::Activation::gelu) {
  if (family == "linear") return ops::make_linear("linear", p, 37, 53, 71, true, act);
  if (family == "matmul") return ops::make_matmul("matmul", p, {3}, {1}, 29, 45, 67, false, true);
  if (family == "conv1d") {
    return ops::make_conv("conv1d", p, 2, 12, 20, {19}, {5}, {1}, {2}, {1}, 1, true, ops::ConvLayout::channels_first,
                          act == ops::Activation::gelu ? ops::Activation::relu : act);
  }
  return ops::make_conv("conv2d", p, 1, 6, 10, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, true,
                        ops::ConvLayout::channels_last, act == ops::Activation::gelu ? ops::Activation::silu : act);
}

const std::vector<std::string> kFamilies = {"linear", "matmul", "conv1d", "conv2d"};

int block_for(const std::string& family) {
  if (family == "matmul") return 64;
  if (family == "conv2d") return 256;
  return 128;
}

// Which enum values of each axis occur in a set of designs.
std::map<std::string, std::set<std::string>> axis_values(const std::vector<DesignPoint>& designs) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& d : designs) {
    seen["shared_staging"].insert(design::to_string(d.staging));
    seen["read_once"].insert(design::to_string(d.read_once));
    seen["lane_a"].insert(design::to_string(d.lane_a));
    seen["lane_b"].insert(design::to_string(d.lane_b));
    seen["prefetch"].insert(design::to_string(d.prefetch));
    seen["tensor_core"].insert(design::to_string(d.fragment));
    seen["activation"].insert(design::to_string(d.activation));
    seen["boundary"].insert(design::to_string(d.boundary));
    seen["k_range"].insert(design::to_string(d.k_range));
    seen["split_k"].insert(d.split_k > 1 ? "split" : "none");
    seen["tile"].insert(std::to_string(d.tile.m) + "x" + std::to_string(d.tile.n) + "x" + std::to_string(d.tile.k));
    seen["register_tile"].insert(std::to_string(d.register_tile.m) + "x" + std::to_string(d.register_tile.n));
    seen["warps"].insert(std::to_string(d.warps.m) + "x" + std::to_string(d.warps.n));
  }
  return seen;
}

// The sample of one family and precision path: the seed's axis coverage plus random designs.
std::vector<DesignPoint> family_sample(const std::string& family, PrecisionPath p, EngineClass e, int random_count,
                                       bool full_coverage = true) {
  const DesignPoint seed = design::seed_design(family_op(family, p), e, block_for(family));
  std::vector<DesignPoint> out = full_coverage ? design::axis_coverage(seed) : std::vector<DesignPoint>{seed};
  std::set<std::string> names;
  for (const auto& d : out) names.insert(design::procedural_name(d));
  for (auto& d : design::random_designs(seed, random_count, 0x5eed + out.size() * 31 + family.size(), 5)) {
    if (names.insert(design::procedural_name(d)).second) out.push_back(std::move(d));
  }
  return out;
}

TEST(Sample, EveryAxisValueOccursForEachFamily) {
  for (const auto& family : kFamilies) {
    SCOPED_TRACE(family);
    const auto simt = family_sample(family, PrecisionPath::fp32, EngineClass::kSimt, 0);
    const auto seen = axis_values(simt);
    for (const char* axis : {"shared_staging", "read_once", "prefetch", "boundary", "k_range"}) {
      EXPECT_EQ(seen.at(axis).size(), axis == std::string("read_once") || axis == std::string("prefetch") ||
                                               axis == std::string("boundary")
                                           ? 3u
                                           : (axis == std::string("k_range") ? 2u : 4u))
          << axis;
    }
    EXPECT_EQ(seen.at("lane_a").size(), 2u);
    EXPECT_EQ(seen.at("lane_b").size(), 2u);
    EXPECT_EQ(seen.at("split_k").size(), 2u);
    EXPECT_GE(seen.at("tile").size(), 3u);
    EXPECT_GE(seen.at("register_tile").size(), 2u);
    EXPECT_GE(seen.at("warps").size(), 2u);
    EXPECT_EQ(seen.at("activation").size(), family == "matmul" ? 1u : 2u);  // a matmul has no activation
    // Tensor-core samples reach every fragment shape of their precision.
    const auto bf16 = axis_values(family_sample(family, PrecisionPath::bf16, EngineClass::kTensorCore, 0));
    EXPECT_EQ(bf16.at("tensor_core"), (std::set<std::string>{"m16n16k16", "m32n8k16", "m8n32k16", "mma_m16n8k16"}));
    const auto tf32 = axis_values(family_sample(family, PrecisionPath::tf32, EngineClass::kTensorCore, 0));
    EXPECT_EQ(tf32.at("tensor_core"), (std::set<std::string>{"m16n16k8", "mma_m16n8k8"}));
  }
}

TEST(Cuda, SampleOfEveryFamilyAndPrecisionCompilesForSm90) {
  const std::string nvcc = tb::find_nvcc();
  if (nvcc.empty()) {
    // nvcc is a dependency of `make test`: missing, it fails unless explicitly allowed (then the
    // skip is listed in make test's closing lines).
    const char* allow = std::getenv("VXSYNTH_ALLOW_MISSING_NVCC");
    if (allow && std::string(allow) == "1") GTEST_SKIP() << "nvcc not found (VXSYNTH_ALLOW_MISSING_NVCC=1)";
    FAIL() << "nvcc not found (set VXSYNTH_NVCC, or VXSYNTH_ALLOW_MISSING_NVCC=1 to skip)";
  }
  // Full axis coverage for one family per engine path, seeds and random designs for the rest:
  // every family x precision path occurs, every axis value occurs.
  std::vector<DesignPoint> designs;
  const std::vector<std::tuple<std::string, PrecisionPath, EngineClass, bool, int>> plan = {
      {"linear", PrecisionPath::fp32, EngineClass::kSimt, true, 3},
      {"conv2d", PrecisionPath::bf16, EngineClass::kTensorCore, true, 2},
      {"conv1d", PrecisionPath::tf32, EngineClass::kTensorCore, true, 2},
      {"matmul", PrecisionPath::fp16, EngineClass::kTensorCore, false, 2},
      {"matmul", PrecisionPath::fp32, EngineClass::kSimt, false, 2},
      {"conv1d", PrecisionPath::fp16, EngineClass::kSimt, false, 1},
      {"conv2d", PrecisionPath::tf32, EngineClass::kSimt, false, 1},
      {"linear", PrecisionPath::bf16, EngineClass::kSimt, false, 1},
      {"linear", PrecisionPath::fp16, EngineClass::kTensorCore, false, 1},
      {"linear", PrecisionPath::tf32, EngineClass::kTensorCore, false, 1},
      {"matmul", PrecisionPath::bf16, EngineClass::kTensorCore, false, 1},
      {"conv2d", PrecisionPath::fp32, EngineClass::kSimt, false, 1},
  };
  for (const auto& [family, p, e, full, random] : plan) {
    for (auto& d : family_sample(family, p, e, random, full)) designs.push_back(std::move(d));
  }
  // Two translation units, compiled one after the other (nvcc is the slow part of CI).
  const auto start = std::chrono::steady_clock::now();
  const std::size_t half = designs.size() / 2;
  const std::vector<DesignPoint> first(designs.begin(), designs.begin() + half), second(designs.begin() + half, designs.end());
  EXPECT_EQ(tb::compile_cuda_batch(first, tb::scratch_dir("cuda-1"), nvcc), "");
  EXPECT_EQ(tb::compile_cuda_batch(second, tb::scratch_dir("cuda-2"), nvcc), "");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("nvcc: %zu designs compiled for sm_90 in %.1f s\n", designs.size(), seconds);
}

struct RunOutcome {
  std::string name;
  bool passed = false;
  std::string details;
  double seconds = 0.0;
};

RunOutcome generate_and_run(const DesignPoint& d, const std::string& dir) {
  RunOutcome o;
  o.name = design::procedural_name(d);
  const auto start = std::chrono::steady_clock::now();
  try {
    const BenchmarkFiles files = write_benchmark(d, dir);
    const refine::SimRunResult r = refine::run_on_simulator(d, files);
    o.passed = r.passed;
    if (!r.passed) o.details = r.output + "\n" + r.check_text;
  } catch (const std::exception& e) {
    o.details = e.what();
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

// Runs the designs two at a time (CI has two cores) and reports each failure by design name.
void run_all(const std::vector<DesignPoint>& designs, const std::string& label) {
  const auto root = tb::scratch_dir(label);
  const auto start = std::chrono::steady_clock::now();
  std::size_t passed = 0;
  for (std::size_t i = 0; i < designs.size(); i += 2) {
    std::vector<std::future<RunOutcome>> jobs;
    for (std::size_t j = i; j < std::min(designs.size(), i + 2); ++j) {
      jobs.push_back(std::async(std::launch::async, generate_and_run, designs[j], (root / std::to_string(j)).string()));
    }
    for (auto& job : jobs) {
      const RunOutcome o = job.get();
      EXPECT_TRUE(o.passed) << o.name << "\n" << o.details;
      passed += o.passed;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu/%zu designs passed on the embedded simulator in %.1f s\n", label.c_str(), passed,
              designs.size(), seconds);
}

class VortexFamily : public ::testing::TestWithParam<std::string> {};

TEST_P(VortexFamily, AxisCoverageAndRandomDesignsPassOnTheSimulator) {
  const std::string family = GetParam();
  // fp32 (tf32 for conv1d, whose Vortex side computes fp32 SIMT) with full axis coverage, then
  // the 16-bit storage paths on seeds and a random design.
  std::vector<DesignPoint> designs =
      family_sample(family, family == "conv1d" ? PrecisionPath::tf32 : PrecisionPath::fp32, EngineClass::kSimt, 2);
  for (const PrecisionPath p : {PrecisionPath::bf16, PrecisionPath::fp16}) {
    for (auto& d : family_sample(family, p, EngineClass::kSimt, family == "linear" ? 1 : 0, false)) {
      designs.push_back(std::move(d));
    }
  }
  run_all(designs, "vortex-" + family);
}

INSTANTIATE_TEST_SUITE_P(Families, VortexFamily, ::testing::ValuesIn(kFamilies));

// Tensor-core designs on the Vortex tensor unit (vx_tensor.h): every family, the three
// tensor precision paths (tf32 runs as fp16 on Vortex), all fragment shapes.
TEST(Vortex, TensorCoreSamplePassesOnTheSimulator) {
  std::vector<DesignPoint> designs;
  const std::vector<std::tuple<std::string, PrecisionPath, bool>> plan = {
      {"linear", PrecisionPath::bf16, true},  {"matmul", PrecisionPath::fp16, false}, {"conv1d", PrecisionPath::tf32, false},
      {"conv2d", PrecisionPath::bf16, false}, {"linear", PrecisionPath::tf32, true},  {"conv2d", PrecisionPath::fp16, false}};
  for (const auto& [family, p, full] : plan) {
    for (auto& d : family_sample(family, p, EngineClass::kTensorCore, full ? 0 : 1, full)) designs.push_back(std::move(d));
  }
  const auto seen = axis_values(designs);
  EXPECT_EQ(seen.at("tensor_core").size(), 6u);  // every WMMA and mma.sync shape
  run_all(designs, "vortex-tensor");
}

// Vortex computes a tf32 op as fp16 (ops::vortex_path_for), also on SIMT designs: without the
// rounding, diffusion_policy-1 (K = 10240) missed the candidate tolerance by 1.1x.
TEST(Emit, VortexRoundsTf32OperandsToFp16) {
  const DesignPoint tf32 = design::seed_design(family_op("conv1d", PrecisionPath::tf32), EngineClass::kSimt, 128);
  const DesignPoint fp32 = design::seed_design(family_op("conv1d", PrecisionPath::fp32), EngineClass::kSimt, 128);
  auto kernel = [](const DesignPoint& d) {
    for (const auto& f : emit_vortex(d, {}))
      if (f.name == "kernel.cpp") return f.text;
    return std::string();
  };
  EXPECT_NE(kernel(tf32).find("fp16_to_float(float_to_fp16("), std::string::npos);
  EXPECT_EQ(kernel(fp32).find("float_to_fp16"), std::string::npos);
  EXPECT_EQ(emit_cuda(tf32).find("float_to_fp16"), std::string::npos);  // the CUDA side keeps fp32 FMA
}

TEST(Emit, InvalidDesignsAreRejectedWithTheRuleTheyBreak) {
  DesignPoint d = design::seed_design(family_op("linear", PrecisionPath::fp32), EngineClass::kSimt, 128);
  d.split_k = 1000;
  for (int side = 0; side < 2; ++side) {
    try {
      if (side == 0) emit_cuda(d);
      else emit_vortex(d, {});
      ADD_FAILURE() << "emitted an invalid design";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("split-k"), std::string::npos) << e.what();
    }
  }
}

TEST(Emit, GeneratedCodeNamesItsDesignAndHasNoCodeForAxesNotTaken) {
  const DesignPoint seed = design::seed_design(family_op("linear", PrecisionPath::fp32), EngineClass::kSimt, 128);
  const std::string cuda = emit_cuda(seed);
  EXPECT_NE(cuda.find(design::procedural_name(seed)), std::string::npos);
  EXPECT_NE(cuda.find("vxsynth_candidate_launch"), std::string::npos);
  EXPECT_EQ(cuda.find("partial"), std::string::npos);  // no split-K
  EXPECT_EQ(cuda.find("a_pad"), std::string::npos);    // not padded
  EXPECT_EQ(cuda.find("wmma"), std::string::npos);     // SIMT
  EXPECT_EQ(cuda.find("__ldcs"), std::string::npos);
  DesignPoint split = seed;
  split.split_k = 3;
  split.read_once = design::ReadOnce::kStreaming;
  const std::string s = emit_cuda(split);
  EXPECT_NE(s.find("reduce_split_k"), std::string::npos);
  EXPECT_NE(s.find("__ldcs"), std::string::npos);
  EXPECT_EQ(s.find("atomicAdd"), std::string::npos);  // split-K without atomics
  const auto vortex = emit_vortex(seed, {});
  ASSERT_EQ(vortex.size(), 6u);  // common.h, kernel.cpp, vx_branchless.h, main.cpp, CMakeLists.txt, Makefile
  for (const auto& f : vortex) {
    // The kernel's project-only header travels with it, so a Vortex tree needs no vxsynth folder.
    std::string wanted;
    if (f.name == "kernel.cpp") wanted = "#include \"vx_branchless.h\"";
    if (f.name == "vx_branchless.h") wanted = "vxb_select";
    if (f.name == "Makefile") wanted = "-fno-split-paths";
    if (f.name == "main.cpp") wanted = "VX_CSR_MPM_RESERVED";
    if (!wanted.empty()) {
      EXPECT_NE(f.text.find(wanted), std::string::npos) << f.name;
    }
  }
  for (const auto& f : vortex) {
    if (f.name == "kernel.cpp" || f.name == "main.cpp" || f.name == "common.h") {
      EXPECT_NE(f.text.find(design::procedural_name(seed)), std::string::npos) << f.name;
    }
  }
}

}  // namespace
}  // namespace vxsynth::codegen
