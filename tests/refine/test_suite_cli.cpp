// `vxsynth suite` as a user runs it, on a scratch copy of the committed H200 suite and replayed
// H200 profiles: the plan merges the four copies of cuDNN's transform kernel into one benchmark;
// a two-worker refine gives the same records as one `vxsynth refine` process; lock writes the
// pair whose both checks passed with the CUDA source that was evaluated; `suite run` runs the
// committed Vortex sources (a broken committed kernel fails) and status shows the table.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "codegen/benchmark.h"
#include "common/json_io.h"
#include "design/design_point.h"
#include "design/move.h"
#include "design/seed.h"
#include "design/validity.h"
#include "common/process.h"
#include "refine/evaluation.h"
#include "refine/lock_sources.h"
#include "refine/platform_check.h"
#include "refine/record.h"
#include "refine/suite_run.h"
#include "refine/vortex_side.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  static const fs::path root = [] {
    std::atexit([] {
      if (std::getenv("VXSYNTH_KEEP_SCRATCH") == nullptr) {
        std::error_code ec;
        fs::remove_all(fs::temp_directory_path() / ("vxsynth-suite-cli-" + std::to_string(::getpid())), ec);
      }
    });
    return fs::temp_directory_path() / ("vxsynth-suite-cli-" + std::to_string(::getpid()));
  }();
  const fs::path dir = root / name;
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  return dir;
}

struct CliRun {
  int code = -1;
  std::string output;
};

CliRun vxsynth(std::vector<std::string> args) {
  args.insert(args.begin(), VXSYNTH_CLI_PATH);
  CliRun r;
  r.code = run_program(args, &r.output);
  return r;
}

// A copy of the committed suite's references (lock writes into its suite folder).
fs::path suite_copy(const std::string& name) {
  const fs::path dir = scratch(name);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator("../suite/vx-robotics/h200")) {
    if (!fs::is_regular_file(e.path() / "reference.json")) continue;
    fs::create_directories(dir / e.path().filename());
    fs::copy_file(e.path() / "reference.json", dir / e.path().filename() / "reference.json");
  }
  return dir;
}

std::vector<Json> records(const fs::path& file) {
  auto lines = read_records(file.string());
  for (auto& l : lines) l.erase("at");
  return lines;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SuiteCli, PlanMergesReferencesWithinNoise) {
  const CliRun r = vxsynth({"suite", "plan", "../suite/vx-robotics/h200", "--json"});
  ASSERT_EQ(r.code, 0) << r.output;
  const Json plan = Json::parse(r.output);
  ASSERT_EQ(plan["benchmarks"].size(), 13u) << r.output;
  bool found = false;
  for (const auto& b : plan["benchmarks"]) {
    // A proxy is judged against half the D to the nearest other reference: it must exist.
    EXPECT_GT(b["nearest_d"].get<double>(), b["merge_d"].get<double>()) << b["name"];
    EXPECT_FALSE(b["nearest"].get<std::string>().empty());
    if (b["name"] == "diffusion_policy-1-conv1d") {
      found = true;
      std::set<std::string> serves;
      for (const auto& s : b["serves"]) serves.insert(s["folder"].get<std::string>());
      // The same cuDNN transform kernel on two convolutions whose signatures are within noise
      // (D 0.001); the 8x1024x5120 one is D 0.046 away and stays a benchmark of its own.
      EXPECT_EQ(serves, (std::set<std::string>{"diffusion_policy-1-conv1d", "diffusion_policy-3-conv1d"}));
      EXPECT_NEAR(b["share"].get<double>(), 0.414 + 0.059, 0.002);
      EXPECT_LT(b["merge_d"].get<double>(), 0.0102);
    }
    // The Hopper conv1d kernel is a different kernel: never merged into the transform.
    if (b["name"] == "diffusion_policy-2-conv1d") {
      EXPECT_EQ(b["serves"].size(), 1u);
    }
  }
  EXPECT_TRUE(found);
  // A threshold of 0 merges nothing.
  const CliRun none = vxsynth({"suite", "plan", "../suite/vx-robotics/h200", "--json", "--merge-below", "0"});
  ASSERT_EQ(none.code, 0);
  EXPECT_EQ(Json::parse(none.output)["benchmarks"].size(), 15u);
}

// At operator scope two references are one benchmark when their whole calls are within noise:
// diffusion_policy-1 (cuDNN's weight transform) and -2 (its implicit GEMM) are the hot kernels of
// one convolution shape's calls (operator D 0.0005), and -4 and -5 are one operator too; -3, one
// with twice the channels, is not.
TEST(SuiteCli, PlanAtOperatorScopeMergesTheKernelsOfOneCall) {
  const CliRun r = vxsynth({"suite", "plan", "../suite/vx-robotics/h200", "--json", "--scope", "operator"});
  ASSERT_EQ(r.code, 0) << r.output;
  const Json plan = Json::parse(r.output);
  EXPECT_EQ(plan["scope"], "operator");
  std::map<std::string, std::set<std::string>> serves;
  for (const auto& b : plan["benchmarks"])
    for (const auto& f : b["serves"]) serves[b["name"].get<std::string>()].insert(f["folder"].get<std::string>());
  EXPECT_EQ(serves["diffusion_policy-1-conv1d"], (std::set<std::string>{"diffusion_policy-1-conv1d", "diffusion_policy-2-conv1d"}));
  EXPECT_EQ(serves["diffusion_policy-4-conv1d"], (std::set<std::string>{"diffusion_policy-4-conv1d", "diffusion_policy-5-conv1d"}));
  EXPECT_EQ(serves["diffusion_policy-3-conv1d"].size(), 1u);
  EXPECT_EQ(serves.count("diffusion_policy-2-conv1d"), 0u);
  const CliRun text = vxsynth({"suite", "plan", "../suite/vx-robotics/h200", "--scope", "operator"});
  EXPECT_NE(text.output.find("at operator scope"), std::string::npos) << text.output;
}

const char* kBenches[] = {"pi0-1-batched-matmul", "act-1-linear", "act-4-linear"};

