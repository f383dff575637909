// Test helpers: load fixture text and add columns to an ncu raw CSV.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
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

// Replaces the values of an existing column (every field quoted, as ncu writes them) in the data
// rows: one value per row, or one for all. Throws when the column is not there.
inline std::string set_column(const std::string& csv, const std::string& name, const std::vector<std::string>& values) {
  auto split = [](const std::string& line) {
    std::vector<std::string> f;
    std::size_t at = 1;  // past the first quote
    while (true) {
      const std::size_t end = line.find("\",\"", at);
      if (end == std::string::npos) {
        f.push_back(line.substr(at, line.size() - 1 - at));
        return f;
      }
      f.push_back(line.substr(at, end - at));
      at = end + 3;
    }
  };
  std::istringstream in(csv);
  std::string line, out;
  int seen = -1;
  std::size_t col = 0;
  while (std::getline(in, line)) {
    if (seen < 0 && line.rfind("\"ID\"", 0) == 0) {
      seen = 0;
      const auto header = split(line);
      col = header.size();
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name) col = i;
      }
      if (col == header.size()) throw std::runtime_error("set_column: no column " + name);
    }
    if (seen >= 2 && !line.empty() && line.rfind("==", 0) != 0) {
      auto f = split(line);
      const std::size_t row = static_cast<std::size_t>(seen - 2);
      f.at(col) = values.size() == 1 ? values[0] : values.at(row);
      line.clear();
      for (std::size_t i = 0; i < f.size(); ++i) line += (i ? ",\"" : "\"") + f[i] + "\"";
    }
    if (seen >= 0 && !line.empty() && line.rfind("==", 0) != 0) ++seen;
    out += line + "\n";
  }
  return out;
}

}  // namespace vxsynth::signature::testing
