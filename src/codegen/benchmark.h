// Writing a design's paired programs to disk, and running the Vortex side on the embedded
// simulator (`vxsynth gen --out DIR [--run-sim]`).
//
//   DIR/design.json          the design point (vxsynth.design/1)
//   DIR/cuda/candidate.cu    the CUDA candidate (candidate ABI, sm_90)
//   DIR/vortex/              common.h kernel.cpp main.cpp CMakeLists.txt Makefile
//   DIR/vortex/data/         seeded inputs and the CPU reference output (vxsynth tensor files)
#pragma once

#include <cstdint>
#include <string>

#include "design/design_point.h"
#include "ops/equivalence.h"

namespace vxsynth::codegen {

struct BenchmarkOptions {
  std::uint64_t seed = 1;   // input seed (ops::generate_inputs)
  bool format = true;       // clang-format the sources when it is installed
  bool write_data = true;   // inputs + reference output under vortex/data
};

struct BenchmarkFiles {
  std::string dir, design_json, cuda_source, vortex_dir;
  bool vortex = false;          // false when the Vortex side could not be generated
  std::string vortex_skipped;   // why
  ops::Tolerance tolerance;     // candidate check tolerance main.cpp uses
};

// WorkError when a file cannot be written; InputError for an invalid design. The Vortex side
// of a design it cannot be generated for (see vortex_supported) is left out and explained.
BenchmarkFiles write_benchmark(const design::DesignPoint& d, const std::string& dir, const BenchmarkOptions& options = {});

struct SimRunOptions {
  std::string build_dir;  // default: <vortex_dir>/build
  bool verbose = false;   // print the commands
};

struct SimRunResult {
  bool passed = false;          // main.cpp printed PASSED! and the host-side check agrees
  int exit_code = -1;           // of main.cpp
  std::string output;           // main.cpp's stdout + stderr
  std::string check_text;       // ops::compare_outputs report of the dumped output
  ops::EquivalenceReport check;
  std::uint64_t thread_instructions = 0;  // from the PERF line
  double build_seconds = 0.0, run_seconds = 0.0;
};

// Builds kernel.vxbin (vortex-rt, RISC-V GCC) and main.cpp (host compiler, the vxsim host
// runtime of this build), runs it with the design's Vortex configuration and checks the dumped
// output against the reference with ops::compare_outputs (Check::candidate). WorkError when a
// build fails.
SimRunResult run_on_simulator(const design::DesignPoint& d, const BenchmarkFiles& files, const SimRunOptions& options = {});

}  // namespace vxsynth::codegen
