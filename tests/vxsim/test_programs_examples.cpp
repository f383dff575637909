// Whole programs: the vortex-rt examples' regression-style host programs (main.cpp against
// vortex.h, kernel.cpp against the Vortex kernel API) run as a user runs them, at odd sizes
// and on several core/warp/thread shapes; each checks its results against a CPU reference
// and prints PASSED!, and vx_dev_close prints Vortex's PERF line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "host_test_util.h"

using namespace vxrt_test;
using ::testing::HasSubstr;

namespace {

struct Shape {
  uint32_t cores, warps, threads;
};

std::vector<std::string> env_of(const Shape& s) {
  return {"VXSIM_CORES=" + std::to_string(s.cores), "VXSIM_WARPS=" + std::to_string(s.warps),
          "VXSIM_THREADS=" + std::to_string(s.threads)};
}

std::string describe(const Shape& s) {
  return std::to_string(s.cores) + "c" + std::to_string(s.warps) + "w" + std::to_string(s.threads) + "t";
}

const std::vector<Shape> kShapes = {{1, 4, 4}, {2, 2, 8}, {3, 8, 2}, {1, 1, 1}, {4, 4, 32}, {2, 16, 4}};

ProcessResult run_example(const std::string& name, const std::vector<std::string>& args, const Shape& shape) {
  // sgemm_tcu uses -k for K (as a GEMM does) and -f for the kernel file.
  const std::string kernel_flag = name == "sgemm_tcu" ? "-f" : "-k";
  std::vector<std::string> argv = {example_dir(name) + "/" + name, kernel_flag, example_kernel(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, env_of(shape));
}

void expect_passed(const ProcessResult& r, const std::string& what) {
  EXPECT_EQ(r.status, 0) << what << "\n" << r.output;
  EXPECT_EQ(last_line(r.output), "PASSED!") << what << "\n" << r.output;
  static const std::regex perf(R"(PERF: instrs=[1-9][0-9]*, cycles=n/a, IPC=n/a)");
  bool found = false;
  for (const auto& line : lines_of(r.output)) found = found || std::regex_match(line, perf);
  EXPECT_TRUE(found) << what << ": no PERF summary line\n" << r.output;
}

class Examples : public ::testing::TestWithParam<Shape> {};

TEST_P(Examples, Vecadd) {
  for (int n : {1, 37, 1000}) expect_passed(run_example("vecadd", {"-n", std::to_string(n)}, GetParam()), "vecadd n=" + std::to_string(n));
}

TEST_P(Examples, Saxpy) {
  for (int n : {3, 130}) {
    expect_passed(run_example("saxpy", {"-n", std::to_string(n), "-a", "-2.5"}, GetParam()), "saxpy n=" + std::to_string(n));
  }
}

TEST_P(Examples, NaiveSgemm) {
  for (int n : {1, 13, 33}) expect_passed(run_example("sgemm", {"-n", std::to_string(n)}, GetParam()), "sgemm n=" + std::to_string(n));
}

TEST_P(Examples, TiledSgemmWithBarriers) {
  for (int n : {5, 37}) {
    expect_passed(run_example("sgemm_tiled", {"-n", std::to_string(n)}, GetParam()), "sgemm_tiled n=" + std::to_string(n));
  }
}

TEST_P(Examples, BlockReduction) {
  for (int n : {1, 999}) {
    expect_passed(run_example("dotproduct", {"-n", std::to_string(n)}, GetParam()), "dotproduct n=" + std::to_string(n));
  }
}

// vx_tensor.h on the tensor unit: fp16 -> fp32 WMMA tiles, fragment layouts for this warp width.
TEST_P(Examples, TensorUnitGemm) {
  expect_passed(run_example("sgemm_tcu", {"-m", "20", "-n", "24", "-k", "40"}, GetParam()), "sgemm_tcu 20x24x40");
  expect_passed(run_example("sgemm_tcu", {"-m", "33", "-n", "17", "-k", "70"}, GetParam()), "sgemm_tcu 33x17x70");
}

// Every task's line arrives exactly once, whole, on its hardware thread's console slot,
// with the task's own value formatted by picolibc's printf (integers and a double).
TEST_P(Examples, PrintfFromManyThreads) {
  const Shape shape = GetParam();
  const uint32_t tasks = 53;
  const ProcessResult r = run_example("printf", {"-n", std::to_string(tasks)}, shape);
  expect_passed(r, "printf");
  static const std::regex task_line(
      R"(#(?:\d+\.)?(\d+): task (\d+): core (\d+) warp (\d+) thread (\d+) value (-?\d+) scaled (-?\d+\.\d\d))");
  static const std::regex input_line(R"(input (\d+): (-?\d+))");
  std::map<uint32_t, int> inputs;
  std::map<uint32_t, std::smatch> seen;
  std::vector<std::string> lines = lines_of(r.output);
  uint32_t banner_lines = 0;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, input_line)) inputs[std::stoul(m[1])] = std::stoi(m[2]);
    if (line.find("printf kernel on core") != std::string::npos) ++banner_lines;
  }
  EXPECT_EQ(banner_lines, shape.cores);  // main() runs once on every core
  std::set<uint32_t> tasks_seen;
  for (const std::string& line : lines) {
    std::smatch m;
    if (line.find(": task ") == std::string::npos) continue;
    ASSERT_TRUE(std::regex_match(line, m, task_line)) << "garbled line: " << line;
    const uint32_t slot = std::stoul(m[1]), task = std::stoul(m[2]);
    const uint32_t core = std::stoul(m[3]), warp = std::stoul(m[4]), thread = std::stoul(m[5]);
    EXPECT_TRUE(tasks_seen.insert(task).second) << "task " << task << " printed twice";
    EXPECT_LT(core, shape.cores);
    EXPECT_LT(warp, shape.warps);
    EXPECT_LT(thread, shape.threads);
    EXPECT_EQ(slot, ((core * shape.warps + warp) * shape.threads + thread) % 64) << line;
    ASSERT_TRUE(inputs.count(task)) << line;
    EXPECT_EQ(std::stoi(m[6]), inputs[task]) << line;
    char scaled[32];
    std::snprintf(scaled, sizeof scaled, "%.2f", inputs[task] * 0.5);
    EXPECT_EQ(m[7].str(), scaled) << line;
  }
  EXPECT_EQ(tasks_seen.size(), tasks);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Examples, ::testing::ValuesIn(kShapes),
                         [](const ::testing::TestParamInfo<Shape>& param_info) { return describe(param_info.param); });