TEST(SuiteCli, TwoWorkersGiveTheRecordsOfOneRefineProcess) {
  const fs::path suite = suite_copy("suite-workers");
  const fs::path run = scratch("run-workers");
  std::vector<std::string> args = {"suite", "refine", suite.string(), "--out", run.string(), "--workers", "2"};
  std::vector<std::string> refine_args = {"--scope", "kernel", "--replay", "data/refine/store", "--replay", "data/refine/store-synthetic",
                                          "--retention", "single", "--sim-check", "skip", "--budget", "revisions=6",
                                          "--width", "3", "--pair-after", "2"};
  const fs::path one_out = scratch("one-process");
  std::vector<std::string> one = {"refine", "--out", one_out.string()};
  for (const char* b : kBenches) {
    args.insert(args.end(), {"--bench", b, "--start", std::string(b) + "=data/refine/" + b + "/parent-design.json"});
  }
  // `vxsynth refine` with the same chains in one process, same options.
  for (const char* b : {"act-1-linear", "pi0-1-batched-matmul", "act-4-linear"}) {
    one.insert(one.end(), {"--reference", (suite / b / "reference.json").string(), "--start",
                           std::string("data/refine/") + b + "/parent-design.json"});
  }
  args.insert(args.end(), refine_args.begin(), refine_args.end());
  one.insert(one.end(), refine_args.begin(), refine_args.end());
  const CliRun r = vxsynth(args);
  ASSERT_EQ(r.code, 0) << r.output;
  const Json run_file = read_json_file((run / "suite-run.json").string());
  ASSERT_EQ(run_file["workers"].size(), 2u);
  const CliRun single = vxsynth(one);
  ASSERT_EQ(single.code, 0) << single.output;
  for (const auto& w : run_file["workers"]) {
    for (const auto& c : w["chains"]) {
      const std::string chain = c.get<std::string>();
      const auto mine = records(run / w["dir"].get<std::string>() / chain / "revisions.jsonl");
      ASSERT_GE(mine.size(), 2u) << chain;
      EXPECT_EQ(mine, records(one_out / chain / "revisions.jsonl")) << chain;
    }
  }
  // `suite status --run`: each chain's worker finished, its revisions and best D from the record.
  const CliRun st = vxsynth({"suite", "status", suite.string(), "--run", run.string(), "--json"});
  ASSERT_EQ(st.code, 0) << st.output;
  const Json status = Json::parse(st.output);
  ASSERT_EQ(status["rows"].size(), 3u) << st.output;
  for (const auto& row : status["rows"]) {
    EXPECT_EQ(row["state"], "done") << st.output;
    EXPECT_EQ(row["attempts"], 1);
    const auto lines = records(one_out / row["chain"].get<std::string>() / "revisions.jsonl");
    EXPECT_EQ(row["revisions"].get<std::size_t>(), lines.size() - 1);
    EXPECT_DOUBLE_EQ(row["start_d"].get<double>(), lines.front()["d"].get<double>());
  }
  // The same folder again without --resume is refused; with it, nothing changes.
  EXPECT_EQ(vxsynth(args).code, 2);
  args.push_back("--resume");
  const CliRun again = vxsynth(args);
  ASSERT_EQ(again.code, 0) << again.output;
  for (const auto& w : run_file["workers"]) {
    for (const auto& c : w["chains"]) {
      const std::string chain = c.get<std::string>();
      EXPECT_EQ(records(run / w["dir"].get<std::string>() / chain / "revisions.jsonl"),
                records(one_out / chain / "revisions.jsonl"))
          << chain;
    }
  }
  // Bad input is named.
  const CliRun bad = vxsynth({"suite", "refine", suite.string(), "--out", scratch("bad").string(), "--bench", "act-9-linear",
                              "--scope", "kernel", "--replay", "data/refine/store"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("act-9-linear"), std::string::npos) << bad.output;
  // Skipped candidate checks never lock.
  const CliRun lock = vxsynth({"suite", "lock", suite.string(), "--run", run.string()});
  ASSERT_EQ(lock.code, 0) << lock.output;
  EXPECT_NE(lock.output.find("0 of 13 benchmark(s) locked"), std::string::npos) << lock.output;
  EXPECT_NE(lock.output.find("no revision with both checks passed"), std::string::npos) << lock.output;
}

// --multi-start N: N chains a benchmark, the later ones named BENCH.start<k> and started from
// walks away from the first start; `suite lock` takes the best checked revision of any chain of
// the benchmark and lists each chain's best D.
TEST(SuiteCli, MultiStartChainsAndALockFromTheBestOfThem) {
  const fs::path suite = suite_copy("suite-multi");
  const fs::path run = scratch("run-multi");
  const CliRun r = vxsynth({"suite", "refine", suite.string(), "--out", run.string(), "--bench", "act-4-linear", "--multi-start",
                            "3", "--scope", "kernel", "--replay", "data/refine/store", "--retention", "single", "--sim-check",
                            "skip", "--budget", "revisions=0"});
  ASSERT_EQ(r.code, 0) << r.output;
  const Json plan = read_json_file((run / "suite-run.json").string());
  EXPECT_EQ(plan["workers"][0]["chains"],
            Json::array({"act-4-linear", "act-4-linear.start2", "act-4-linear.start3"}));
  std::set<std::string> starts;
  for (const char* c : {"act-4-linear", "act-4-linear.start2", "act-4-linear.start3"}) {
    const auto d = design::read_design((run / "starts" / (std::string(c) + ".json")).string());
    EXPECT_FALSE(design::can_implement(d).has_value()) << c;
    starts.insert(design::procedural_name(d));
    EXPECT_TRUE(fs::is_regular_file(run / "worker-0" / c / "revisions.jsonl")) << c;
  }
  EXPECT_EQ(starts.size(), 3u);  // three distinct starts
  // Chain names and back: only a trailing ".start<digits>" names a later chain.
  EXPECT_EQ(refine::chain_benchmark("act-4-linear.start3"), "act-4-linear");
  EXPECT_EQ(refine::chain_start_index("act-4-linear.start3"), 3);
  EXPECT_EQ(refine::chain_benchmark("act-4-linear"), "act-4-linear");
  EXPECT_EQ(refine::chain_start_index("act-4-linear"), 1);
  EXPECT_EQ(refine::chain_benchmark("x.startle"), "x.startle");
  EXPECT_EQ(refine::multi_start_chain("act-4-linear", 2), "act-4-linear.start2");
  // The same run with another number of chains is another run.
  const CliRun again = vxsynth({"suite", "refine", suite.string(), "--out", run.string(), "--bench", "act-4-linear",
                                "--multi-start", "2", "--resume", "--scope", "kernel", "--replay", "data/refine/store"});
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_NE(again.output.find("the run's chains differ"), std::string::npos) << again.output;

  // Two chains of act-4 from two starts the replay store holds, their checks run: the lock is the
  // lower D of the two, whichever chain has it.
  const fs::path two = scratch("run-multi-two");
  const std::string ref = (suite / "act-4-linear" / "reference.json").string();
  const fs::path split2 = two.string() + "-split2.json";
  design::write_design(split2.string(), design::apply_settings(design::read_design("data/refine/act-4-linear/parent-design.json"),
                                                               {"split_k=2"}));
  const CliRun chains = vxsynth({"refine", "--reference", ref, "--start", split2.string(), "--name", "act-4-linear", "--reference",
                                 ref, "--start", "data/refine/act-4-linear/parent-design.json", "--name", "act-4-linear.start2",
                                 "--scope", "kernel", "--replay", "data/refine/store", "--retention", "single", "--sim-check",
                                 "run", "--budget", "revisions=0", "--out", two.string()});
  ASSERT_EQ(chains.code, 0) << chains.output;
  std::map<std::string, double> start_d;
  for (const char* c : {"act-4-linear", "act-4-linear.start2"}) start_d[c] = records(two / c / "revisions.jsonl").at(0)["d"].get<double>();
  ASSERT_NE(start_d["act-4-linear"], start_d["act-4-linear.start2"]);
  const std::string best = start_d["act-4-linear"] < start_d["act-4-linear.start2"] ? "act-4-linear" : "act-4-linear.start2";
  const CliRun lock = vxsynth({"suite", "lock", suite.string(), "--run", two.string(), "--bench", "act-4-linear"});
  ASSERT_EQ(lock.code, 0) << lock.output;
  const Json sig = read_json_file((suite / "act-4-linear" / "signature.json").string());
  EXPECT_EQ(sig["chain"], best);
  EXPECT_DOUBLE_EQ(sig["d"].get<double>(), std::min(start_d["act-4-linear"], start_d["act-4-linear.start2"]));
  ASSERT_EQ(sig["chains"].size(), 2u);
  for (const auto& c : sig["chains"]) EXPECT_DOUBLE_EQ(c["d"].get<double>(), start_d[c["chain"].get<std::string>()]);
}

TEST(SuiteCli, LockStatusAndRunOfACheckedChain) {
  const fs::path suite = suite_copy("suite-lock");
  const fs::path run = scratch("run-lock");
  // act-4 (100x512x512) is small enough to run its candidate checks on the embedded simulator.
  const CliRun r = vxsynth({"suite", "refine", suite.string(), "--out", run.string(), "--bench", "act-4-linear", "--start",
                            "act-4-linear=data/refine/act-4-linear/parent-design.json", "--scope", "kernel", "--replay", "data/refine/store",
                            "--retention", "single", "--sim-check", "run", "--budget", "revisions=3", "--width", "3"});
  ASSERT_EQ(r.code, 0) << r.output;
  const CliRun lock = vxsynth({"suite", "lock", suite.string(), "--run", run.string()});
  ASSERT_EQ(lock.code, 0) << lock.output;
  ASSERT_NE(lock.output.find("act-4-linear: locked r"), std::string::npos) << lock.output;
  const fs::path bench = suite / "act-4-linear";
  for (const char* f : {"design.json", "cuda/candidate.cu", "vortex/kernel.cpp", "vortex/main.cpp", "vortex/common.h",
                        "vortex/CMakeLists.txt", "vortex/Makefile", "revisions.jsonl", "signature.json", "validation.json"}) {
    EXPECT_TRUE(fs::is_regular_file(bench / f)) << f;
  }
  EXPECT_TRUE(fs::is_regular_file(suite / "suite.json"));
  const Json sig = read_json_file((bench / "signature.json").string());
  const Json val = read_json_file((bench / "validation.json").string());
  // The locked revision is the best one whose both checks passed, and the CUDA file is the one evaluated.
  const auto lines = records(bench / "revisions.jsonl");
  double best = 1e9;
  for (const auto& l : lines) {
    if ((l["decision"] == "retained" || l["decision"] == "start") && l["checks"]["candidate"]["status"] == "passed") {
      best = std::min(best, l["d"].get<double>());
    }
  }
  EXPECT_DOUBLE_EQ(sig["d"].get<double>(), best);
  const Json& rec = lines.at(sig["revision"].get<std::size_t>());
  // The replay store's profiles came without source digests: the lock says it could not compare.
  EXPECT_EQ(rec["sources"]["cuda_sha256"].get<std::string>(), "");
  EXPECT_EQ(val["cuda_sha256"].get<std::string>(), sha256_file((bench / "cuda" / "candidate.cu").string()));
  EXPECT_FALSE(val["cuda_source_verified"].get<bool>());
  EXPECT_EQ(val["source_check"]["status"], "passed");
  EXPECT_EQ(val["candidate_check"]["status"], "passed");
  EXPECT_GT(val["candidate_tolerance"]["atol"].get<double>(), 0.0);

  // Re-locking the same revision keeps its repeat profiles.
  {
    Json with_repeats = read_json_file((bench / "signature.json").string());
    with_repeats["repeats"] = Json{{"profiles", 2}, {"d", {0.5, 0.6}}};
    write_json_file((bench / "signature.json").string(), with_repeats);
    ASSERT_EQ(vxsynth({"suite", "lock", suite.string(), "--run", run.string()}).code, 0);
    EXPECT_EQ(read_json_file((bench / "signature.json").string())["repeats"]["profiles"], 2);
  }
  // A reference captured on another GPU than the run's profiles: nothing is locked, and the
  // message names both GPUs.
  {
    const fs::path ref = bench / "reference.json";
    const std::string original = slurp(ref);
    Json other = read_json_file(ref.string());
    other["platform"]["gpu"] = "NVIDIA H100 80GB HBM3";
    write_json_file(ref.string(), other);
    const CliRun refused = vxsynth({"suite", "lock", suite.string(), "--run", run.string()});
    EXPECT_NE(refused.output.find("act-4-linear: not locked"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find(": NVIDIA H200 (132 SMs); "), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("reference.json: NVIDIA H100 80GB HBM3 (132 SMs). Two GPU models"), std::string::npos) << refused.output;
    std::ofstream(ref, std::ios::binary) << original;
  }
  // A lock that fails leaves the earlier lock as it was: the retained design of the run no
  // longer matches its record (a start design swapped in).
  const std::string locked_design = slurp(bench / "design.json");
  for (const auto& f : fs::directory_iterator(run / "worker-0" / "act-4-linear" / "designs")) {
    fs::copy_file("data/refine/act-1-linear/parent-design.json", f.path(), fs::copy_options::overwrite_existing);
  }
  const CliRun relock = vxsynth({"suite", "lock", suite.string(), "--run", run.string()});
  ASSERT_EQ(relock.code, 0) << relock.output;
  EXPECT_NE(relock.output.find("act-4-linear: not locked"), std::string::npos) << relock.output;
  EXPECT_EQ(slurp(bench / "design.json"), locked_design);
  EXPECT_TRUE(fs::is_regular_file(bench / "validation.json"));
  EXPECT_TRUE(fs::is_regular_file(bench / "vortex" / "kernel.cpp"));

  const CliRun status = vxsynth({"suite", "status", suite.string(), "--json"});
  ASSERT_EQ(status.code, 0) << status.output;
  const Json st = Json::parse(status.output);
  EXPECT_EQ(st["summary"]["locked"], 1);
  EXPECT_EQ(st["summary"]["benchmarks"], 13);
  const CliRun table = vxsynth({"suite", "status", suite.string()});
  EXPECT_NE(table.output.find("1 of 13 benchmarks locked"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("not locked"), std::string::npos);

  const fs::path work = scratch("suite-run-work");
  const CliRun ok = vxsynth({"suite", "run", suite.string(), "--work", work.string(), "--jobs", "1"});
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("PASS act-4-linear"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("1 locked benchmark(s) run"), std::string::npos) << ok.output;
  EXPECT_FALSE(fs::exists(bench / kVortexSignatureFile));
  // --signature: the same run with the vortex2 timing model writes the Vortex-side signature
  // beside the locked files, and status shows its D to the CUDA side.
  const CliRun timed = vxsynth({"suite", "run", suite.string(), "--work", work.string(), "--jobs", "1", "--signature"});
  ASSERT_EQ(timed.code, 0) << timed.output;
  EXPECT_NE(timed.output.find("1 Vortex-side signature(s) written"), std::string::npos) << timed.output;
  const VortexSideStatus vs = read_vortex_side(bench);
  ASSERT_TRUE(vs.present) << timed.output;
  // --timing-out: the same timed run into a folder of its own; the suite's file stays as it was.
  {
    const std::string before = slurp(bench / kVortexSignatureFile);
    const fs::path out = scratch("suite-run-timing");
    const CliRun to = vxsynth({"suite", "run", suite.string(), "--work", work.string(), "--jobs", "1", "--timing-out", out.string()});
    ASSERT_EQ(to.code, 0) << to.output;
    EXPECT_NE(to.output.find("timed runs in " + out.string()), std::string::npos) << to.output;
    const Json timed_run = read_json_file((out / "act-4-linear" / "vxsim-run.json").string());
    EXPECT_GT(timed_run["cycles"].get<double>(), 0.0);
    EXPECT_TRUE(timed_run["regions"].is_array());
    EXPECT_TRUE(fs::is_regular_file(out / "act-4-linear" / kVortexSignatureFile));
    EXPECT_EQ(slurp(bench / kVortexSignatureFile), before);
  }
  EXPECT_EQ(vs.stale, "");
  EXPECT_GT(vs.cycles, 0);
  ASSERT_TRUE(vs.d_cuda.has_value());
  const Json vdoc = read_json_file((bench / kVortexSignatureFile).string());
  EXPECT_EQ(vdoc["vortex_side"]["timing_model"], "vortex2");
  EXPECT_EQ(vdoc["vortex_side"]["vortex_sources"]["kernel.cpp"], sha256_file((bench / "vortex" / "kernel.cpp").string()));
  EXPECT_TRUE(vdoc["kernels"][0]["metrics"]["l2_hit_rate"].is_null());  // no L2 by default: not measured
  EXPECT_EQ(vdoc["vortex_side"]["distance_to_cuda"]["scored"], 9);
  const CliRun st_timed = vxsynth({"suite", "status", suite.string(), "--json"});
  ASSERT_EQ(st_timed.code, 0) << st_timed.output;
  bool row_seen = false;
  const Json st_rows = Json::parse(st_timed.output);
  for (const auto& row : st_rows["rows"]) {
    if (row["benchmark"] != "act-4-linear") continue;
    row_seen = true;
    ASSERT_TRUE(row["vortex"].is_object()) << row.dump();
    EXPECT_DOUBLE_EQ(row["vortex"]["d_cuda"].get<double>(), *vs.d_cuda);
    EXPECT_TRUE(row["vortex"]["stale"].is_null());
  }
  EXPECT_TRUE(row_seen);
  const CliRun unknown = vxsynth({"suite", "run", suite.string(), "--work", work.string(), "--bench", "no-such-bench"});
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("no-such-bench"), std::string::npos) << unknown.output;
  // suite run builds the committed Vortex kernel: a wrong one (the accumulation made a
  // subtraction) must fail the check, not be regenerated behind the user's back.
  std::string kernel = slurp(bench / "vortex" / "kernel.cpp");
  const auto at = kernel.find("+=");
  ASSERT_NE(at, std::string::npos);
  kernel.replace(at, 2, "-=");
  std::ofstream(bench / "vortex" / "kernel.cpp") << kernel;
  const CliRun broken = vxsynth({"suite", "run", suite.string(), "--work", work.string(), "--jobs", "1"});
  EXPECT_EQ(broken.code, 1) << broken.output;
  EXPECT_NE(broken.output.find("FAIL act-4-linear"), std::string::npos) << broken.output;
  // The Vortex-side signature was made from the kernel before the edit: status says so.
  const CliRun stale = vxsynth({"suite", "status", suite.string()});
  EXPECT_NE(stale.output.find("Vortex-side signature stale: the Vortex sources changed since it ran: kernel.cpp"),
            std::string::npos)
      << stale.output;
}

// Several chains of one reference (`vxsynth refine --name`, e.g. from several starts) and a lock
// from the one the user picks (`suite lock --bench B --chain C`): the records land under their
// names, the lock writes B from C and says so, and a chain scored against another reference is
// refused (its recorded D is not the benchmark's). Bad names and counts are usage errors.
TEST(SuiteCli, NamedChainsOfOneReferenceAndALockFromOneOfThem) {
  const fs::path suite = suite_copy("suite-named");
  const fs::path run = scratch("run-named");
  const std::string ref = (suite / "act-4-linear" / "reference.json").string();
  const std::string start = "data/refine/act-4-linear/parent-design.json";
  std::vector<std::string> common = {"--scope", "kernel", "--replay", "data/refine/store", "--retention", "single", "--sim-check", "run",
                                     "--budget", "revisions=2", "--width", "2", "--out", run.string()};
  std::vector<std::string> args = {"refine", "--reference", ref, "--start", start, "--name", "act4-x",
                                   "--reference", ref, "--start", start, "--name", "act4-y"};
  args.insert(args.end(), common.begin(), common.end());
  const CliRun r = vxsynth(args);
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* chain : {"act4-x", "act4-y"}) {
    const auto lines = records(run / chain / "revisions.jsonl");
    ASSERT_FALSE(lines.empty()) << chain;
    EXPECT_EQ(lines.front()["chain"], chain);
  }
  // Without names the two chains would share the reference's folder name.
  args = {"refine", "--reference", ref, "--reference", ref};
  args.insert(args.end(), common.begin(), common.end());
  const CliRun same = vxsynth(args);
  EXPECT_EQ(same.code, 2) << same.output;
  EXPECT_NE(same.output.find("two chains named act-4-linear"), std::string::npos) << same.output;
  EXPECT_FALSE(fs::exists(run / "act-4-linear")) << "a refused run left a chain folder behind";
  for (const std::vector<std::string>& names : {std::vector<std::string>{"only-one"}, std::vector<std::string>{"a/b", "c"},
                                                 std::vector<std::string>{"evaluations", "c"}}) {
    args = {"refine", "--reference", ref, "--reference", ref};
    for (const auto& n : names) args.insert(args.end(), {"--name", n});
    args.insert(args.end(), common.begin(), common.end());
    const CliRun bad = vxsynth(args);
    EXPECT_EQ(bad.code, 2) << names.front() << ": " << bad.output;
    EXPECT_NE(bad.output.find("--name"), std::string::npos) << bad.output;
  }

  // --chain locks one benchmark.
  const CliRun two = vxsynth({"suite", "lock", suite.string(), "--run", run.string(), "--chain", "act4-y"});
  EXPECT_EQ(two.code, 2) << two.output;
  EXPECT_NE(two.output.find("exactly one --bench"), std::string::npos) << two.output;
  // Without --chain there is no chain named after the benchmark.
  const CliRun none = vxsynth({"suite", "lock", suite.string(), "--run", run.string(), "--bench", "act-4-linear"});
  EXPECT_NE(none.output.find("act-4-linear: not locked: no chain in"), std::string::npos) << none.output;
  // act4-y's records were scored against act-4's reference, not act-3's.
  const CliRun wrong =
      vxsynth({"suite", "lock", suite.string(), "--run", run.string(), "--bench", "act-3-linear", "--chain", "act4-y"});
  EXPECT_NE(wrong.output.find("act-3-linear: not locked: chain act4-y was not scored against"), std::string::npos) << wrong.output;
  EXPECT_FALSE(fs::exists(suite / "act-3-linear" / "signature.json"));
  const CliRun missing =
      vxsynth({"suite", "lock", suite.string(), "--run", run.string(), "--bench", "act-4-linear", "--chain", "act4-q"});
  EXPECT_NE(missing.output.find("no chain act4-q in"), std::string::npos) << missing.output;

  const CliRun lock =
      vxsynth({"suite", "lock", suite.string(), "--run", run.string(), "--bench", "act-4-linear", "--chain", "act4-y"});
  ASSERT_EQ(lock.code, 0) << lock.output;
  ASSERT_NE(lock.output.find("act-4-linear: locked r"), std::string::npos) << lock.output;
  const Json sig = read_json_file((suite / "act-4-linear" / "signature.json").string());
  EXPECT_EQ(sig["benchmark"], "act-4-linear");
  EXPECT_EQ(sig["chain"], "act4-y");
  EXPECT_EQ(slurp(suite / "act-4-linear" / "revisions.jsonl"), slurp(run / "act4-y" / "revisions.jsonl"));
  const Json val = read_json_file((suite / "act-4-linear" / "validation.json").string());
  EXPECT_EQ(val["candidate_check"]["status"], "passed");
}

// A revision reused from an earlier run's evaluations (`refine --known`) has a deferred candidate
// check and no CUDA output in this run: `suite lock --checks-from` takes the earlier run's passed
// check of the same key, only when the record beside it has the same CUDA digest and the check
// recorded the Vortex sources it ran (today's, as the lock requires of its own checks).
TEST(SuiteCli, LockTakesAPassedCheckOfTheSameCudaSourceFromAnEarlierRun) {
  const fs::path suite = suite_copy("suite-checks-from");
  const fs::path run = scratch("run-checks-from");
  const std::string ref = (suite / "act-4-linear" / "reference.json").string();
  const CliRun r = vxsynth({"refine", "--reference", ref, "--start", "data/refine/act-4-linear/parent-design.json", "--name",
                            "act4-k", "--scope", "kernel", "--replay", "data/refine/store", "--retention", "single", "--sim-check", "run", "--budget",
                            "revisions=2", "--width", "2", "--out", run.string()});
  ASSERT_EQ(r.code, 0) << r.output;
  // Make r0 what a reused evaluation leaves: its check deferred, its CUDA digest recorded.
  auto lines = records(run / "act4-k" / "revisions.jsonl");
  ASSERT_FALSE(lines.empty());
  Json& r0 = lines.front();
  ASSERT_EQ(r0["decision"], "start");
  const design::DesignPoint d = design::read_design((run / "act4-k" / "designs" / "r0.json").string());
  codegen::BenchmarkOptions bo;
  bo.write_data = false;
  const auto files = codegen::write_benchmark(d, scratch("gen-checks-from").string(), bo);
  const std::string cuda_sha = sha256_file(files.cuda_source);
  Json vortex_sources = Json::object();
  for (const auto& f : fs::directory_iterator(files.vortex_dir)) {
    if (f.is_regular_file()) vortex_sources[f.path().filename().string()] = sha256_file(f.path().string());
  }
  r0["checks"]["candidate"] = Json{{"status", "deferred"}};
  r0["sources"]["cuda_sha256"] = cuda_sha;
  auto write_records = [](const fs::path& file, const std::vector<Json>& recs) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file);
    for (const auto& l : recs) out << dump_json(l, -1) << "\n";
  };
  write_records(run / "act4-k" / "revisions.jsonl", lines);
  const std::vector<std::string> lock_args = {"suite", "lock", suite.string(), "--run", run.string(), "--bench", "act-4-linear",
                                              "--chain", "act4-k"};
  auto lock_with = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> a = lock_args;
    a.insert(a.end(), extra.begin(), extra.end());
    return vxsynth(a);
  };
  const CliRun plain = lock_with({});
  EXPECT_NE(plain.output.find("act-4-linear: not locked"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find("its CUDA output was not kept; --checks-from RUN"), std::string::npos) << plain.output;

  // An earlier run: the same key, revision 5 of another chain, with its record and check lines.
  const fs::path earlier = scratch("earlier-checks-from");
  Json old = r0;
  old["revision"] = 5;
  old["chain"] = "act4-old";
  auto check_line = [&](const std::string& status, const Json& sources) {
    return Json{{"schema", "vxsynth.deferred-check/1"}, {"chain", "act4-old"}, {"revision", 5}, {"key", r0["key"]},
                {"decision", "retained"}, {"candidate_check", {{"status", status}, {"worst_ratio", 0.25}}}, {"vortex_sources", sources}};
  };
  const fs::path chain_dir = earlier / "worker-0" / "act4-old";
  // A failed check, a check of another CUDA source and one without its Vortex sources count for nothing.
  write_records(chain_dir / "revisions.jsonl", {old});
  write_records(chain_dir / "deferred-checks.jsonl", {check_line("failed", vortex_sources)});
  CliRun none = lock_with({"--checks-from", earlier.string()});
  EXPECT_NE(none.output.find("--checks-from holds no passed check of the same CUDA source"), std::string::npos) << none.output;
  Json other = old;
  other["sources"]["cuda_sha256"] = std::string(64, '0');
  write_records(chain_dir / "revisions.jsonl", {other});
  write_records(chain_dir / "deferred-checks.jsonl", {check_line("passed", vortex_sources)});
  none = lock_with({"--checks-from", earlier.string()});
  EXPECT_NE(none.output.find("act-4-linear: not locked"), std::string::npos) << none.output;
  write_records(chain_dir / "revisions.jsonl", {old});
  write_records(chain_dir / "deferred-checks.jsonl", {check_line("passed", Json::object())});
  none = lock_with({"--checks-from", earlier.string()});
  EXPECT_NE(none.output.find("act-4-linear: not locked"), std::string::npos) << none.output;
  EXPECT_FALSE(fs::exists(suite / "act-4-linear" / "validation.json"));
  // A check whose Vortex sources are not today's is refused as the lock's own would be.
  Json stale = vortex_sources;
  stale["kernel.cpp"] = std::string(64, 'f');
  write_records(chain_dir / "deferred-checks.jsonl", {check_line("passed", stale)});
  none = lock_with({"--checks-from", earlier.string()});
  EXPECT_NE(none.output.find("differ from those r0's candidate check ran"), std::string::npos) << none.output;
  // The last line of a revision counts: failed, then passed on a recheck.
  write_records(chain_dir / "deferred-checks.jsonl", {check_line("failed", vortex_sources), check_line("passed", vortex_sources)});
  const CliRun lock = lock_with({"--checks-from", earlier.string()});
  ASSERT_EQ(lock.code, 0) << lock.output;
  ASSERT_NE(lock.output.find("act-4-linear: locked r0"), std::string::npos) << lock.output;
  const Json val = read_json_file((suite / "act-4-linear" / "validation.json").string());
  EXPECT_EQ(val["candidate_check"]["status"], "passed");
  EXPECT_EQ(val["vortex_sources_checked"], vortex_sources);
  EXPECT_EQ(val["candidate_check_from"], (chain_dir / "deferred-checks.jsonl").string() + " r5");
  EXPECT_EQ(val["cuda_sha256"], cuda_sha);
  // A folder that is not there is an input error.
  const CliRun missing = lock_with({"--checks-from", (earlier / "nope").string()});
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_NE(missing.output.find("--checks-from"), std::string::npos) << missing.output;
}

