// The layout-transform family's two backends (design/transform_family.h): one kernel that
// moves a batch of tiles, written once against both dialects, the CUDA candidate ABI's entry
// points and the Vortex regression-style benchmark (common.h, kernel.cpp, main.cpp). emit_cuda /
// emit_vortex hand transform designs to these. (Kept apart from the GEMM components, whose
// frame, mainloop and epilogue a transpose has no use for.)
#pragma once

#include <string>
#include <vector>

#include "codegen/emit.h"
#include "design/design_point.h"

namespace vxsynth::codegen {

std::string emit_transform_cuda(const design::DesignPoint& d);
std::vector<SourceFile> emit_transform_vortex(const design::DesignPoint& d, const VortexCheck& check);

}  // namespace vxsynth::codegen
