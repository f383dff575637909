#include <gtest/gtest.h>

#include "codegen_testbed.h"
#include "common/error.h"
#include "design/sample.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

using design::DesignPoint;
using design::EngineClass;
namespace tb = testbed;

DesignPoint seed(const ops::OpSpec& op, EngineClass e, int block) { return design::seed_design(op, e, block); }

TEST(Smoke, LinearSimt) {
  const auto op = ops::make_linear("t", ops::PrecisionPath::fp32, 37, 53, 71, true, ops::Activation::gelu);
  const DesignPoint d = seed(op, EngineClass::kSimt, 128);
  const auto dir = tb::scratch_dir("smoke");
  const BenchmarkFiles files = write_benchmark(d, dir.string());
  const SimRunResult r = run_on_simulator(d, files);
  EXPECT_TRUE(r.passed) << r.output << "\n" << r.check_text;
  const std::string nvcc = tb::find_nvcc();
  if (!nvcc.empty()) {
    EXPECT_EQ(tb::compile_cuda_batch({d}, dir, nvcc), "");
  }
}

}  // namespace
}  // namespace vxsynth::codegen