TEST(ExamplesElf, HostProgramLoadsTheElfToo) {
  const ProcessResult r = run({example_dir("vecadd") + "/vecadd", "-n", "21", "-k", example_kernel("vecadd", ".elf")});
  expect_passed(r, "vecadd from kernel.elf");
}

TEST(ExamplesPerf, ProfilingClassAddsPerCoreCounters) {
  const ProcessResult plain = run({example_dir("dotproduct") + "/dotproduct", "-n", "300", "-k", example_kernel("dotproduct")});
  expect_passed(plain, "dotproduct");
  EXPECT_THAT(plain.output, ::testing::Not(HasSubstr("warp instrs=")));
  const ProcessResult profiled = run({example_dir("dotproduct") + "/dotproduct", "-n", "300", "-k",
                                      example_kernel("dotproduct")},
                                     {"VORTEX_PROFILING=1", "VXSIM_CORES=2"});
  expect_passed(profiled, "dotproduct profiled");
  static const std::regex core_line(
      R"(PERF: core1: warp instrs=\d+, active lanes=[\d.]+%, loads=\d+, stores=\d+, divergent splits=[1-9]\d*, barrier waits=[1-9]\d*, warps spawned=\d+)");
  bool found = false;
  for (const auto& line : lines_of(profiled.output)) found = found || std::regex_match(line, core_line);
  EXPECT_TRUE(found) << profiled.output;  // the reduction diverges (split/join) and waits at barriers
}

TEST(ExamplesErrors, MissingKernelFileFailsCleanly) {
  const ProcessResult r = run({example_dir("vecadd") + "/vecadd", "-n", "8", "-k", "does/not/exist.vxbin"});
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("does/not/exist.vxbin"));
  EXPECT_THAT(r.output, HasSubstr("vx_upload_kernel_file"));
}

TEST(ExamplesErrors, BadShapeInEnvironmentNamesTheVariable) {
  const ProcessResult r = run({example_dir("vecadd") + "/vecadd", "-n", "8", "-k", example_kernel("vecadd")},
                              {"VXSIM_WARPS=6"});
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("warps"));
  EXPECT_THAT(r.output, HasSubstr("power of two"));
}

}  // namespace
