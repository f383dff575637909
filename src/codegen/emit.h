// One design point -> two programs (docs/design-space.md):
//   emit_cuda    a CUDA candidate (.cu) with the fixed C ABI of src/gpu/abi/vxsynth_candidate.h,
//                built for sm_90;
//   emit_vortex  a Vortex regression-style benchmark (common.h, kernel.cpp, main.cpp) plus a
//                CMakeLists.txt for the embedded simulator and a Makefile for a Vortex tree.
// Both are assembled from the same components (components.h) through their dialects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/component.h"
#include "design/design_point.h"

namespace vxsynth::codegen {

struct SourceFile {
  std::string name;  // relative path
  std::string text;
};

// The generated header comment: design name, reference, op, axis values and their constructs.
std::string header_comment(const design::DesignPoint& d, Backend backend);

// InputError when the design breaks a validity rule.
std::string emit_cuda(const design::DesignPoint& d);

// The function name of the CUDA candidate's main kernel (the one that does the op's work; the
// others are auxiliary passes: padding, split-K reduction, im2col, tf32 rounding). A profile of
// a generated candidate needs only this kernel: D compares it with the vendor kernel.
std::string main_kernel_name(const design::DesignPoint& d);

// What main.cpp checks against: the tolerance of the candidate check (ops::tolerance_for,
// Check::candidate) and the seed of the input files beside it.
struct VortexCheck {
  double atol = 0.0;
  double rtol = 0.0;
  std::uint64_t seed = 1;
};

// InputError for an invalid design.
std::vector<SourceFile> emit_vortex(const design::DesignPoint& d, const VortexCheck& check);

}  // namespace vxsynth::codegen
