// What the two CUDA tensor-core mainloops (WMMA and mma.sync) share: fragment geometry and
// the staged element (tf32 tiles stay float and are rounded when loaded).
#pragma once

#include <sstream>

#include "codegen/component.h"
#include "design/validity.h"

namespace vxsynth::codegen {

inline std::string cuda_fragment_geometry(const Context& c) {
  const auto fs = design::fragment_shape(c.d.fragment);
  std::ostringstream s;
  s << "// Fragments: each warp owns kTM x kTN accumulator fragments of kFM x kFN.\n";
  s << "constexpr int kTM = " << c.d.register_tile.m << ", kTN = " << c.d.register_tile.n << ";\n";
  s << "constexpr int kFM = " << fs.m << ", kFN = " << fs.n << ", kFK = " << fs.k << ";\n";
  s << "constexpr int kLd = " << design::fragment_tile_ld(c.d) << ";   // shared row stride (16-byte pad)\n";
  s << "constexpr int kCLd = " << design::epilogue_tile_ld(c.d) << ";  // epilogue tile row stride\n";
  return s.str();
}

inline std::string cuda_smem_type(const Context& c) {
  return std::string("typedef ") + (c.d.fixed.precision == ops::PrecisionPath::tf32 ? "float" : "elem_t") +
         " smem_t;  // shared tile element\n";
}

// The GEMM body's warp position and its kTM x kTN accumulator fragments, each set to zero by
// `zero` (a statement on acc[i][j]).
inline std::string cuda_accumulators(const Context& c, const std::string& zero) {
  std::ostringstream s;
  s << "const int wm = warp / kWN, wn = warp % kWN;\n(void)lane;\nacc_frag_t acc[kTM][kTN];\n" << c.x.unroll()
    << "for (int i = 0; i < kTM; ++i)\n" << c.x.unroll() << "for (int j = 0; j < kTN; ++j)" << zero;
  return s.str();
}

inline std::string cuda_stash_value(const Context& c) {
  return c.d.fixed.precision == ops::PrecisionPath::tf32 ? std::string("regs[i]") : c.x.from_float(c.dtype, "regs[i]");
}

}  // namespace vxsynth::codegen