// The committed suite is what it says: each locked CUDA file is the one profiled (its digest is
// the record's), both checks passed, and both sides are what their generators write for the
// committed design (a generator change that alters a locked benchmark's code must re-lock it,
// which re-runs or re-uses its candidate check: docs/suite.md).
TEST(SuiteCli, CommittedLockedSuiteIsConsistent) {
  int locked = 0;
  for (const auto& e : fs::directory_iterator("../suite/vx-robotics/h200")) {
    const fs::path b = e.path();
    if (!fs::is_regular_file(b / "validation.json")) continue;
    ++locked;
    const Json val = read_json_file((b / "validation.json").string());
    const Json sig = read_json_file((b / "signature.json").string());
    EXPECT_EQ(val["source_check"]["status"], "passed") << b;
    EXPECT_EQ(val["candidate_check"]["status"], "passed") << b;
    const std::string cuda = sha256_file((b / "cuda" / "candidate.cu").string());
    EXPECT_EQ(val["cuda_sha256"].get<std::string>(), cuda) << b;
    const auto lines = read_records((b / "revisions.jsonl").string());
    const Json& rec = lines.at(sig["revision"].get<std::size_t>());
    EXPECT_EQ(rec["sources"]["cuda_sha256"].get<std::string>(), cuda) << b;
    EXPECT_DOUBLE_EQ(rec["d"].get<double>(), sig["d"].get<double>()) << b;
    // The committed Vortex sources are those the candidate check ran.
    ASSERT_TRUE(val["vortex_sources_checked"].is_object()) << b;
    for (const auto& [name, sha] : val["vortex_sources_checked"].items()) {
      EXPECT_EQ(sha256_file((b / "vortex" / name).string()), sha.get<std::string>()) << b << " " << name;
    }
    const design::DesignPoint d = design::read_design((b / "design.json").string());
    EXPECT_EQ(design::procedural_name(d), rec["design"].get<std::string>()) << b;
    // Both sides are what their generators write for the committed design: the same bytes under
    // this generator, the same code under another (docs/suite.md, "Regenerating a lock").
    const LockSources sources = check_lock_sources(b);
    EXPECT_EQ(sources.problems, std::vector<std::string>()) << b;
    EXPECT_EQ(sources.files.size(), 8u) << b;
    // The Vortex side's signature was made from these sources, this design and this lock's
    // CUDA signature, with today's formulas (read_vortex_side recomputes all of it).
    const VortexSideStatus vs = read_vortex_side(b);
    // Every locked benchmark has one (pi0-2-linear's took about 20 minutes of one core).
    EXPECT_TRUE(vs.present) << b << ": no vortex-signature.json: `vxsynth suite run suite/vx-robotics/h200 --signature --bench "
                            << b.filename().string() << "`";
    EXPECT_EQ(vs.stale, "") << b << ": make it again with `vxsynth suite run suite/vx-robotics/h200 --signature --bench "
                            << b.filename().string() << "`";
    if (vs.present) {
      ASSERT_TRUE(vs.d_cuda.has_value()) << b;
      EXPECT_GT(vs.cycles, 0) << b;
      // The recorded machine is the design's.
      const Json design = read_json_file((b / "design.json").string());
      EXPECT_EQ(vs.machine, std::to_string(design["vortex"]["cores"].get<int>()) + "x" +
                                std::to_string(design["vortex"]["warps"].get<int>()) + "x" +
                                std::to_string(design["vortex"]["threads"].get<int>()))
          << b;
    }
  }
  EXPECT_GE(locked, 11);
}

