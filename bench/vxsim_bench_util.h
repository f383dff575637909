// Shared by the simulator benchmarks: CPU time of this thread (the machine is shared, so rates
// per CPU second are reported beside rates per wall second) and building a kernel of this
// repository once per process.
#pragma once

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "vxsim/host/kernel_build.h"

namespace vxsynth::bench {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Path of a kernel of this repository (`rel`: its source below the checkout, e.g.
// bench/timing_kernels/probes/ld_scatter.cpp; its folder is on the include path) built into a
// .vxbin (once per process), or "" after printing why when it cannot be built.
inline const std::string& source_kernel_vxbin(const std::string& rel) {
  static std::map<std::string, std::string> built;
  auto it = built.find(rel);
  if (it != built.end()) return it->second;
  std::string path;
  try {
    const std::filesystem::path source = std::filesystem::path(VXSYNTH_SOURCE_DIR) / rel;
    vxsim::host::KernelBuildOptions o;
    o.sources = {source.string()};
    o.include_dirs = {source.parent_path().string()};
    o.output = (std::filesystem::temp_directory_path() /
                ("vxsim_bench_" + source.parent_path().filename().string() + "_" + source.stem().string() + "_" +
                 std::to_string(getpid()) + ".vxbin"))
                   .string();
    path = vxsim::host::build_kernel(o).vxbin;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot build %s: %s\n", rel.c_str(), e.what());
  }
  return built.emplace(rel, path).first->second;
}

// vortex-rt/examples/<name>/kernel.cpp (source_kernel_vxbin).
inline const std::string& example_kernel_vxbin(const std::string& name) {
  return source_kernel_vxbin("vortex-rt/examples/" + name + "/kernel.cpp");
}

}  // namespace vxsynth::bench
