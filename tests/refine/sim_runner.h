// Generated benchmarks through run_on_simulator (refine/sim_run.h), two at a time (CI has two
// cores), each failure reported by design name; shared by the GEMM families' runs
// (test_sim_run.cpp) and the layout-transform family's (tests/codegen/test_transform_codegen.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "../codegen/codegen_testbed.h"
#include "refine/sim_run.h"

namespace vxsynth::codegen::sim_runner {

struct RunOutcome {
  std::string name;
  bool passed = false;
  std::string details;
  std::uint64_t instructions = 0;
  double seconds = 0.0;
};

// `exact`: the benchmark must check bit for bit (a layout transform), here and in main.cpp.
inline RunOutcome generate_and_run(const design::DesignPoint& d, const std::string& dir, bool exact) {
  RunOutcome o;
  o.name = design::procedural_name(d);
  const auto start = std::chrono::steady_clock::now();
  try {
    const BenchmarkFiles files = write_benchmark(d, dir);
    EXPECT_EQ(files.tolerance.exact, exact) << o.name;
    const refine::SimRunResult r = refine::run_on_simulator(d, files);
    o.passed = r.passed && r.check.tolerance.exact == exact;
    o.instructions = r.thread_instructions;
    if (!o.passed) o.details = r.output + "\n" + r.check_text;
  } catch (const std::exception& e) {
    o.details = e.what();
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

inline void run_all(const std::vector<design::DesignPoint>& designs, const std::string& label, bool exact = false) {
  const auto root = testbed::scratch_dir(label);
  const auto start = std::chrono::steady_clock::now();
  std::size_t passed = 0;
  for (std::size_t i = 0; i < designs.size(); i += 2) {
    std::vector<std::future<RunOutcome>> jobs;
    for (std::size_t j = i; j < std::min(designs.size(), i + 2); ++j) {
      jobs.push_back(
          std::async(std::launch::async, generate_and_run, designs[j], (root / std::to_string(j)).string(), exact));
    }
    for (auto& job : jobs) {
      const RunOutcome o = job.get();
      EXPECT_TRUE(o.passed) << o.name << "\n" << o.details;
      passed += o.passed;
      std::printf("  %s: %s, %.2f G thread-instructions, %.1f s\n", o.name.c_str(), o.passed ? "PASSED" : "FAILED",
                  o.instructions / 1e9, o.seconds);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu/%zu designs passed on the embedded simulator in %.1f s\n", label.c_str(), passed,
              designs.size(), seconds);
}

}  // namespace vxsynth::codegen::sim_runner
