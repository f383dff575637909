// Runs a generated Vortex benchmark on the embedded simulator and checks it (`vxsynth gen
// --run-sim`, and the refinement loop's candidate check). It lives in refine because it joins
// two parts of the layer below: codegen's benchmark files and vxsim's host runtime.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/benchmark.h"
#include "design/design_point.h"
#include "ops/equivalence.h"
#include "vxsim/config.h"

namespace vxsynth::refine {

using codegen::BenchmarkFiles;

// The simulator configuration of a design's Vortex machine (the one conversion between
// design::VortexConfig and vxsim::Config; InputError when the simulator cannot be that machine).
vxsim::Config simulator_config(const design::VortexConfig& v);

struct SimRunOptions {
  std::string build_dir;  // default: <vortex_dir>/build
  bool verbose = false;   // print the commands
  // With the vortex2 timing model (default parameters: the caller's VXSIM_TIMING_* settings are
  // cleared), writing the run's vxsynth.vxsim-run/1 document (cycles, timing and functional
  // counters; the host API's VXSIM_RUN_JSON) to `run_json`. Without it: functional only.
  bool timing = false;
  std::string run_json;
};

struct SimRunResult {
  bool passed = false;          // main.cpp printed PASSED! and the host-side check agrees
  int exit_code = -1;           // of main.cpp
  std::string output;           // main.cpp's stdout + stderr
  std::string check_text;       // ops::compare_outputs report of the dumped output
  ops::EquivalenceReport check;
  std::uint64_t thread_instructions = 0;  // from the PERF line
  double build_seconds = 0.0, run_seconds = 0.0;
  double run_cpu_seconds = 0.0;  // CPU time of the run (a steadier figure than wall time on a shared machine)
  std::string kernel_warnings;   // the kernel compiler's warnings (printed with SimRunOptions::verbose)
};

// Builds kernel.vxbin (as `vxsynth sim cc`: clang 14, the divergence pass, vortex-rt) and main.cpp (host compiler, the vxsim host
// runtime of this build), runs it with the design's Vortex configuration and checks the dumped
// output against the reference with ops::compare_outputs (Check::candidate). WorkError when a
// build fails.
SimRunResult run_on_simulator(const design::DesignPoint& d, const BenchmarkFiles& files, const SimRunOptions& options = {});

}  // namespace vxsynth::refine
