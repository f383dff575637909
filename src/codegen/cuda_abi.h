// The candidate ABI's enum names (src/gpu/abi/vxsynth_candidate.h) as generated CUDA writes them;
// shared by the GEMM, Hopper and layout-transform families' entry points. codegen-internal.
#pragma once

#include "ops/op_spec.h"
#include "ops/precision.h"

namespace vxsynth::codegen {

inline const char* abi_dtype(ops::DType t) {
  switch (t) {
    case ops::DType::bf16: return "VXSYNTH_DTYPE_BF16";
    case ops::DType::f16: return "VXSYNTH_DTYPE_FP16";
    default: return "VXSYNTH_DTYPE_FP32";
  }
}

// The op kinds of the GEMM families (a layout transform's entry points are the transform emitter's).
inline const char* abi_op(ops::OpKind k) {
  switch (k) {
    case ops::OpKind::matmul: return "VXSYNTH_OP_MATMUL";
    case ops::OpKind::conv1d: return "VXSYNTH_OP_CONV1D";
    case ops::OpKind::conv2d: return "VXSYNTH_OP_CONV2D";
    default: return "VXSYNTH_OP_LINEAR";
  }
}

inline const char* abi_precision(ops::PrecisionPath p) {
  switch (p) {
    case ops::PrecisionPath::tf32: return "VXSYNTH_PRECISION_TF32";
    case ops::PrecisionPath::bf16: return "VXSYNTH_PRECISION_BF16";
    case ops::PrecisionPath::fp16: return "VXSYNTH_PRECISION_FP16";
    default: return "VXSYNTH_PRECISION_FP32";
  }
}

}  // namespace vxsynth::codegen