// The status table's legend is read on a terminal: one column a line, none past 100 characters,
// and it ends on a whole sentence (it was one 972-character line that stopped mid-phrase).
TEST(SuiteCli, TheStatusLegendFitsATerminal) {
  const CliRun st = vxsynth({"suite", "status", "../suite/vx-robotics/h200"});
  ASSERT_EQ(st.code, 0) << st.output;
  const auto at = st.output.find("\ncolumns:\n");
  ASSERT_NE(at, std::string::npos) << st.output;
  std::istringstream legend(st.output.substr(at + 1));
  int lines = 0;
  std::string line, last;
  while (std::getline(legend, line)) {
    ++lines;
    EXPECT_LE(line.size(), 100u) << line;
    last = line;
  }
  EXPECT_GE(lines, 12);
  EXPECT_EQ(last.substr(last.size() - 6), " tried") << last;
}

// check_lock_sources on a copy of a legacy lock (act-1-linear: its CUDA side the emitter's flat
// text, its Vortex side re-laid by a machine's clang-format): the same code holds, a changed
// token does not, a file laid out otherwise than the generator the lock names is named, and a
// lock rewritten by this generator holds byte for byte.
TEST(SuiteCli, ALockHoldsWhenItsGeneratorWritesTheSameCode) {
  const fs::path from = "../suite/vx-robotics/h200/act-1-linear";
  const fs::path b = scratch("lock-sources") / "act-1-linear";
  fs::create_directories(b);
  for (const char* f : {"design.json", "validation.json", "cuda", "vortex"}) fs::copy(from / f, b / f, fs::copy_options::recursive);
  auto problems_of = [&] {
    std::string all;
    for (const auto& p : check_lock_sources(b).problems) all += p + "\n";
    return all;
  };
  const LockSources legacy = check_lock_sources(b);
  EXPECT_TRUE(legacy.cuda_generator.unversioned());
  EXPECT_TRUE(legacy.problems.empty()) << problems_of();
  ASSERT_EQ(legacy.files.size(), 8u);
  EXPECT_EQ(legacy.files[0].file, "cuda/candidate.cu");
  EXPECT_EQ(legacy.files[0].same, Sameness::code);  // laid out by the generator now
  // One token of the Vortex kernel changed: other code, whichever generator made the lock.
  const std::string kernel = slurp(b / "vortex" / "kernel.cpp");
  const std::size_t at = kernel.find("kBK");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(b / "vortex" / "kernel.cpp", std::ios::binary) << kernel.substr(0, at) << "kBM" << kernel.substr(at + 3);
  std::string found = problems_of();
  EXPECT_NE(found.find("vortex/kernel.cpp: generator " + std::to_string(codegen::kGeneratorVersion)), std::string::npos) << found;
  EXPECT_NE(found.find("than the unversioned generator"), std::string::npos) << found;
  std::ofstream(b / "vortex" / "kernel.cpp", std::ios::binary) << kernel;
  // The lock says this generator wrote the Vortex side, but its files are laid out otherwise.
  Json val = read_json_file((b / "validation.json").string());
  val["vortex_generator"] = codegen::generator_to_json(codegen::current_generator());
  write_json_file((b / "validation.json").string(), val);
  found = problems_of();
  EXPECT_NE(found.find("vortex/kernel.cpp: laid out otherwise"), std::string::npos) << found;
  // Written again by this generator: every Vortex file the same bytes.
  codegen::BenchmarkOptions bo;
  bo.write_data = false;
  const auto files = codegen::write_benchmark(design::read_design((b / "design.json").string()), (scratch("lock-sources-gen")).string(), bo);
  for (const auto& f : fs::directory_iterator(files.vortex_dir)) fs::copy_file(f.path(), b / "vortex" / f.path().filename(), fs::copy_options::overwrite_existing);
  const LockSources rewritten = check_lock_sources(b);
  EXPECT_TRUE(rewritten.problems.empty()) << problems_of();
  for (std::size_t i = 1; i < rewritten.files.size(); ++i) EXPECT_EQ(rewritten.files[i].same, Sameness::bytes) << rewritten.files[i].file;
  // A missing file, and a generator field that is not one.
  fs::remove(b / "vortex" / "bench.h");
  EXPECT_NE(problems_of().find("vortex/bench.h: missing"), std::string::npos);
  val["cuda_generator"] = "1";
  write_json_file((b / "validation.json").string(), val);
  try {
    check_lock_sources(b);
    ADD_FAILURE() << "a bad cuda_generator was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("validation.json (cuda_generator)"), std::string::npos) << e.what();
  }
}

