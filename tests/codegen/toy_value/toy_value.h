// The toy axis value of test_toy_value.cpp: prefetch = "unroll_off", the schedule of
// prefetch = none with the k-tile loop kept rolled. It lives only in this test: one component
// file per backend (unroll_off_cuda.cpp, unroll_off_vortex.cpp) and one rule.
#pragma once

#include "design/axes.h"

namespace vxsynth::codegen::toy {

inline constexpr design::Prefetch kUnrollOff = static_cast<design::Prefetch>(100);
inline constexpr const char* kUnrollOffName = "unroll_off";

}  // namespace vxsynth::codegen::toy
