// Reader for `ncu --csv --page raw --print-units base` output.
//
// The stream holds, in order: ncu's own lines (==PROF==, ==WARNING==, ==ERROR==) and anything
// the profiled program printed; a header row starting with "ID"; a units row (empty under the
// non-metric columns); one row per profiled kernel launch. Numbers may carry thousands
// separators ("1,980,000") and missing values read "n/a".
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
};

class NcuTable {
 public:
  // Parses the text; `source` names it in errors (a file path or "<stdin>").
  static NcuTable parse(const std::string& text, const std::string& source);
  static NcuTable read_file(const std::string& path);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<NcuRow>& rows() const { return rows_; }
  const std::vector<std::string>& notes() const { return notes_; }  // skipped ==PROF== etc. lines

  bool has_column(const std::string& name) const { return column_.count(name) != 0; }
  std::optional<std::size_t> column(const std::string& name) const;
  // Unit of a column from the units row ("" when the row had none).
  std::string unit(const std::string& name) const;

  // Raw text of a cell; nullopt when the column does not exist.
  std::optional<std::string> text(const NcuRow& row, const std::string& name) const;

 private:
  std::string source_;
  std::vector<std::string> header_;
  std::vector<std::string> units_;
  std::map<std::string, std::size_t> column_;
  std::vector<NcuRow> rows_;
  std::vector<std::string> notes_;
};

// Parses an ncu number: "1,980,000", "58.39", "-3e-5". nullopt for anything else
// ("n/a", "", "(2, 64, 1)", "1,98,0").
std::optional<double> parse_ncu_number(const std::string& s);

// True for ncu's marker of a value it could not collect.
inline bool is_not_available(const std::string& s) { return s == "n/a" || s == "N/A"; }

}  // namespace vxsynth::signature
