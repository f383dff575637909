#include "common/text_file.h"

#include <fstream>
#include <sstream>

#include "common/error.h"

namespace vxsynth {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace vxsynth
