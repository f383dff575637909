// Helpers shared by the GPU part's tests: temporary folders, running the CLI, reading files.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu/candidate_build.h"
#include "common/process.h"

namespace vxsynth::gpu::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("vxsynth-" + tag + "-XXXXXX")).string();
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs the built vxsynth with `args`; `env` entries ("NAME=value") are added.
inline CliRun run_cli(const std::vector<std::string>& args, const std::string& scratch,
                      const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {VXSYNTH_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string log = (std::filesystem::path(scratch) / "cli-output.txt").string();
  CliRun r;
  ProcessOptions o;
  o.stdout_path = o.stderr_path = log;
  o.env = env;
  r.exit_code = run_process(argv, o).exit_code;
  r.output = read_text(log);
  return r;
}

inline bool have_nvcc() { return !locate_nvcc().empty(); }

// Set to 1 on a machine that cannot have nvcc: the nvcc tests are then skipped (and `make test`
// lists them as skipped in its closing lines) instead of failing.
inline bool missing_nvcc_allowed() {
  const char* v = std::getenv("VXSYNTH_ALLOW_MISSING_NVCC");
  return v && std::string(v) == "1";
}

}  // namespace vxsynth::gpu::testing

// For tests that build real candidates: nvcc is a dependency of `make test` (scripts/install-deps
// installs it where Debian has it), so its absence fails the test unless explicitly allowed.
#define VXSYNTH_REQUIRE_NVCC()                                                                       \
  do {                                                                                               \
    if (!::vxsynth::gpu::testing::have_nvcc()) {                                                     \
      if (::vxsynth::gpu::testing::missing_nvcc_allowed())                                           \
        GTEST_SKIP() << "nvcc not found (VXSYNTH_ALLOW_MISSING_NVCC=1)";                             \
      FAIL() << "nvcc not found (looked at $VXSYNTH_NVCC, PATH, /usr/local/cuda/bin): install the "  \
                "CUDA toolkit (scripts/install-deps says how), or set VXSYNTH_ALLOW_MISSING_NVCC=1 " \
                "to skip the candidate-build tests";                                                 \
    }                                                                                                \
  } while (0)

namespace vxsynth::gpu::testing {

}  // namespace vxsynth::gpu::testing
