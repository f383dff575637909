// Test helpers: load fixture text and add columns to an ncu raw CSV.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace vxsynth::signature::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Appends a column (name, unit, one value per data row, or one value for all rows) to every
// line from the header on; lines before the header are kept as they are.
inline std::string add_column(const std::string& csv, const std::string& name, const std::string& unit,
                              const std::vector<std::string>& values) {
  std::istringstream in(csv);
  std::string line, out;
  int seen = -1;  // -1 before the header, 0 header, 1 units, 2.. rows
  while (std::getline(in, line)) {
    if (seen < 0 && line.rfind("\"ID\"", 0) == 0) seen = 0;
    if (seen >= 0 && !line.empty() && line.rfind("==", 0) != 0) {
      if (seen == 0) line += ",\"" + name + "\"";
      else if (seen == 1) line += ",\"" + unit + "\"";
      else {
        const std::size_t row = static_cast<std::size_t>(seen - 2);
        line += ",\"" + (values.size() == 1 ? values[0] : values.at(row)) + "\"";
      }
      ++seen;
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace vxsynth::signature::testing
