// Reader for `ncu --csv --page raw --print-units base` output.
//
// The stream holds, in order: ncu's own lines (==PROF==, ==WARNING==, ==ERROR==) and anything
// the profiled program printed; a header row starting with "ID"; a units row (empty under the
// non-metric columns); one row per profiled kernel launch. Numbers may carry thousands
// separators ("1,980,000") and missing values read "n/a".
//
// ncu's details layout (`--csv` without `--page raw`) is read too: the launch columns, then
// "Section Name", "Metric Name", "Metric Unit", "Metric Value" (newer ncu adds rule columns
// after them), one row per metric. Its rows are gathered per launch ID into the raw form, so
// every reader sees one row per launch; each value keeps the line it came from.
#pragma once

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vxsynth::signature {

struct NcuRow {
  int line = 0;  // 1-based line of the row in the source, for error messages
  std::vector<std::string> fields;
  std::vector<int> field_lines;  // details layout: the line each field came from (empty in raw layout)
};

enum class NcuLayout { kRaw, kDetails };

class NcuTable {
 public:
  // Parses the text; `source` names it in errors (a file path or "<stdin>").
  static NcuTable parse(const std::string& text, const std::string& source);
  static NcuTable read_file(const std::string& path);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<NcuRow>& rows() const { return rows_; }
  const std::vector<std::string>& notes() const { return notes_; }  // skipped ==PROF== etc. lines
  NcuLayout layout() const { return layout_; }
  // The line a cell came from: the row's line in raw layout, the metric's own line in details layout.
  int line_of(const NcuRow& row, const std::string& name) const;

  bool has_column(const std::string& name) const { return column_.count(name) != 0; }
  std::optional<std::size_t> column(const std::string& name) const;
  // Unit of a column from the units row ("" when the row had none).
  std::string unit(const std::string& name) const;

  // Raw text of a cell; nullopt when the column does not exist.
  std::optional<std::string> text(const NcuRow& row, const std::string& name) const;

 private:
  void parse_details(const std::vector<std::pair<int, std::string>>& lines, std::size_t header_at);

  std::string source_;
  std::vector<std::string> header_;
  std::vector<std::string> units_;
  std::map<std::string, std::size_t> column_;
  std::vector<NcuRow> rows_;
  std::vector<std::string> notes_;
  NcuLayout layout_ = NcuLayout::kRaw;
};

// What to tell a user whose details-layout profile lacks counters: how to export the raw page.
extern const char* const kNcuRawExportHint;

// Parses an ncu number: "1,980,000", "58.39", "-3e-5". nullopt for anything else
// ("n/a", "", "(2, 64, 1)", "1,98,0").
std::optional<double> parse_ncu_number(const std::string& s);

// True for ncu's marker of a value it could not collect.
inline bool is_not_available(const std::string& s) { return s == "n/a" || s == "N/A"; }

}  // namespace vxsynth::signature