// suite refine on a GPU takes the platform suite captured on it; a folder of several platform
// suites is named with their GPUs when none is this GPU's, and a folder that mixes two GPUs'
// references is refused.
TEST(SuiteCli, PlatformSuitesAreFoundByTheirGpu) {
  const fs::path root = scratch("platforms");
  auto bench = [&](const std::string& suite, const std::string& name, const std::string& gpu) {
    fs::create_directories(root / suite / name);
    Json ref = read_json_file("../suite/vx-robotics/h200/act-1-linear/reference.json");
    ref["platform"]["gpu"] = gpu;
    write_json_file((root / suite / name / "reference.json").string(), ref);
  };
  bench("h200", "act-1-linear", "NVIDIA H200");
  bench("h200", "act-2-linear", "NVIDIA H200");
  bench("h100", "act-1-linear", "NVIDIA H100 80GB HBM3");
  const auto suites = platform_suites(root.string());
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(fs::path(suites[0].dir).filename(), "h100");
  EXPECT_EQ(suites[1].platform.gpu, "NVIDIA H200");
  EXPECT_EQ(suite_for_gpu(root.string(), "NVIDIA H100 80GB HBM3"), (root / "h100").string());
  EXPECT_EQ(suite_for_gpu((root / "h200").string(), "NVIDIA H200"), (root / "h200").string());
  for (const std::string& dir : {root.string(), (root / "h200").string()}) {
    try {
      suite_for_gpu(dir, "NVIDIA A100-SXM4-80GB");
      ADD_FAILURE() << "an A100 got a suite in " << dir;
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("this machine's GPU is NVIDIA A100-SXM4-80GB (platform a100-sxm4-80gb)"), std::string::npos) << m;
      EXPECT_NE(m.find("h200 (NVIDIA H200 (132 SMs))"), std::string::npos) << m;
    }
  }
  bench("h200", "act-3-linear", "NVIDIA H100 80GB HBM3");
  try {
    platform_suites((root / "h200").string());
    ADD_FAILURE() << "a suite of two GPUs was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a suite folder holds one platform's references"), std::string::npos) << e.what();
  }
  // Without a GPU (a replay), a folder of several platform suites must be narrowed to one.
  fs::remove_all(root / "h200" / "act-3-linear");
  const CliRun r = vxsynth({"suite", "refine", root.string(), "--out", scratch("platforms-run").string(), "--scope", "kernel", "--replay", "data/refine/store"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("holds a suite per platform"), std::string::npos) << r.output;
}

