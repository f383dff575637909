#include "signature/ncu_csv.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/json_io.h"

namespace vxsynth::signature {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool is_tool_line(const std::string& line) {
  return starts_with(line, "==PROF==") || starts_with(line, "==WARNING==") || starts_with(line, "==ERROR==") ||
         starts_with(line, "==INFO==");
}

// Splits the text into lines (\n or \r\n), remembering 1-based line numbers.
std::vector<std::pair<int, std::string>> split_lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::size_t pos = 0;
  int n = 1;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.emplace_back(n++, std::move(line));
    pos = end + 1;
  }
  return out;
}

// One CSV record from a single line (ncu never puts newlines inside a field).
// Fields may be quoted ("a,b"), with "" for a literal quote.
std::vector<std::string> split_record(const std::string& line, const std::string& source, int line_no) {
  std::vector<std::string> fields;
  std::string cur;
  std::size_t i = 0;
  for (;;) {
    cur.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          cur += line[i++];
        }
      }
      if (!closed)
        throw InputError(source, "line " + std::to_string(line_no), "unterminated quoted field (truncated row?)");
      if (i < line.size() && line[i] != ',')
        throw InputError(source, "line " + std::to_string(line_no),
                         "unexpected character after a quoted field at column " + std::to_string(i + 1));
    } else {
      while (i < line.size() && line[i] != ',') cur += line[i++];
    }
    fields.push_back(cur);
    if (i >= line.size()) break;
    ++i;  // the comma
    if (i == line.size()) {  // trailing comma: one more empty field
      fields.emplace_back();
      break;
    }
  }
  return fields;
}

}  // namespace

std::optional<double> parse_ncu_number(const std::string& s) {
  // [sign] integer [. digits] [e [sign] digits], where the integer part may be grouped in
  // threes by commas ("1,980,000"); anything else (n/a, "(2, 64, 1)", "1,98,0") is not a number.
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::size_t n = s.size();
  std::size_t i = 0;
  std::string plain;
  if (i < n && (s[i] == '-' || s[i] == '+')) plain += s[i++];
  std::size_t group = 0;   // digits in the current group
  bool grouped = false;    // saw a comma
  bool any_int = false;
  for (; i < n && (digit(s[i]) || s[i] == ','); ++i) {
    if (s[i] == ',') {
      if (group == 0 || (grouped && group != 3) || (!grouped && group > 3)) return std::nullopt;
      grouped = true;
      group = 0;
    } else {
      plain += s[i];
      ++group;
      any_int = true;
    }
  }
  if (grouped && group != 3) return std::nullopt;
  bool any_frac = false;
  if (i < n && s[i] == '.') {
    plain += s[i++];
    for (; i < n && digit(s[i]); ++i, any_frac = true) plain += s[i];
  }
  if (!any_int && !any_frac) return std::nullopt;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    plain += s[i++];
    if (i < n && (s[i] == '-' || s[i] == '+')) plain += s[i++];
    bool any_exp = false;
    for (; i < n && digit(s[i]); ++i, any_exp = true) plain += s[i];
    if (!any_exp) return std::nullopt;
  }
  if (i != n) return std::nullopt;
  errno = 0;
  const double v = std::strtod(plain.c_str(), nullptr);
  if (errno == ERANGE) return std::nullopt;
  return v;
}

NcuTable NcuTable::read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

NcuTable NcuTable::parse(const std::string& text, const std::string& source) {
  NcuTable t;
  t.source_ = source;
  if (text.empty()) throw InputError(source, "", "empty file: expected ncu --csv --page raw output");
  const auto lines = split_lines(text);
  for (const auto& [n, l] : lines)
    if (!is_valid_utf8(l))
      throw InputError(source, "line " + std::to_string(n), "is not valid UTF-8 text (a binary or corrupted file?)");

  std::size_t k = 0;
  for (; k < lines.size(); ++k) {
    const std::string& l = lines[k].second;
    if (starts_with(l, "\"ID\",") || starts_with(l, "ID,")) break;
    if (is_tool_line(l)) t.notes_.push_back(l);
    // anything else before the header is the profiled program's own output: skipped
  }
  if (k == lines.size())
    throw InputError(source, "",
                     "no ncu header row found (expected a line starting with \"ID\"; was the profile written "
                     "with ncu --csv --page raw?)");

  t.header_ = split_record(lines[k].second, source, lines[k].first);
  for (std::size_t c = 0; c < t.header_.size(); ++c) {
    const auto [it, fresh] = t.column_.emplace(t.header_[c], c);
    if (!fresh)
      throw InputError(source, "line " + std::to_string(lines[k].first),
                       "duplicate header column '" + t.header_[c] + "' (columns " + std::to_string(it->second + 1) +
                           " and " + std::to_string(c + 1) + ")");
  }
  for (const char* required : {"ID", "Kernel Name"})
    if (!t.column_.count(required))
      throw InputError(source, "line " + std::to_string(lines[k].first),
                       std::string("header has no '") + required + "' column");

  bool first_after_header = true;
  for (++k; k < lines.size(); ++k) {
    const auto& [line_no, l] = lines[k];
    if (l.empty()) continue;
    if (is_tool_line(l)) {
      t.notes_.push_back(l);
      continue;
    }
    auto fields = split_record(l, source, line_no);
    const std::string where = "line " + std::to_string(line_no);
    if (fields == t.header_)
      throw InputError(source, where, "a second header row (two ncu outputs concatenated?)");
    if (fields.size() != t.header_.size())
      throw InputError(source, where,
                       "row has " + std::to_string(fields.size()) + " fields but the header has " +
                           std::to_string(t.header_.size()) + " (truncated or malformed row)");
    const std::string& id = fields[t.column_.at("ID")];
    if (first_after_header && id.empty()) {  // the units row
      t.units_ = std::move(fields);
      first_after_header = false;
      continue;
    }
    first_after_header = false;
    if (!parse_ncu_number(id))
      throw InputError(source, where, "column 'ID' must be a launch number, found '" + id + "'");
    t.rows_.push_back({line_no, std::move(fields)});
  }
  if (t.rows_.empty()) throw InputError(source, "", "the profile has a header but no kernel rows");
  return t;
}

std::optional<std::size_t> NcuTable::column(const std::string& name) const {
  auto it = column_.find(name);
  if (it == column_.end()) return std::nullopt;
  return it->second;
}

std::string NcuTable::unit(const std::string& name) const {
  auto c = column(name);
  if (!c || units_.empty()) return "";
  return units_[*c];
}

std::optional<std::string> NcuTable::text(const NcuRow& row, const std::string& name) const {
  auto c = column(name);
  if (!c) return std::nullopt;
  return row.fields[*c];
}

}  // namespace vxsynth::signature
