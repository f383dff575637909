// The Hopper family's CUDA backend (design/hopper_family.h): a producer warpgroup issuing bulk
// tensor copies (TMA) into an mbarrier ring, consumer warpgroups issuing wgmma, an epilogue of
// ordinary stores or one bulk store per warpgroup tile, launched in clusters when the design says
// so; tensor maps come from the driver's cuTensorMapEncodeTiled reached through the runtime (the
// candidate links only the CUDA runtime). Built for sm_90a (`// vxsynth-target: sm_90a`).
// The Vortex side of a Hopper design is its counterpart's (design::vortex_counterpart), emitted
// by the GEMM components.
#pragma once

#include <string>

#include "design/design_point.h"

namespace vxsynth::codegen {

std::string emit_hopper_cuda(const design::DesignPoint& d);

}  // namespace vxsynth::codegen
