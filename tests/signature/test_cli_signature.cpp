// `vxsynth signature` and `vxsynth distance` as a user runs them: output and exit codes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/json_io.h"

namespace {

struct Result {
  int code;
  std::string out;  // stdout and stderr together
};

Result run(const std::string& args) {
  const std::string cmd = std::string(VXSYNTH_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

const std::string kBf16 = "data/h200/ncu-probe-bf16-matmul-linear-conv.csv";
const std::string kFp32 = "data/h200/ncu-probe-fp32-matmul-linear-conv.csv";

TEST(CliSignature, PrintsGroupsGeometryAndEngine) {
  const auto r = run("signature " + kFp32 + " --partial --kernel 64x128");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("where traffic is served"), std::string::npos);
  EXPECT_NE(r.out.find("l2_hit_rate             82.41 %"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grid (13,2,8) = 208 blocks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("engine class: simt"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("nvjet"), std::string::npos);
}

TEST(CliSignature, JsonHasSchemaAndAllTenIds) {
  const auto r = run("signature " + kBf16 + " --partial --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = vxsynth::Json::parse(r.out);
  EXPECT_EQ(j["schema"], "vxsynth.signature/1");
  ASSERT_EQ(j["kernels"].size(), 4u);
  EXPECT_EQ(j["kernels"][0]["metrics"].size(), 10u);
  EXPECT_EQ(j["kernels"][0]["metrics"]["l2_hit_rate"], 58.39);
  EXPECT_TRUE(j["kernels"][0]["metrics"]["coalescing"].is_null());
}

TEST(CliSignature, MissingCountersExitTwoAndNameThem) {
  const auto r = run("signature " + kBf16);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("smsp__sass_inst_executed_op_global_ld.sum"), std::string::npos) << r.out;
}

TEST(CliSignature, ProblemShapeChecksTheTile) {
  // fp32 bmm (8, 816, 816) @ (8, 816, 256) ran as 208 blocks of 64x128 tiles.
  auto r = run("signature " + kFp32 + " --partial --kernel 64x128 --problem 816,256,8");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("tile=64x128x8 [inferred, agrees]"), std::string::npos) << r.out;
  r = run("signature " + kFp32 + " --partial --kernel 64x128 --problem 64,128,3");  // 3 tiles, 208 blocks
  EXPECT_NE(r.out.find("tile=unknown(read 64x128x8)"), std::string::npos) << r.out;
  r = run("signature " + kFp32 + " --partial --kernel 64x128 --problem 4096,4096");  // 2048 tiles: persistent?
  EXPECT_NE(r.out.find("tile=64x128x8 [inferred]"), std::string::npos) << r.out;
  EXPECT_EQ(run("signature " + kFp32 + " --partial --problem 12").code, 2);
}

TEST(CliSignature, MetricsList) {
  const auto r = run("signature --metrics-list");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("dram__bytes.sum.per_second"), std::string::npos);
}

TEST(CliSignature, MalformedInputExitsTwoWithAClearMessage) {
  const std::string good = [] {
    std::ifstream in(kBf16);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  struct Case {
    std::string name, text, needle;
  } cases[] = {
      {"empty.csv", "", "empty file"},
      {"truncated.csv", good.substr(0, good.size() - 300), "line 9"},
      {"nocolumn.csv", "\"ID\",\"Kernel\"\n\"0\",\"k\"\n", "Kernel Name"},
      {"text.csv", [&] {
         std::string s = good;
         s.replace(s.find("\"58.39\""), 7, "\"fast\"");
         return s;
       }(), "expected a number, found 'fast'"},
      {"dupheader.csv", [&] {
         std::string s = good;
         s.replace(s.find("\"Kernel Name\""), 13, "\"Host Name\"");
         return s;
       }(), "duplicate header column"},
  };
  for (const auto& c : cases) {
    const auto r = run("signature --partial " + temp_file(c.name, c.text));
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.out;
    EXPECT_NE(r.out.find(c.needle), std::string::npos) << c.name << ": " << r.out;
    EXPECT_NE(r.out.find(c.name), std::string::npos) << c.name << ": " << r.out;
  }
  EXPECT_EQ(run("signature /no/such/file.csv").code, 2);
  EXPECT_EQ(run("signature --unmeasurable dram " + kBf16).code, 2);
  EXPECT_EQ(run("signature --bogus-flag").code, 2);
  EXPECT_EQ(run("signature --kernel '(' --partial " + kBf16).code, 2);
}

TEST(CliDistance, Bf16VersusFp32BatchedMatmul) {
  const auto r = run("distance --partial " + kBf16 + "#id=0 " + kFp32 + "#id=1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("D = 0.2154"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean over 7 of 10"), std::string::npos) << r.out;
  const auto j = vxsynth::Json::parse(run("distance --json --partial " + kBf16 + "#id=0 " + kFp32 + "#id=1").out);
  EXPECT_EQ(j["schema"], "vxsynth.distance/1");
  EXPECT_NEAR(j["distance"]["D"].get<double>(), (0.2402 + 0.3502 + 0.4611 + 0.0078125 + 0.0372 +
                                                  std::log2(1604571428571.43 / 386201163757.27) / 5) / 7, 1e-9);
  EXPECT_NEAR(j["distance"]["groups"]["engine_commit"]["sum"].get<double>(), 0.3502 + 0.4611, 1e-9);
}

TEST(CliDistance, ConfigChangesTheScaleAndBadSpecsExitTwo) {
  const std::string cfg =
      temp_file("cfg.json", R"({"schema": "vxsynth.distance-config/1", "rate_scale": 10})");
  const auto j = vxsynth::Json::parse(
      run("distance --json --partial --config " + cfg + " " + kBf16 + "#id=0 " + kFp32 + "#id=1").out);
  EXPECT_NEAR(j["distance"]["metrics"]["dram_bandwidth"].get<double>(),
              std::log2(1604571428571.43 / 386201163757.27) / 10, 1e-9);
  EXPECT_EQ(run("distance --partial " + kBf16 + " " + kFp32 + "#id=1").code, 2);  // 4 kernels match
  EXPECT_EQ(run("distance --partial " + kBf16 + "#id=0").code, 2);              // one argument
  const auto bad = run("distance --partial " + temp_file("s.json", "{\"schema\": \"vxsynth.signature/9\"}") + " " +
                       kFp32 + "#id=1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("not supported"), std::string::npos) << bad.out;
}

}  // namespace
