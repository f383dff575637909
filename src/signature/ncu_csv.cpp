#include "signature/ncu_csv.h"

#include <cerrno>
#include <cstdlib>
#include <algorithm>
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

// Raw counter names carry a unit prefix and a double underscore ("dram__bytes_read.sum"); the
// details page's section metrics have display names ("Duration", "DRAM Throughput").
bool is_counter_name(const std::string& name) { return name.find("__") != std::string::npos; }

}  // namespace

const char* const kNcuRawExportHint =
    "export the profile in ncu's raw layout: ncu --csv --page raw --print-units base --metrics \"$(vxsynth signature "
    "--metrics-list)\" ..., or from a saved report: ncu -i REPORT.ncu-rep --csv --page raw --print-units base";

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

  if (t.column_.count("Metric Name") && t.column_.count("Metric Value")) {
    t.parse_details(lines, k);
    return t;
  }

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
    t.rows_.push_back({line_no, std::move(fields), {}});
  }
  if (t.rows_.empty()) throw InputError(source, "", "the profile has a header but no kernel rows");
  return t;
}

void NcuTable::parse_details(const std::vector<std::pair<int, std::string>>& lines, std::size_t header_at) {
  layout_ = NcuLayout::kDetails;
  const std::vector<std::string> details_header = header_;
  const std::map<std::string, std::size_t> details_column = column_;
  const std::size_t name_col = details_column.at("Metric Name"), value_col = details_column.at("Metric Value");
  const std::size_t no_unit = details_header.size();  // no "Metric Unit" column: units read ""
  const std::size_t unit_col = details_column.count("Metric Unit") ? details_column.at("Metric Unit") : no_unit;
  // The launch columns are those before the first per-metric column.
  std::size_t launch_columns = name_col;
  if (details_column.count("Section Name")) launch_columns = std::min(launch_columns, details_column.at("Section Name"));
  const std::size_t id_col = details_column.at("ID"), kernel_col = details_column.at("Kernel Name");
  if (id_col >= launch_columns || kernel_col >= launch_columns)
    throw InputError(source_, "line " + std::to_string(lines[header_at].first),
                     "details layout: 'ID' and 'Kernel Name' must come before 'Section Name' and 'Metric Name'");

  struct Cell {
    std::string value;
    int line;
  };
  struct Launch {
    NcuRow first;  // the launch columns, from the launch's first line
    std::map<std::string, Cell> metrics;
  };
  std::vector<Launch> launches;
  std::map<std::string, std::size_t> launch_of_id;
  std::vector<std::string> metric_order;                   // first-seen order, over all launches
  std::map<std::string, std::pair<std::string, int>> unit;  // metric -> (unit, line it was first seen)

  for (std::size_t k = header_at + 1; k < lines.size(); ++k) {
    const auto& [line_no, l] = lines[k];
    if (l.empty()) continue;
    if (is_tool_line(l)) {
      notes_.push_back(l);
      continue;
    }
    auto fields = split_record(l, source_, line_no);
    const std::string where = "line " + std::to_string(line_no);
    if (fields == details_header) throw InputError(source_, where, "a second header row (two ncu outputs concatenated?)");
    if (fields.size() != details_header.size())
      throw InputError(source_, where,
                       "row has " + std::to_string(fields.size()) + " fields but the header has " +
                           std::to_string(details_header.size()) + " (truncated or malformed row)");
    const std::string& id = fields[id_col];
    if (!parse_ncu_number(id)) throw InputError(source_, where, "column 'ID' must be a launch number, found '" + id + "'");
    const std::string& metric = fields[name_col];
    if (metric.empty()) continue;  // a rule row (newer ncu): no metric on it

    auto [it, fresh] = launch_of_id.emplace(id, launches.size());
    if (fresh) {
      Launch launch;
      launch.first.line = line_no;
      launch.first.fields.assign(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(launch_columns));
      launches.push_back(std::move(launch));
    }
    Launch& launch = launches[it->second];
    if (!fresh && launch.first.fields[kernel_col] != fields[kernel_col])
      throw InputError(source_, where,
                       "launch ID " + id + " is '" + fields[kernel_col] + "' here but '" +
                           launch.first.fields[kernel_col] + "' on line " + std::to_string(launch.first.line) +
                           " (two ncu outputs concatenated?)");
    const std::string u = unit_col != no_unit ? fields[unit_col] : "";
    auto [uit, new_metric] = unit.emplace(metric, std::make_pair(u, line_no));
    if (new_metric) metric_order.push_back(metric);
    else if (uit->second.first != u && is_counter_name(metric))
      throw InputError(source_, where,
                       "metric '" + metric + "' is in '" + u + "' here but in '" + uit->second.first + "' on line " +
                           std::to_string(uit->second.second) +
                           ": ncu scaled the units per value; export with --print-units base");
    auto [cell, new_cell] = launch.metrics.emplace(metric, Cell{fields[value_col], line_no});
    if (!new_cell && cell->second.value != fields[value_col] && is_counter_name(metric))
      throw InputError(source_, where,
                       "launch ID " + id + " has metric '" + metric + "' twice with different values ('" +
                           cell->second.value + "' on line " + std::to_string(cell->second.line) + ", '" +
                           fields[value_col] + "' here)");
  }
  if (launches.empty()) throw InputError(source_, "", "the profile has a header but no metric rows");

  // The raw form: launch columns, then one column per metric; a units row like ncu's raw page.
  header_.assign(details_header.begin(), details_header.begin() + static_cast<std::ptrdiff_t>(launch_columns));
  units_.assign(launch_columns, "");
  column_.clear();
  for (std::size_t c = 0; c < header_.size(); ++c) column_.emplace(header_[c], c);
  for (const std::string& m : metric_order) {
    if (column_.count(m)) continue;  // a metric named like a launch column ("Block Size"): the column wins
    column_.emplace(m, header_.size());
    header_.push_back(m);
    units_.push_back(unit.at(m).first);
  }
  for (Launch& launch : launches) {
    NcuRow row = std::move(launch.first);
    row.field_lines.assign(launch_columns, row.line);
    for (std::size_t c = launch_columns; c < header_.size(); ++c) {
      auto it = launch.metrics.find(header_[c]);
      // A metric another launch has but this one lacks reads as not available for this launch.
      row.fields.push_back(it == launch.metrics.end() ? "n/a" : it->second.value);
      row.field_lines.push_back(it == launch.metrics.end() ? row.line : it->second.line);
    }
    rows_.push_back(std::move(row));
  }
}

int NcuTable::line_of(const NcuRow& row, const std::string& name) const {
  auto c = column(name);
  if (!c || row.field_lines.size() <= *c) return row.line;
  return row.field_lines[*c];
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
