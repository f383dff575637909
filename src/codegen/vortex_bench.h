// The design-specific half of a Vortex benchmark's host program: every benchmark runs the same
// main.cpp (vortex_host/main.cpp), and what differs per design (the machine, the check, the
// tensors, the kernel arguments) is written into its bench.h from these facts. Each op family
// fills them (vortex_emitter.cpp for the GEMM families, transform_emitter.cpp for layout
// transforms); codegen-internal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/emit.h"
#include "ops/tensor.h"

namespace vxsynth::codegen {

struct BenchFacts {
  std::string header;            // the generated header comment of the design's Vortex files
  std::int64_t local_bytes = 0;  // local memory of one block
  bool tensor_core = false;      // built for 32-thread warps
  bool exact = false;            // checked bit for bit (no arithmetic), else with the tolerance
  struct Input {
    std::string file;   // in the data folder
    ops::Shape shape;
    std::string field;  // kernel_arg_t::<field>_addr
  };
  std::vector<Input> inputs;
  struct Workspace {
    std::int64_t bytes = 0;
    std::string field;
  };
  std::vector<Workspace> workspaces;
  std::vector<std::string> arguments;  // "M = 37": the kernel arguments besides the addresses
};

// The Vortex sources of one design besides the shared host program and build files.
struct VortexSources {
  std::string common_h, kernel_cpp;
  BenchFacts bench;
};

}  // namespace vxsynth::codegen
