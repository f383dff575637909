#include "common/error.h"

namespace vxsynth {

namespace {
std::string locate(const std::string& file, const std::string& field, const std::string& what) {
  std::string s;
  if (!file.empty()) s += file;
  if (!field.empty()) s += (s.empty() ? "" : ": ") + std::string("field '") + field + "'";
  if (!s.empty()) s += ": ";
  return s + what;
}
}  // namespace

InputError::InputError(std::string file, std::string field, const std::string& what)
    : std::runtime_error(locate(file, field, what)), file_(std::move(file)), field_(std::move(field)) {}

InputError::InputError(const std::string& what) : std::runtime_error(what) {}

}  // namespace vxsynth
