// The ncu raw CSV reader: what ncu really prints, and malformed input.
#include <gtest/gtest.h>

#include "common/error.h"
#include "csv_util.h"
#include "signature/ncu_csv.h"

namespace vxsynth::signature {
namespace {

using testing::read_text;

const char* kBf16 = "data/h200/ncu-probe-bf16-matmul-linear-conv.csv";
const char* kCacheNone = "data/h200/ncu-mixed-cache-none.csv";

TEST(NcuNumber, ThousandsSeparatorsAndPlainNumbers) {
  EXPECT_EQ(parse_ncu_number("1,980,000"), 1980000.0);
  EXPECT_EQ(parse_ncu_number("1,604,571,428,571.43"), 1604571428571.43);
  EXPECT_EQ(parse_ncu_number("58.39"), 58.39);
  EXPECT_EQ(parse_ncu_number("0"), 0.0);
  EXPECT_EQ(parse_ncu_number("-3e-5"), -3e-5);
  EXPECT_EQ(parse_ncu_number(".5"), 0.5);
  EXPECT_EQ(parse_ncu_number("224,508"), 224508.0);
  for (const char* bad : {"", "n/a", "(2, 64, 1)", "1,98,0", ",123", "12,34", "1,2345", "1e", "abc", "1.2.3", "inf",
                          "nan", "0x10", "1,000,", "--1", "5 "})
    EXPECT_FALSE(parse_ncu_number(bad)) << bad;
}

TEST(NcuTable, SkipsProfilerLinesAndProgramOutputBeforeTheHeader) {
  // The cache-none fixture has two ==WARNING== lines, ==PROF== lines and a line the program printed.
  const auto t = NcuTable::parse(read_text(kCacheNone), kCacheNone);
  ASSERT_EQ(t.rows().size(), 1u);
  EXPECT_EQ(t.notes().size(), 4u);
  EXPECT_EQ(*t.text(t.rows()[0], "Kernel Name"), "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(t.unit("gpu__time_duration.sum"), "ns");
  EXPECT_EQ(t.unit("lts__t_sector_hit_rate.pct"), "%");
  EXPECT_EQ(t.unit("Kernel Name"), "");
}

TEST(NcuTable, QuotedFieldsKeepCommasAndRowsKeepTheirLines) {
  const auto t = NcuTable::parse(read_text(kBf16), kBf16);
  ASSERT_EQ(t.rows().size(), 4u);
  EXPECT_EQ(*t.text(t.rows()[0], "Grid Size"), "(2, 64, 1)");
  EXPECT_EQ(*t.text(t.rows()[0], "launch__shared_mem_per_block_dynamic"), "224,508");
  EXPECT_EQ(t.rows()[0].line, 6);  // 3 tool lines, header, units
  EXPECT_EQ(t.rows()[3].line, 9);
  EXPECT_FALSE(t.text(t.rows()[0], "no_such_column"));
}

TEST(NcuTable, AcceptsCrLfAndEscapedQuotes) {
  const std::string csv =
      "\"ID\",\"Kernel Name\",\"x.sum\"\r\n\"\",\"\",\"inst\"\r\n\"0\",\"void k<\"\"a\"\">(int, float)\",\"1,024\"\r\n";
  const auto t = NcuTable::parse(csv, "mem");
  ASSERT_EQ(t.rows().size(), 1u);
  EXPECT_EQ(*t.text(t.rows()[0], "Kernel Name"), "void k<\"a\">(int, float)");
  EXPECT_EQ(parse_ncu_number(*t.text(t.rows()[0], "x.sum")), 1024.0);
}

void expect_input_error(const std::string& text, const std::string& needle) {
  try {
    NcuTable::parse(text, "bad.csv");
    FAIL() << "expected an InputError containing: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.csv"), std::string::npos) << e.what();
  }
}

TEST(NcuTable, MalformedInputGivesClearErrors) {
  const std::string good = read_text(kBf16);
  expect_input_error("", "empty file");
  expect_input_error("==PROF== Connected\nhello\n", "no ncu header row");
  // Truncated: cut the last row in the middle of a field.
  expect_input_error(good.substr(0, good.size() - 200), "line 9");
  // A row with one field too few.
  {
    std::string s = good;
    const auto last = s.rfind(",\"");
    s.erase(last, s.find('\n', last) - last);
    expect_input_error(s, "fields but the header has");
  }
  // Duplicate column in the header.
  {
    std::string s = good;
    const auto pos = s.find("\"Kernel Name\"");
    s.replace(pos, 13, "\"Process Name\"");
    expect_input_error(s, "duplicate header column 'Process Name'");
  }
  // A second header row (two outputs concatenated).
  {
    const auto h = good.find("\"ID\"");
    const auto e = good.find('\n', h);
    expect_input_error(good + good.substr(h, e - h + 1), "second header row");
  }
  // Header without the columns every row needs.
  expect_input_error("\"ID\",\"Name\"\n\"0\",\"k\"\n", "no 'Kernel Name' column");
  // Header only.
  expect_input_error("\"ID\",\"Kernel Name\"\n\"\",\"\"\n", "no kernel rows");
  // A data row whose ID is not a number.
  expect_input_error("\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"zero\",\"k\"\n", "column 'ID'");
  // Bytes that are not UTF-8 (found by the fuzzer: they broke JSON output).
  expect_input_error("\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\",\"k\xb3\"\n", "not valid UTF-8");
  // An unterminated quote.
  expect_input_error("\"ID\",\"Kernel Name\"\n\"0\",\"k\n", "unterminated quoted field");
}

// ncu's details layout (one row per metric), built by scripts/ncu-raw-to-details from the raw
// pi0 profile: the same five launches must read exactly as the raw file does.
const char* kPi0Raw = "data/h200/ncu-full-pi0.csv";
const char* kPi0Details = "data/h200/ncu-details-pi0.csv";

TEST(NcuTableDetails, GathersOneRowPerLaunchWithTheRawValuesAndUnits) {
  const auto raw = NcuTable::parse(read_text(kPi0Raw), kPi0Raw);
  const auto det = NcuTable::parse(read_text(kPi0Details), kPi0Details);
  EXPECT_EQ(raw.layout(), NcuLayout::kRaw);
  EXPECT_EQ(det.layout(), NcuLayout::kDetails);
  ASSERT_EQ(det.rows().size(), raw.rows().size());  // 5 launches, not 1215 metric rows
  EXPECT_EQ(det.notes().size(), raw.notes().size());
  int compared = 0;
  for (const std::string& col : raw.header()) {
    if (col.rfind("device__attribute_", 0) == 0) continue;  // the details page does not repeat them
    ASSERT_TRUE(det.has_column(col)) << col;
    EXPECT_EQ(det.unit(col), raw.unit(col)) << col;
    for (std::size_t r = 0; r < raw.rows().size(); ++r) {
      EXPECT_EQ(*det.text(det.rows()[r], col), *raw.text(raw.rows()[r], col)) << col << " launch " << r;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 5 * (11 + 243));
  EXPECT_FALSE(det.has_column("Metric Name"));
  EXPECT_FALSE(det.has_column("device__attribute_architecture"));
  // Each value keeps its own line: launch 0's first metric row is line 5, ID 1 starts after 243 rows.
  EXPECT_EQ(det.rows()[0].line, 5);
  EXPECT_EQ(det.rows()[1].line, 5 + 243);
  EXPECT_EQ(det.line_of(det.rows()[0], "c2clink__present"), 6);
  EXPECT_EQ(det.line_of(det.rows()[1], "Kernel Name"), 5 + 243);
  EXPECT_EQ(raw.line_of(raw.rows()[1], "gpu__time_duration.sum"), raw.rows()[1].line);
}

// The details text of a small profile: launch columns, then section / name / unit / value.
std::string details(const std::vector<std::string>& rows, const std::string& extra_header = "") {
  std::string s = "==PROF== Connected to process 7 (/usr/bin/python3)\n"
                  "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
                  "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
                  "\"Metric Value\"" + extra_header + "\n";
  for (const auto& r : rows) s += r + "\n";
  return s;
}
std::string launch(const std::string& id, const std::string& kernel) {
  return "\"" + id + "\",\"7\",\"python3\",\"h\",\"" + kernel + "\",\"1\",\"7\",\"(128, 1, 1)\",\"(3, 5, 1)\",\"0\",\"9.0\",";
}

TEST(NcuTableDetails, RuleColumnsOfNewerNcuAndRuleRowsAreIgnored) {
  const std::string rules = ",\"Rule Name\",\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"";
  const auto t = NcuTable::parse(
      details({launch("0", "k") + "\"Command line profiler metrics\",\"x__a.sum\",\"byte\",\"1,024\",\"\",\"\",\"\",\"\",\"\"",
               launch("0", "k") + "\"SpeedOfLight\",\"\",\"\",\"\",\"SOLBottleneck\",\"OPT\",\"low use\",\"global\",\"12\"",
               launch("1", "k") + "\"Command line profiler metrics\",\"x__a.sum\",\"byte\",\"2,048\",\"\",\"\",\"\",\"\",\"\""},
              rules),
      "d.csv");
  ASSERT_EQ(t.rows().size(), 2u);
  EXPECT_EQ(*t.text(t.rows()[1], "x__a.sum"), "2,048");
  EXPECT_EQ(t.unit("x__a.sum"), "byte");
  EXPECT_FALSE(t.has_column("Rule Name"));
}

TEST(NcuTableDetails, InconsistentInputGivesClearErrors) {
  const std::string m = "\"Command line profiler metrics\",";
  // Autoscaled units (no --print-units base): the same counter in Kbyte and Mbyte.
  expect_input_error(details({launch("0", "k") + m + "\"x__a.sum\",\"Kbyte\",\"1.5\"",
                              launch("1", "k") + m + "\"x__a.sum\",\"Mbyte\",\"2.5\""}),
                     "--print-units base");
  expect_input_error(details({launch("0", "k") + m + "\"x__a.sum\",\"byte\",\"1\"",
                              launch("0", "other") + m + "\"x__b.sum\",\"byte\",\"2\""}),
                     "launch ID 0 is 'other' here but 'k' on line 3");
  expect_input_error(details({launch("0", "k") + m + "\"x__a.sum\",\"byte\",\"1\"",
                              launch("0", "k") + m + "\"x__a.sum\",\"byte\",\"2\""}),
                     "twice with different values");
  expect_input_error(details({launch("zero", "k") + m + "\"x__a.sum\",\"byte\",\"1\""}), "column 'ID'");
  expect_input_error(details({launch("0", "k") + m + "\"x__a.sum\",\"byte\""}), "fields but the header has");
  expect_input_error(details({}), "no metric rows");
}

}  // namespace
}  // namespace vxsynth::signature
