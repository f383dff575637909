// `vxsynth signature` and `vxsynth distance` as a user runs them: output and exit codes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "common/json_io.h"
#include "signature/metrics.h"

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

TEST(CliSignature, DetailsLayoutReadsLikeTheRawPage) {
  // The same pi0 launches, exported one row per metric: the report must not change.
  const auto raw = run("signature data/h200/ncu-full-pi0.csv --json");
  const auto det = run("signature data/h200/ncu-details-pi0.csv --json");
  ASSERT_EQ(raw.code, 0) << raw.out;
  ASSERT_EQ(det.code, 0) << det.out;
  auto a = vxsynth::Json::parse(raw.out), b = vxsynth::Json::parse(det.out);
  ASSERT_EQ(b["kernels"].size(), 5u);
  EXPECT_EQ(b["kernels"][4]["ncu_id"], "4");
  a.erase("source");
  b.erase("source");
  EXPECT_EQ(a, b);
}

TEST(CliSignature, DetailsLayoutOfSectionsSaysHowToExportTheRawPage) {
  // A details page of ncu's sections (display names, no raw counters).
  std::string csv =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  for (const char* m : {"\"Duration\",\"ns\",\"5,024\"", "\"DRAM Throughput\",\"%\",\"41.20\"",
                        "\"Achieved Occupancy\",\"%\",\"13.56\""})
    csv += std::string("\"0\",\"7\",\"python3\",\"h\",\"nvjet_sm90_tst_48x64_64x15_4x2_h_bz_bias_TNN\",\"1\",\"7\","
                       "\"(384, 1, 1)\",\"(8, 12, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",") + m + "\n";
  const auto r = run("signature " + temp_file("sections.csv", csv));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("details layout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--page raw --print-units base"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ID 0"), std::string::npos) << r.out;
}

TEST(CliSignature, MetricsList) {
  const auto r = run("signature --metrics-list");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("dram__bytes.sum.per_second"), std::string::npos);
  // One metric's counters: its preferred formula's, every one of them in the full list.
  const auto l2 = run("signature --metrics-list --metric l2_hit_rate");
  ASSERT_EQ(l2.code, 0);
  EXPECT_EQ(l2.out, "lts__t_sector_hit_rate.pct\n");
  for (const auto& m : vxsynth::signature::metric_table()) {
    const auto one = run("signature --metrics-list --metric " + std::string(m.key));
    ASSERT_EQ(one.code, 0) << m.key;
    std::stringstream ss(one.out.substr(0, one.out.find('\n')));
    for (std::string c; std::getline(ss, c, ',');) EXPECT_NE(r.out.find(c), std::string::npos) << m.key << ": " << c;
  }
  EXPECT_EQ(run("signature --metrics-list --metric nope").code, 2);
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

// --scope operator: references by their whole calls (diffusion_policy-1 and -2 are calls of one
// convolution shape), an ncu CSV's launch as its own operator against a three-kernel call, and a
// lock made at kernel scope refused with what to do.
TEST(CliDistance, OperatorScope) {
  const std::string h200 = "../suite/vx-robotics/h200/";
  const auto same_op = run("distance --scope operator " + h200 + "diffusion_policy-1-conv1d/reference.json " + h200 +
                           "diffusion_policy-2-conv1d/reference.json");
  ASSERT_EQ(same_op.code, 0) << same_op.out;
  EXPECT_NE(same_op.out.find("D = 0.0005"), std::string::npos) << same_op.out;
  const auto hot = run("distance " + h200 + "diffusion_policy-1-conv1d/reference.json " + h200 +
                       "diffusion_policy-2-conv1d/reference.json");
  EXPECT_EQ(hot.out.find("D = 0.0005"), std::string::npos) << hot.out;  // two different kernels
  const auto csv = run("distance --scope operator ../suite/vx-robotics/captures/h200/act/ncu.csv#id=7 " + h200 +
                       "act-4-linear/reference.json");
  ASSERT_EQ(csv.code, 0) << csv.out;
  EXPECT_NE(csv.out.find("D = 0.0201"), std::string::npos) << csv.out;  // the GEMM alone against its call
  const auto lock = run("distance --scope operator " + h200 + "act-4-linear/signature.json " + h200 + "act-4-linear/reference.json");
  EXPECT_EQ(lock.code, 2);
  EXPECT_NE(lock.out.find("--scope kernel"), std::string::npos) << lock.out;
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

// Signature files whose measured metrics do not overlap: only L1 on one side, only L2 on the other.
std::pair<std::string, std::string> disjoint_signatures() {
  auto j = vxsynth::Json::parse(run("signature --partial --json " + kBf16 + " --kernel nvjet").out);
  auto keep_only = [&](const char* key) {
    auto k = j;
    k["kernels"] = vxsynth::Json::array({j["kernels"][0]});  // one kernel: the spec needs no #selector
    for (auto& [name, v] : k["kernels"][0]["metrics"].items())
      if (name != key) v = nullptr;
    return temp_file(std::string(key) + ".json", k.dump());
  };
  return {keep_only("l1_hit_rate"), keep_only("l2_hit_rate")};
}

TEST(CliDistance, NoMetricMeasuredOnBothSidesIsAnError) {
  const auto [l1, l2] = disjoint_signatures();
  auto r = run("distance " + l1 + " " + l2);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("vxsynth: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no metric is measured on both sides (candidate measures 1, reference measures 1 of 10)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(run("distance --json " + l1 + " " + l2).code, 2);
  EXPECT_EQ(run("distance " + l1 + " " + l1).code, 0);  // one metric in common is enough
  // In the matrix, the undefined cells are printed, named, and make the command fail.
  r = run("distance " + l1 + " --references " + l1 + " " + l2);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("undefined"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("D is undefined for 1 pair(s)"), std::string::npos) << r.out;
}

TEST(CliDistance, MatrixOfEveryCandidateAgainstEveryReference) {
  // The four bf16 probe launches against the four fp32 ones: a file without #selector is all its kernels.
  const auto j = vxsynth::Json::parse(run("distance --partial --json " + kBf16 + " --references " + kFp32).out);
  EXPECT_EQ(j["schema"], "vxsynth.distance-matrix/1");
  ASSERT_EQ(j["candidates"].size(), 4u);
  ASSERT_EQ(j["references"].size(), 4u);
  EXPECT_EQ(j["candidates"][2]["source"], kBf16 + "#id=2");
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      const auto pair = vxsynth::Json::parse(run("distance --partial --json " + kBf16 + "#id=" + std::to_string(c) +
                                                 " " + kFp32 + "#id=" + std::to_string(r))
                                                 .out);
      EXPECT_EQ(j["D"][c][r], pair["distance"]["D"]) << c << "," << r;
      EXPECT_EQ(j["scored"][c][r], pair["distance"]["scored"]) << c << "," << r;
    }
  // Text: a row per candidate, a column per reference, the row minimum starred, a legend.
  const auto t = run("distance --partial " + kBf16 + "#id=0 " + kBf16 + "#id=1 --references " + kFp32 + "#id=1 " +
                     kFp32 + "#id=0");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("    0.2154"), std::string::npos) << t.out;  // c1 x r1, as the pair test gives
  EXPECT_NE(t.out.find("r2  " + kFp32 + "#id=0"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("*"), std::string::npos) << t.out;
  // Three positional specs without --references or --suite is a usage error.
  EXPECT_EQ(run("distance --partial " + kBf16 + "#id=0 " + kBf16 + "#id=1 " + kFp32 + "#id=0").code, 2);
}

TEST(CliDistance, NearestReferencesOfASuiteFolder) {
  const std::string suite = "../suite/vx-robotics/h200";
  // pi0's reference for benchmark 1 measured against the whole suite: itself first, at D = 0.
  const auto j = vxsynth::Json::parse(
      run("distance --json --top 3 " + suite + "/pi0-2-linear/reference.json --suite " + suite).out);
  EXPECT_EQ(j["schema"], "vxsynth.distance-nearest/1");
  const auto& near = j["candidates"][0]["nearest"];
  ASSERT_EQ(near.size(), 3u);
  EXPECT_EQ(near[0]["benchmark"], "pi0-2-linear");
  EXPECT_EQ(near[0]["D"], 0.0);
  EXPECT_LE(near[1]["D"].get<double>(), near[2]["D"].get<double>());
  EXPECT_GT(near[1]["D"].get<double>(), 0.0);
  // Every pi0 launch of the full profile, ranked against all 15 references.
  const auto all = vxsynth::Json::parse(run("distance --json --top 0 data/h200/ncu-full-pi0.csv --suite " + suite).out);
  ASSERT_EQ(all["candidates"].size(), 5u);
  EXPECT_EQ(all["candidates"][0]["nearest"].size(), 15u);
  const auto text = run("distance data/h200/ncu-full-pi0.csv#id=1 --suite " + suite);
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("nearest 5 of 15 references"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("pi0-2-linear"), std::string::npos) << text.out;
  EXPECT_EQ(run("distance data/h200/ncu-full-pi0.csv#id=1 --suite data/h200").code, 2);  // no references there
}

// A locked benchmark's signature.json is a signature too (its lock's mean, named by its design),
// and the matrix names its rows and columns by benchmark.
TEST(CliDistance, ReadsTheSuitesLockedSignaturesAndNamesTheMatrix) {
  const std::string h200 = "../suite/vx-robotics/h200/";
  const Result pair = run("distance --json " + h200 + "act-2-linear/signature.json " + h200 + "act-2-linear/reference.json");
  ASSERT_EQ(pair.code, 0) << pair.out;
  const auto j = vxsynth::Json::parse(pair.out);
  const auto locked = vxsynth::read_json_file(h200 + "act-2-linear/signature.json");
  EXPECT_NEAR(j["distance"]["D"].get<double>(), locked["d"].get<double>(), 1e-12);  // the lock's own D
  EXPECT_EQ(j["candidate"]["name"], locked["design"]);
  const Result matrix = run("distance " + h200 + "act-1-linear/signature.json " + h200 + "act-2-linear/signature.json --references " +
                            h200 + "act-1-linear/reference.json " + h200 + "act-2-linear/reference.json");
  ASSERT_EQ(matrix.code, 0) << matrix.out;
  EXPECT_NE(matrix.out.find("r1 act-1-linear r2 act-2-linear"), std::string::npos) << matrix.out;
  EXPECT_NE(matrix.out.find("c2 act-2-linear "), std::string::npos) << matrix.out;
  // A locked signature says which GPU its profiles ran on (its origin): refused against another's.
  vxsynth::Json other = vxsynth::read_json_file(h200 + "act-2-linear/reference.json");
  other["platform"]["gpu"] = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(run("distance " + h200 + "act-2-linear/signature.json " + temp_file("h100-ref.json", vxsynth::dump_json(other))).code, 2);
}

// Two GPU models are two platforms: distance refuses to compare a profile of one with a
// reference of the other unless asked to (--cross-platform), in every form.
TEST(CliDistance, ProfilesOfAnotherGpuAreRefusedUnlessCrossPlatform) {
  const std::string ref = "../suite/vx-robotics/h200/act-1-linear/reference.json";
  vxsynth::Json h100 = vxsynth::read_json_file(ref);
  h100["platform"] = {{"gpu", "NVIDIA H100 80GB HBM3"}, {"sm_count", 132}};
  const std::string cand = temp_file("h100-act-1.json", vxsynth::dump_json(h100));
  for (const std::string& form : {cand + " " + ref, cand + " --references " + ref, cand + " --suite ../suite/vx-robotics/h200"}) {
    const Result refused = run("distance " + form);
    EXPECT_EQ(refused.code, 2) << form << "\n" << refused.out;
    EXPECT_NE(refused.out.find("NVIDIA H100 80GB HBM3 (132 SMs)"), std::string::npos) << refused.out;
    EXPECT_NE(refused.out.find("NVIDIA H200 (132 SMs)"), std::string::npos) << refused.out;
    EXPECT_NE(refused.out.find("--cross-platform"), std::string::npos) << refused.out;
    const Result asked = run("distance --cross-platform " + form);
    EXPECT_EQ(asked.code, 0) << form << "\n" << asked.out;
  }
  // The same GPU, or a file that names none (an ncu CSV), compares as before.
  EXPECT_EQ(run("distance " + ref + " " + ref).code, 0);
  EXPECT_EQ(run("distance --partial " + kFp32 + "#id=1 " + cand).code, 0);
}

}  // namespace
