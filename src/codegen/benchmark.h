// Writing a design's paired programs to disk (`vxsynth gen --out DIR`). Running the Vortex
// side on the embedded simulator is refine's (refine/sim_run.h): codegen knows no simulator.
//
//   DIR/design.json          the design point (vxsynth.design/1)
//   DIR/cuda/candidate.cu    the CUDA candidate (candidate ABI, sm_90)
//   DIR/vortex/              common.h kernel.cpp bench.h main.cpp CMakeLists.txt Makefile
//   DIR/vortex/data/         seeded inputs and the CPU reference output (vxsynth tensor files)
#pragma once

#include <cstdint>
#include <string>

#include "design/design_point.h"
#include "ops/equivalence.h"

namespace vxsynth::codegen {

struct BenchmarkOptions {
  std::uint64_t seed = 1;   // input seed (ops::generate_inputs)
  bool write_data = true;   // inputs + reference output under vortex/data
};

struct BenchmarkFiles {
  std::string dir, design_json, cuda_source, vortex_dir;
  ops::Tolerance tolerance;     // candidate check tolerance main.cpp uses
};

// WorkError when a file cannot be written; InputError for an invalid design.
BenchmarkFiles write_benchmark(const design::DesignPoint& d, const std::string& dir, const BenchmarkOptions& options = {});

}  // namespace vxsynth::codegen
