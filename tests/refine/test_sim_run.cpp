// run_on_simulator (refine/sim_run.h) over generated benchmarks: the design samples of
// tests/codegen (design_samples.h) built with the RISC-V toolchain, run on the embedded
// simulator and checked against the ops CPU reference (Check::candidate), SIMT designs of
// every family and precision path, and tensor-core designs on the Vortex tensor unit.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "../codegen/codegen_testbed.h"
#include "../codegen/design_samples.h"
#include "common/error.h"
#include "design/seed.h"
#include "design/validity.h"
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

// prefetch cp_async on Vortex: the same ring of kStages local tiles, filled by synchronous word
// copies with the barriers where the CUDA side has them, computes the CPU reference's results on
// the cp_async sample's odd shapes (an empty split-K slice, slices with fewer k-tiles than
// stages, every boundary, 16-bit pairs).
TEST(Vortex, CpAsyncDesignsPassOnTheSimulator) {
  const auto designs = cp_async_sample();
  for (const auto& d : designs) {
    const auto files = emit_vortex(d, VortexCheck{1.5e-3, 2.5e-2, 7});
    const auto kernel = std::find_if(files.begin(), files.end(), [](const auto& f) { return f.name == "kernel.cpp"; });
    ASSERT_NE(kernel, files.end());
    EXPECT_NE(kernel->text.find("Vortex has no asynchronous copy"), std::string::npos) << design::procedural_name(d);
  }
  run_all(designs, "vortex-cp-async");
}

// split_reduce serial on Vortex: the two passes after the global barrier, as separate; the
// sample's odd shapes (an empty last slice, batches, 16-bit outputs, a stripped activation)
// compute the CPU reference's results.
TEST(Vortex, SerialSplitReduceDesignsPassOnTheSimulator) { run_all(split_reduce_sample(), "vortex-split-reduce"); }

}  // namespace
}  // namespace vxsynth::codegen

namespace vxsynth::refine {
namespace {

// design::VortexConfig and vxsim::Config are one struct (common/vortex_machine.h): the same
// defaults (VX_config.h), every field kept by the conversion, and a machine the simulator
// cannot be refused by both the design's validity and the simulator, naming the same field.
TEST(SimulatorConfig, DefaultsAgreeAndTheConversionIsExact) {
  static_assert(std::is_base_of_v<design::VortexConfig, vxsim::Config>);
  const vxsim::Config sim_default;
  const vxsim::Config from_design = simulator_config(design::VortexConfig{});
  EXPECT_EQ(static_cast<const VortexMachine&>(from_design), static_cast<const VortexMachine&>(sim_default));
  const vxsim::Config c = simulator_config({2, 8, 16, 32768});
  EXPECT_EQ(c.cores, 2u);
  EXPECT_EQ(c.warps, 8u);
  EXPECT_EQ(c.threads, 16u);
  EXPECT_EQ(c.local_mem_bytes, 32768u);
  const std::vector<std::pair<design::VortexConfig, std::string>> bad = {
      {{1, 3, 16, 16384}, "warps"},     // not a power of two
      {{1, 8, 0, 16384}, "threads"},    // none
      {{65, 8, 16, 16384}, "cores"},    // beyond the simulator's 64
      {{1, 8, 16, 100000}, "local_mem_bytes"}};
  for (const auto& [machine, field] : bad) {
    try {
      simulator_config(machine);
      ADD_FAILURE() << "accepted a bad " << field;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
    design::DesignPoint d = design::seed_design(ops::make_linear("x", ops::PrecisionPath::fp32, 9, 13, 17), EngineClass::kSimt, 64, "", "test");
    ASSERT_FALSE(design::can_implement(d)) << "the seed itself is valid";
    d.vortex = machine;
    const auto v = design::can_implement(d);
    ASSERT_TRUE(v) << field;
    EXPECT_EQ(v->rule, "vortex-config");
    EXPECT_NE(v->detail.find(field), std::string::npos) << v->detail;
  }
}

}  // namespace
}  // namespace vxsynth::refine

// The Vortex side's rules for an untrusted kernel (docs/gpu.md, "The Vortex side"): a kernel
// whose `main` is replaced by a cheat, on a real generated benchmark (the linear seed).
namespace vxsynth::refine {
namespace {

struct Cheat {
  design::DesignPoint design;
  codegen::BenchmarkFiles files;
};

Cheat cheat_benchmark(const std::string& label, const std::string& main_body) {
  Cheat c{codegen::family_sample("linear", ops::PrecisionPath::fp32, design::EngineClass::kSimt, 0, false).at(0), {}};
  c.files = codegen::write_benchmark(c.design, (codegen::testbed::scratch_dir(label) / "bench").string());
  const std::string kernel = c.files.vortex_dir + "/kernel.cpp";
  std::ifstream in(kernel);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto at = text.find("int main() {");
  if (at == std::string::npos) throw WorkError(kernel + ": no main()");
  text = "#include <vx_print.h>\n" + text.substr(0, at) + "int main() {\n" +
         "  kernel_arg_t* arg = (kernel_arg_t*)csr_read(VX_CSR_MSCRATCH);\n  (void)arg;\n" + main_body + "\n}\n";
  std::ofstream(kernel) << text;
  return c;
}

TEST(VortexRedTeam, TheKernelsConsoleCannotFakeThePassOrTheInstructionCount) {
  // Prints the host's verdict and a PERF line, computes nothing.
  const Cheat c = cheat_benchmark("vx-red-console", R"(  vx_printf("PASSED!\n");
  vx_printf("PERF: instrs=1\n");
  return 0;)");
  const SimRunResult r = run_on_simulator(c.design, c.files);
  EXPECT_NE(r.output.find("PASSED!"), std::string::npos) << "the kernel's print did not reach the console";
  EXPECT_FALSE(r.passed) << r.output;
  EXPECT_FALSE(r.check.passed());  // the dumped output is compared by vxsynth itself
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.thread_instructions, 1u) << "the kernel's PERF line was taken for the simulator's";
}

TEST(VortexRedTeam, AWriteToAnInputIsAnAclFault) {
  const Cheat c = cheat_benchmark("vx-red-input", R"(  ((volatile float*)(uintptr_t)arg->a_addr)[0] = 1.0f;
  return 0;)");
  const SimRunResult r = run_on_simulator(c.design, c.files);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("acl"), std::string::npos) << r.output;
}

TEST(VortexRedTeam, AWriteToTheKernelArgumentsIsAnAclFault) {
  // Pointing out_addr elsewhere (at an input, or anywhere) after the host has read it back.
  const Cheat c = cheat_benchmark("vx-red-args", R"(  arg->out_addr = arg->a_addr;
  return 0;)");
  const SimRunResult r = run_on_simulator(c.design, c.files);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace vxsynth::refine
