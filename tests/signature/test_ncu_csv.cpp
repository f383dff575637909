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

}  // namespace
}  // namespace vxsynth::signature
