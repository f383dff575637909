// The layout-transform family's two backends (design/transform_family.h): one kernel that
// moves a batch of tiles, written once against the Dialect and the family's backend component
// (components/transform/), as the CUDA candidate ABI's entry points and as the Vortex
// benchmark's common.h, kernel.cpp and bench.h (the host program is every benchmark's
// vortex_host/main.cpp). emit_cuda / emit_vortex hand transform designs to these.
#pragma once

#include <string>

#include "codegen/vortex_bench.h"
#include "design/design_point.h"

namespace vxsynth::codegen {

std::string emit_transform_cuda(const design::DesignPoint& d);
VortexSources transform_vortex_sources(const design::DesignPoint& d);

}  // namespace vxsynth::codegen