// `suite effort` counts what a benchmark cost over every committed run, whatever the run's
// layout and the chain's name: a design evaluated in two runs counts once, a chain restarted
// under another name belongs to the benchmark its start design names, the seed's D is its first
// profile; status then shows those figures instead of the lock's run alone.
TEST(SuiteCli, EffortCountsEveryCommittedRunOnce) {
  const fs::path suite = suite_copy("suite-effort");
  for (const auto& e : fs::recursive_directory_iterator("../suite/vx-robotics/h200/act-4-linear")) {
    const fs::path to = suite / "act-4-linear" / fs::relative(e.path(), "../suite/vx-robotics/h200/act-4-linear");
    if (e.is_directory()) fs::create_directories(to);
    else if (!fs::exists(to)) fs::copy_file(e.path(), to);
  }
  fs::remove(suite / "act-4-linear" / "effort.json");
  const std::string seed =
      design::procedural_name(design::seed_from_reference((suite / "act-4-linear" / "reference.json").string()));
  const fs::path runs = scratch("effort-runs");
  auto chain = [](const fs::path& dir, const std::vector<Json>& lines) {
    fs::create_directories(dir);
    std::ofstream f(dir / "revisions.jsonl");
    for (const auto& l : lines) f << dump_json(l, -1) << "\n";
  };
  auto rec = [](const std::string& key, const std::string& design, const std::string& decision, double d, double dev) {
    return Json{{"key", key}, {"design", design}, {"decision", decision}, {"d", d}, {"device_seconds", dev}};
  };
  // A suite run: act-4 from its seed (D 0.0713), and another benchmark's chain.
  chain(runs / "2026-01-01-a" / "worker-0" / "act-4-linear",
        {rec("k0", seed, "start", 0.0713, 2.25), rec("k1", "d1", "reverted", 0.08, 1.0), rec("k2", "d2", "retained", 0.05, 1.5)});
  chain(runs / "2026-01-01-a" / "worker-0" / "act-2-linear", {rec("k9", "d9", "start", 0.09, 7.0)});
  // A single `vxsynth refine` run restarted from k2 under another chain name: k2 and k1 again
  // (taken over from the first run), one new retained design; the seed profiled again later.
  chain(runs / "2026-01-02-b" / "restart", {rec("k2", "d2", "start", 0.05, 1.5), rec("k1", "d1", "reverted", 0.081, 1.0),
                                            rec("k3", "d3", "retained", 0.04, 0.5), rec("k0", seed, "reverted", 0.0999, 2.25)});
  fs::create_directories(runs / "2026-01-02-b" / "restart" / "designs");
  write_json_file((runs / "2026-01-02-b" / "restart" / "designs" / "r0.json").string(), Json{{"reference", "act-4-linear"}});
  // A served reference's chain belongs to its benchmark; a chain of nothing in the suite is named.
  chain(runs / "2026-01-02-b" / "worker-0" / "diffusion_policy-3-conv1d", {rec("k7", "d7", "start", 0.1, 3.0)});
  chain(runs / "2026-01-02-b" / "worker-0" / "someone-elses", {rec("k8", "d8", "start", 0.1, 3.0)});

  const CliRun e = vxsynth({"suite", "effort", suite.string(), "--runs", runs.string(), "--json"});
  ASSERT_EQ(e.code, 0) << e.output;
  const Json effort = Json::parse(e.output);
  const Json& a4 = effort["benchmarks"]["act-4-linear"];
  EXPECT_EQ(a4["designs"], 4);
  EXPECT_EQ(a4["retained"], 2);
  EXPECT_EQ(a4["chains"], 2);
  EXPECT_EQ(a4["runs"], Json::array({"2026-01-01-a", "2026-01-02-b"}));
  EXPECT_DOUBLE_EQ(a4["device_seconds"].get<double>(), 2.25 + 1.0 + 1.5 + 0.5);
  EXPECT_DOUBLE_EQ(a4["seed_d"].get<double>(), 0.0713);
  EXPECT_EQ(effort["benchmarks"]["diffusion_policy-1-conv1d"]["designs"], 1);
  EXPECT_EQ(effort["benchmarks"]["act-2-linear"]["retained"], 0);
  EXPECT_TRUE(effort["benchmarks"]["pi0-2-linear"]["seed_d"].is_null());
  EXPECT_EQ(effort["unattributed_chains"], Json::array({"2026-01-02-b/worker-0/someone-elses"}));
  // Only the locked benchmark gets its file; the table shows it.
  EXPECT_TRUE(fs::is_regular_file(suite / "act-4-linear" / "effort.json"));
  EXPECT_FALSE(fs::exists(suite / "act-2-linear" / "effort.json"));
  const CliRun st = vxsynth({"suite", "status", suite.string()});
  ASSERT_EQ(st.code, 0) << st.output;
  std::istringstream table(st.output);
  std::string line;
  bool seen = false;
  while (std::getline(table, line)) {
    if (line.rfind("act-4-linear ", 0) != 0) continue;
    seen = true;
    EXPECT_NE(line.find(" 4/2 "), std::string::npos) << line;
    EXPECT_NE(line.find(" 0.071 "), std::string::npos) << line;  // the seed's D, unmarked
    EXPECT_NE(line.find(" 5 "), std::string::npos) << line;      // 5.25 device seconds
  }
  EXPECT_TRUE(seen) << st.output;
  // A re-lock after the count (another locked key) marks the figures stale until counted again.
  {
    const fs::path sig_file = suite / "act-4-linear" / "signature.json";
    const std::string before = slurp(sig_file);
    Json sig = read_json_file(sig_file.string());
    sig["key"] = "design-0000000000000000";
    write_json_file(sig_file.string(), sig);
    const CliRun stale = vxsynth({"suite", "status", suite.string()});
    EXPECT_NE(stale.output.find(" 4/2!"), std::string::npos) << stale.output;
    ASSERT_EQ(vxsynth({"suite", "effort", suite.string(), "--runs", runs.string()}).code, 0);
    EXPECT_NE(vxsynth({"suite", "status", suite.string()}).output.find(" 4/2 "), std::string::npos);
    std::ofstream(sig_file) << before;
  }

  // Bad input names the file and the field.
  chain(runs / "2026-01-03-c" / "worker-0" / "act-4-linear", {Json{{"design", "d5"}, {"decision", "start"}}});
  const CliRun bad = vxsynth({"suite", "effort", suite.string(), "--runs", runs.string()});
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("2026-01-03-c/worker-0/act-4-linear/revisions.jsonl"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("key"), std::string::npos) << bad.output;
  const CliRun none = vxsynth({"suite", "effort", suite.string(), "--runs", (runs / "nope").string()});
  EXPECT_EQ(none.code, 2) << none.output;
  EXPECT_NE(none.output.find("no such folder of runs"), std::string::npos) << none.output;
}

