// run_on_simulator (refine/sim_run.h) over generated benchmarks: the design samples of
// tests/codegen (design_samples.h) built with the RISC-V toolchain, run on the embedded
// simulator and checked against the ops CPU reference (Check::candidate), SIMT designs of
// every family and precision path, and tensor-core designs on the Vortex tensor unit.
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "../codegen/codegen_testbed.h"
#include "../codegen/design_samples.h"
#include "common/error.h"
#include "refine/sim_run.h"

namespace vxsynth::codegen {
namespace {

namespace tb = testbed;

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

}  // namespace
}  // namespace vxsynth::codegen

namespace vxsynth::refine {
namespace {

// design::VortexConfig and vxsim::Config default to the same machine (VX_config.h), and the
// one conversion keeps every field and refuses a machine the simulator cannot be.
TEST(SimulatorConfig, DefaultsAgreeAndTheConversionIsExact) {
  const vxsim::Config sim_default;
  const vxsim::Config from_design = simulator_config(design::VortexConfig{});
  EXPECT_EQ(from_design.cores, sim_default.cores);
  EXPECT_EQ(from_design.warps, sim_default.warps);
  EXPECT_EQ(from_design.threads, sim_default.threads);
  EXPECT_EQ(from_design.local_mem_size, sim_default.local_mem_size);
  const vxsim::Config c = simulator_config({2, 8, 16, 32768});
  EXPECT_EQ(c.cores, 2u);
  EXPECT_EQ(c.warps, 8u);
  EXPECT_EQ(c.threads, 16u);
  EXPECT_EQ(c.local_mem_size, 32768u);
  EXPECT_THROW(simulator_config({1, 3, 16, 16384}), InputError);   // warps not a power of two
  EXPECT_THROW(simulator_config({1, 8, -16, 16384}), InputError);  // negative threads
}

}  // namespace
}  // namespace vxsynth::refine
