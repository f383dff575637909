// Helpers for the vortex-rt / host runtime tests (host_tests.cmake).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vxsim/host/kernel_build.h"

namespace vxrt_test {

inline std::string example_dir(const std::string& name) { return std::string(VORTEX_RT_EXAMPLES_DIR) + "/" + name; }
inline std::string example_kernel(const std::string& name, const std::string& ext = ".vxbin") {
  return example_dir(name) + "/kernel" + ext;
}

struct ProcessResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// Runs argv (no shell) with extra environment assignments "NAME=VALUE".
inline ProcessResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
  ProcessResult result;
  vxsynth::ProcessOptions o;
  o.capture = &result.output;
  o.env = env;
  result.status = vxsynth::run_process(argv, o).exit_code;
  return result;
}

// Runs a shell command line; stdout only (stderr is discarded).
inline ProcessResult run_stdout(const std::string& command) {
  ProcessResult result;
  result.status = vxsynth::vxsim::host::run_program({"/bin/sh", "-c", command + " 2>/dev/null"}, &result.output);
  return result;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

inline std::string last_line(const std::string& text) {
  auto lines = lines_of(text);
  return lines.empty() ? std::string() : lines.back();
}

}  // namespace vxrt_test
