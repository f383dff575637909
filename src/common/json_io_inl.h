#pragma once

#include "common/error.h"

namespace vxsynth {

template <typename T>
T get_field(const Json& j, const std::string& key, const std::string& file) {
  if (!j.is_object() || !j.contains(key)) throw InputError(file, key, "missing");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(file, key, "has the wrong type (found " + std::string(j.at(key).type_name()) + ")");
  }
}

}  // namespace vxsynth
