#include "codegen/dialect.h"

namespace vxsynth::codegen {

std::string Dialect::fill(const std::string& fmt, const std::string& arg) {
  std::string out;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out += arg;
      ++i;
    } else {
      out += fmt[i];
    }
  }
  return out;
}

}  // namespace vxsynth::codegen
