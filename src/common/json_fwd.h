// The Json type by name, for headers that only declare functions taking or returning it. The
// full nlohmann header costs about 2 s of every compile that includes it, and every generated
// benchmark's host program (vortex_host/main.cpp) includes the ops headers: sources that build,
// read or write JSON include common/json_io.h.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace vxsynth {

using Json = nlohmann::ordered_json;

}  // namespace vxsynth
