// The engine class of a GEMM-like kernel: which pipes do its arithmetic. One of the four fixed
// properties of a reference and of every design that serves it; a kernel-name reading or a
// profile may leave it unknown (signature), a design never does (design/validity).
#pragma once

#include <string_view>

namespace vxsynth {

enum class EngineClass : int { kUnknown, kSimt, kTensorCore };

// "unknown", "simt", "tensor_core" (the names of reference.json and design.json).
std::string_view engine_class_name(EngineClass e);

}  // namespace vxsynth
