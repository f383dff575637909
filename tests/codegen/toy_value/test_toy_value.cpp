// Adding an axis value takes its components and one validity rule, nothing else: this test adds
// prefetch = "unroll_off" from outside src/ (toy_value.h, one component file per backend) plus
// the rule below, and checks that design.json, validity, both emitters, the CUDA compiler and
// the embedded simulator take it like a built-in value.
#include <gtest/gtest.h>

#include "../codegen_testbed.h"
#include "codegen/component.h"
#include "codegen/emit.h"
#include "common/error.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/validity.h"
#include "refine/sim_run.h"
#include "toy_value.h"

namespace vxsynth::codegen {
namespace {

using design::DesignPoint;
namespace tb = testbed;

// The value's name and its rule (a toy restriction: the rolled loop is for one K range).
const bool kAdded = [] {
  design::add_value(toy::kUnrollOff, toy::kUnrollOffName);
  design::add_rule({"toy-unroll-off-split-k", "prefetch unroll_off needs split_k = 1",
                    [](const DesignPoint& d) -> std::optional<std::string> {
                      if (d.prefetch == toy::kUnrollOff && d.split_k != 1) {
                        return "prefetch unroll_off with split_k " + std::to_string(d.split_k);
                      }
                      return std::nullopt;
                    }});
  return true;
}();

DesignPoint toy_design() {
  DesignPoint d = design::seed_design(ops::make_linear("toy", ops::PrecisionPath::fp32, 37, 53, 71, true,
                                                       ops::Activation::relu),
                                      design::EngineClass::kSimt, 128);
  d.prefetch = toy::kUnrollOff;
  return d;
}

std::string kernel_of(const std::vector<SourceFile>& files) {
  for (const auto& f : files)
    if (f.name == "kernel.cpp") return f.text;
  return "";
}

TEST(ToyAxisValue, IsAValueOfItsAxis) {
  ASSERT_TRUE(kAdded);
  EXPECT_EQ(design::to_string(toy::kUnrollOff), "unroll_off");
  design::Prefetch parsed{};
  EXPECT_TRUE(design::parse("unroll_off", parsed));
  EXPECT_EQ(parsed, toy::kUnrollOff);
  const auto& values = design::all_values<design::Prefetch>();
  EXPECT_NE(std::find(values.begin(), values.end(), toy::kUnrollOff), values.end());
  // design.json round trip.
  const DesignPoint d = toy_design();
  EXPECT_EQ(design::design_from_json(design::design_to_json(d)).prefetch, toy::kUnrollOff);
  EXPECT_THROW(design::add_value(static_cast<design::Prefetch>(101), "unroll_off"), WorkError);  // name taken
}

// The typed move vocabulary reaches the value with nothing added: `gen --set`, a step among the
// neighbours of a design that does not have it, the way back, and its rule on a set.
TEST(ToyAxisValue, MovesReachIt) {
  const DesignPoint seed = design::seed_design(ops::make_linear("toy", ops::PrecisionPath::fp32, 37, 53, 71, true,
                                                                ops::Activation::relu),
                                               design::EngineClass::kSimt, 128);
  ASSERT_NE(seed.prefetch, toy::kUnrollOff);
  EXPECT_EQ(design::apply_settings(seed, {"prefetch=unroll_off"}).prefetch, toy::kUnrollOff);
  const design::Move step{design::Axis::kPrefetch, "to:unroll_off", "", std::nullopt};
  bool listed = false;
  for (const auto& n : design::neighbours(seed)) listed |= n.move == step && n.design.prefetch == toy::kUnrollOff;
  EXPECT_TRUE(listed);
  const DesignPoint toy = design::apply(seed, step);
  EXPECT_EQ(design::apply(toy, design::Move{design::Axis::kPrefetch, "to:" + design::to_string(seed.prefetch), "",
                                            std::nullopt})
                .prefetch,
            seed.prefetch);
  try {
    design::apply_settings(seed, {"prefetch=unroll_off", "split_k=2"});
    ADD_FAILURE() << "the toy rule did not fire";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("toy-unroll-off-split-k"), std::string::npos) << e.what();
  }
}

TEST(ToyAxisValue, ItsRuleRejectsDesignsThatBreakIt) {
  DesignPoint d = toy_design();
  EXPECT_FALSE(design::can_implement(d)) << design::can_implement(d)->detail;
  d.split_k = 2;
  const auto v = design::can_implement(d);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "toy-unroll-off-split-k");
  EXPECT_THROW(emit_cuda(d), InputError);
  bool listed = false;
  for (const auto& [id, text] : design::rule_descriptions()) listed |= id == "toy-unroll-off-split-k";
  EXPECT_TRUE(listed);
}

TEST(ToyAxisValue, BothBackendsUseItsComponents) {
  const DesignPoint d = toy_design();
  const std::string cuda = tb::one_line(emit_cuda(d));
  EXPECT_NE(cuda.find("#pragma unroll 1 for (idx_t k0 = k_begin;"), std::string::npos);
  EXPECT_NE(cuda.find("prefetch = unroll_off: no prefetch, the k-tile loop under #pragma unroll 1"), std::string::npos);
  const std::string kernel = tb::one_line(kernel_of(emit_vortex(d, {})));
  EXPECT_NE(kernel.find("#pragma GCC unroll 1 for (idx_t k0 = k_begin;"), std::string::npos);
  EXPECT_NE(kernel.find("prefetch = unroll_off: no prefetch, the k-tile loop under #pragma GCC unroll 1"), std::string::npos);
}

TEST(ToyAxisValue, AMissingComponentIsAClearError) {
  // The toy value's Vortex component taken away: the error names family, value and backend.
  const auto* vortex = Registry<Pipeline>::instance().find(toy::kUnrollOffName, Backend::kVortex);
  ASSERT_NE(vortex, nullptr);
  try {
    Registry<Pipeline>::instance().get("no_such_value", Backend::kVortex);
    ADD_FAILURE() << "no error";
  } catch (const WorkError& e) {
    EXPECT_NE(std::string(e.what()).find("no pipeline component for value \"no_such_value\" on the vortex backend"),
              std::string::npos)
        << e.what();
  }
}

TEST(ToyAxisValue, CudaSideCompilesForSm90) {
  const std::string nvcc = tb::find_nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (set VXSYNTH_NVCC)";
  EXPECT_EQ(tb::compile_cuda_batch({toy_design()}, tb::scratch_dir("toy-cuda"), nvcc), "");
}

TEST(ToyAxisValue, VortexSidePassesOnTheSimulator) {
  const DesignPoint d = toy_design();
  const BenchmarkFiles files = write_benchmark(d, tb::scratch_dir("toy-vortex").string());
  const refine::SimRunResult r = refine::run_on_simulator(d, files);
  EXPECT_TRUE(r.passed) << r.output << "\n" << r.check_text;
}

}  // namespace
}  // namespace vxsynth::codegen
