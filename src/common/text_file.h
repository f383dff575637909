// A whole file as text (bytes as they are).
#pragma once

#include <string>

namespace vxsynth {

// InputError naming the file when it cannot be opened.
std::string read_text_file(const std::string& path);

}  // namespace vxsynth
