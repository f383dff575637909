#include "refine/sim_run.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/process.h"
#include "ops/tensor_file.h"
#include "vxsim/host/kernel_build.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

vxsim::Config simulator_config(const design::VortexConfig& v) {
  vxsim::Config c;
  static_cast<VortexMachine&>(c) = v;  // the same struct (common/vortex_machine.h)
  c.validate("design vortex machine");
  return c;
}

SimRunResult run_on_simulator(const design::DesignPoint& d, const BenchmarkFiles& files, const SimRunOptions& options) {
  SimRunResult r;
  const fs::path vdir = files.vortex_dir;
  const fs::path build = options.build_dir.empty() ? vdir / "build" : fs::path(options.build_dir);
  std::error_code ec;
  fs::create_directories(build, ec);
  const auto start = std::chrono::steady_clock::now();

  vxsim::host::KernelBuildOptions kernel;
  kernel.sources = {(vdir / "kernel.cpp").string()};
  kernel.include_dirs = {vdir.string()};
  kernel.output = (build / "kernel.vxbin").string();
  kernel.verbose = options.verbose;
  kernel.warnings = &r.kernel_warnings;  // a generated kernel's warnings do not interleave with progress output
  vxsim::host::build_kernel(kernel);
  if (options.verbose && !r.kernel_warnings.empty()) std::fputs(r.kernel_warnings.c_str(), stderr);

  const std::string bench = (build / "bench").string();
  std::vector<std::string> cxx = {"c++", "-std=c++20", "-O1", "-DVXSYNTH_EMBEDDED_SIM", "-o", bench,
                                   (vdir / "main.cpp").string(), "-I", vdir.string(), "-I", VXSYNTH_SRC_INCLUDE, "-I",
                                   VXSYNTH_SIM_HOST_INCLUDE, "-I", VXSYNTH_VORTEX_RT_INCLUDE, VXSYNTH_SIM_HOST_LIB,
                                   VXSYNTH_SIM_LIB, VXSYNTH_OPS_LIB, VXSYNTH_COMMON_LIB, "-lpthread"};
  std::string text;
  if (options.verbose) {
    for (const auto& a : cxx) text += a + " ";
    std::printf("%s\n", text.c_str());
    text.clear();
  }
  if (vxsim::host::run_program(cxx, &text) != 0) {
    throw WorkError("building " + (vdir / "main.cpp").string() + " for the embedded simulator failed:\n" + text);
  }
  r.build_seconds = seconds_since(start);

  const auto run_start = std::chrono::steady_clock::now();
  const std::string dump = (build / "y.vxt").string();
  fs::remove(dump, ec);
  // The program asks for the design's machine itself (bench.h); the environment is set too,
  // so that VXSIM_* settings of the caller's environment do not change what is checked.
  const vxsim::Config machine = simulator_config(d.vortex);
  ProcessOptions run;
  run.capture = &r.output;
  run.env = {"VXSIM_CORES=" + std::to_string(machine.cores), "VXSIM_WARPS=" + std::to_string(machine.warps),
             "VXSIM_THREADS=" + std::to_string(machine.threads),
             "VXSIM_LOCAL_MEM=" + std::to_string(machine.local_mem_bytes),
             std::string("VXSIM_TIMING=") + (options.timing ? "vortex2" : "none"), "VXSIM_TIMING_PARAMS=",
             "VXSIM_TIMING_CONFIG=", "VXSIM_RUN_JSON=" + options.run_json};
  if (!options.run_json.empty()) fs::remove(options.run_json, ec);
  const ProcessResult pr = run_process({bench, "-k", kernel.output, "-d", (vdir / "data").string(), "-o", dump}, run);
  r.exit_code = pr.exit_code;
  r.run_cpu_seconds = pr.cpu_seconds;
  r.run_seconds = seconds_since(run_start);

  const auto instrs = r.output.rfind("PERF: instrs=");
  if (instrs != std::string::npos) r.thread_instructions = std::stoull(r.output.substr(instrs + 13));
  if (fs::is_regular_file(dump)) {
    const ops::Tensor expected = ops::read_tensor_file((vdir / "data" / "expected.vxt").string());
    const ops::Tensor actual = ops::read_tensor_file(dump);
    r.check = ops::compare_outputs(expected, actual, files.tolerance, ops::Check::candidate);
    r.check_text = r.check.text();
  } else {
    r.check_text = "no output dumped (the benchmark stopped before its check)";
  }
  r.passed = r.exit_code == 0 && r.output.find("PASSED!") != std::string::npos && r.check.passed();
  return r;
}

}  // namespace vxsynth::refine
