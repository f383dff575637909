// The layout-transform family's two backends (design/transform_family.h): one kernel that
// moves a batch of tiles, written once against the Dialect and the family's backend component
// (components/transform/), as the CUDA candidate ABI's entry points and as the Vortex
// benchmark's common.h, kernel.cpp and bench.h (the host program is every benchmark's
// vortex_host/main.cpp). emit_cuda / emit_vortex hand transform designs to these.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/vortex_bench.h"
#include "design/design_point.h"

namespace vxsynth::codegen {

std::string emit_transform_cuda(const design::DesignPoint& d);
VortexSources transform_vortex_sources(const design::DesignPoint& d);

// index_math generic's fast division by `div` (1 <= div < 2^31): n / div = umulhi(n, mul) >> shr
// for 0 <= n < 2^31 (mul 0 and the quotient n when div is 1), as CUTLASS's FastDivmod.
struct FastDivisor {
  std::uint32_t div = 1, mul = 0, shr = 0;
  std::uint32_t divide(std::uint32_t n) const {
    return div == 1 ? n : static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * mul) >> 32) >> shr;
  }
};
FastDivisor fast_divisor(std::uint32_t div);

}  // namespace vxsynth::codegen
