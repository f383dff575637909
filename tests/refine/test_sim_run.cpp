// run_on_simulator (refine/sim_run.h) over generated benchmarks: the design samples of
// tests/codegen (design_samples.h) built with the RISC-V toolchain, run on the embedded
// simulator and checked against the ops CPU reference (Check::candidate), SIMT designs of
// every family and precision path, and tensor-core designs on the Vortex tensor unit.
#include <gtest/gtest.h>

#include "../codegen/codegen_testbed.h"
#include "../codegen/design_samples.h"
#include "common/error.h"
#include "refine/sim_run.h"
#include "sim_runner.h"

namespace vxsynth::codegen {
namespace {

using sim_runner::run_all;

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
