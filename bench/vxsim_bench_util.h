// Shared by the simulator benchmarks: CPU time of this thread (the machine is shared, so rates
// per CPU second are reported beside rates per wall second) and building a vortex-rt example's
// kernel once per process.
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

// Path of vortex-rt/examples/<name>/kernel.cpp built into a .vxbin (once per process), or ""
// after printing why when it cannot be built.
inline const std::string& example_kernel_vxbin(const std::string& name) {
  static std::map<std::string, std::string> built;
  auto it = built.find(name);
  if (it != built.end()) return it->second;
  std::string path;
  try {
    vxsim::host::KernelBuildOptions o;
    const std::string dir = std::string(VXSYNTH_SOURCE_DIR) + "/vortex-rt/examples/" + name;
    o.sources = {dir + "/kernel.cpp"};
    o.include_dirs = {dir};
    o.output = (std::filesystem::temp_directory_path() /
                ("vxsim_bench_" + name + "_" + std::to_string(getpid()) + ".vxbin"))
                   .string();
    path = vxsim::host::build_kernel(o).vxbin;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot build vortex-rt's %s: %s\n", name.c_str(), e.what());
  }
  return built.emplace(name, path).first->second;
}

// Path of a standalone kernel of this repository (`rel`: its source below the checkout, e.g.
// bench/timing_kernels/probes/ld_scatter.cpp) built into a .vxbin (once per process), or ""
// after printing why when it cannot be built.
inline const std::string& source_kernel_vxbin(const std::string& rel) {
  static std::map<std::string, std::string> built;
  auto it = built.find(rel);
  if (it != built.end()) return it->second;
  std::string path;
  try {
    vxsim::host::KernelBuildOptions o;
    o.sources = {std::string(VXSYNTH_SOURCE_DIR) + "/" + rel};
    o.output = (std::filesystem::temp_directory_path() /
                ("vxsim_bench_" + std::filesystem::path(rel).stem().string() + "_" + std::to_string(getpid()) + ".vxbin"))
                   .string();
    path = vxsim::host::build_kernel(o).vxbin;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot build %s: %s\n", rel.c_str(), e.what());
  }
  return built.emplace(rel, path).first->second;
}

}  // namespace vxsynth::bench