// A Vortex-side signature that no longer describes its pair says so: changed sources, a re-lock
// (another CUDA signature), a changed formula; and `vxsynth distance` reads the file as it is.
TEST(SuiteCli, StaleVortexSideSignatureIsDetected) {
  const fs::path from = "../suite/vx-robotics/h200/act-1-linear";
  ASSERT_TRUE(fs::is_regular_file(from / kVortexSignatureFile));
  const fs::path b = scratch("vortex-side") / "act-1-linear";
  fs::create_directories(b.parent_path());
  fs::copy(from, b, fs::copy_options::recursive);
  VortexSideStatus ok = read_vortex_side(b);
  ASSERT_TRUE(ok.present);
  EXPECT_EQ(ok.stale, "");
  ASSERT_TRUE(ok.d_cuda.has_value());
  const Json doc = read_json_file((b / kVortexSignatureFile).string());
  EXPECT_DOUBLE_EQ(*ok.d_cuda, doc["vortex_side"]["distance_to_cuda"]["d"].get<double>());

  // vxsynth distance compares the committed file with the reference like any signature.
  const CliRun dist = vxsynth({"distance", (b / kVortexSignatureFile).string(), (b / "reference.json").string(), "--json"});
  ASSERT_EQ(dist.code, 0) << dist.output;
  EXPECT_NEAR(Json::parse(dist.output)["distance"]["D"].get<double>(),
              doc["vortex_side"]["distance_to_reference"]["d"].get<double>(), 1e-12);

  // A kernel edit after the run.
  std::ofstream(b / "vortex" / "kernel.cpp", std::ios::app) << "\n// edited\n";
  EXPECT_NE(read_vortex_side(b).stale.find("kernel.cpp"), std::string::npos) << read_vortex_side(b).stale;
  fs::copy_file(from / "vortex" / "kernel.cpp", b / "vortex" / "kernel.cpp", fs::copy_options::overwrite_existing);
  EXPECT_EQ(read_vortex_side(b).stale, "");

  // A file made by an earlier timing model (its cycles are another model's).
  {
    Json old = read_json_file((b / kVortexSignatureFile).string());
    old["vortex_side"]["run"]["timing"]["revision"] = 1;
    std::ofstream(b / kVortexSignatureFile) << old.dump(1);
    EXPECT_NE(read_vortex_side(b).stale.find("timing model's revision 1"), std::string::npos) << read_vortex_side(b).stale;
    fs::copy_file(from / kVortexSignatureFile, b / kVortexSignatureFile, fs::copy_options::overwrite_existing);
    EXPECT_EQ(read_vortex_side(b).stale, "");
  }

  // A re-lock that changed the CUDA side's signature.
  Json sig = read_json_file((b / "signature.json").string());
  sig["signature"]["occupancy"] = sig["signature"]["occupancy"].get<double>() + 7.5;
  write_json_file((b / "signature.json").string(), sig);
  EXPECT_NE(read_vortex_side(b).stale.find("signature.json changed"), std::string::npos);
  fs::copy_file(from / "signature.json", b / "signature.json", fs::copy_options::overwrite_existing);

  // A metric value that the recorded counters do not give.
  Json edited = doc;
  edited["kernels"][0]["metrics"]["occupancy"] = edited["kernels"][0]["metrics"]["occupancy"].get<double>() * 1.5;
  write_json_file((b / kVortexSignatureFile).string(), edited);
  EXPECT_NE(read_vortex_side(b).stale.find("occupancy is not what the recorded counters give"), std::string::npos)
      << read_vortex_side(b).stale;

  // Not a Vortex-side file at all: an error naming the file and field.
  Json plain = doc;
  plain.erase("vortex_side");
  write_json_file((b / kVortexSignatureFile).string(), plain);
  try {
    read_vortex_side(b);
    ADD_FAILURE() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("vortex_side.schema"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vxsynth::refine
