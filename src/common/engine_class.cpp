#include "common/engine_class.h"

namespace vxsynth {

std::string_view engine_class_name(EngineClass e) {
  switch (e) {
    case EngineClass::kSimt: return "simt";
    case EngineClass::kTensorCore: return "tensor_core";
    case EngineClass::kUnknown: break;
  }
  return "unknown";
}

}  // namespace vxsynth
