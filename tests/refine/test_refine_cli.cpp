// `vxsynth refine` as a user runs it, on replayed H200 profiles (tests/data/refine/store, made
// from the round-2 measurements by --import-profile): several chains with retained, reverted
// and two-axis revisions; a run killed with SIGKILL in the middle of a round and resumed, whose
// records must equal an uninterrupted run's; the scripted external generator, whose sandbox
// breaks and broken Vortex kernel must be rejected.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "common/json_io.h"
#include "common/process.h"
#include "refine/record.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

// This process's scratch folder, removed at exit (VXSYNTH_KEEP_SCRATCH=1 keeps it for a look).
fs::path scratch(const std::string& name) {
  static const fs::path root = [] {
    std::atexit([] {
      if (std::getenv("VXSYNTH_KEEP_SCRATCH") == nullptr) {
        std::error_code ec;
        fs::remove_all(fs::temp_directory_path() / ("vxsynth-refine-cli-" + std::to_string(::getpid())), ec);
      }
    });
    return fs::temp_directory_path() / ("vxsynth-refine-cli-" + std::to_string(::getpid()));
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

const char* kBenches[] = {"pi0-1-batched-matmul", "act-1-linear", "act-4-linear"};

// Three chains from the round-2 parents, answered by the replay store.
std::vector<std::string> chain_args(const fs::path& out) {
  std::vector<std::string> a = {"refine"};
  for (const char* b : kBenches) {
    a.insert(a.end(), {"--reference", std::string("../suite/vx-robotics/h200/") + b + "/reference.json", "--start",
                       std::string("data/refine/") + b + "/parent-design.json"});
  }
  a.insert(a.end(), {"--scope", "kernel", "--replay", "data/refine/store", "--replay", "data/refine/store-synthetic", "--retention", "single",
                     "--sim-check", "skip", "--budget", "revisions=9", "--width", "3", "--pair-after", "2", "--out",
                     out.string()});
  return a;
}

std::vector<Json> records(const fs::path& out, const std::string& chain) {
  auto lines = read_records((out / chain / "revisions.jsonl").string());
  for (auto& l : lines) l.erase("at");
  return lines;
}

TEST(RefineCli, ChainsOnReplayedProfiles) {
  const fs::path out = scratch("chains");
  const CliRun r = vxsynth(chain_args(out));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("round 1:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("best D:"), std::string::npos);
  std::set<std::string> decisions, kinds;
  for (const char* b : kBenches) {
    const auto lines = records(out, b);
    ASSERT_GE(lines.size(), 2u) << b;
    EXPECT_EQ(lines[0]["decision"], "start");
    double best = lines[0]["d"].get<double>();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const Json& l = lines[i];
      EXPECT_EQ(l["schema"], "vxsynth.revision/1");
      EXPECT_EQ(l["revision"], static_cast<int>(i)) << b;
      for (const char* f : {"parent", "moves", "targets", "why", "same_operator", "checks", "signature", "distances", "d",
                            "delta_d", "retention", "decision", "reason", "device_seconds", "sim_seconds", "design", "sources"}) {
        EXPECT_TRUE(l.contains(f)) << b << " r" << i << " " << f;
      }
      EXPECT_EQ(l["retention"]["rule"], "single");
      decisions.insert(l["decision"].get<std::string>());
      kinds.insert(l["kind"].get<std::string>());
      if (l["decision"] == "retained") {
        // Retained means D fell by more than the margin below the retained parent.
        EXPECT_LT(l["d"].get<double>(), best - 0.013) << b << " r" << i;
        best = l["d"].get<double>();
      }
      if (l["decision"] == "reverted" && l["reason"].get<std::string>().find("not a fall") != std::string::npos) {
        EXPECT_GE(l["d"].get<double>(), l["parent_d"].get<double>() - 0.013 - 1e-12);
      }
    }
    // The text table ends the output, one row per revision.
    EXPECT_NE(r.output.find(std::string(b) + ": D "), std::string::npos);
  }
  EXPECT_TRUE(decisions.count("retained")) << r.output;
  EXPECT_TRUE(decisions.count("reverted")) << r.output;
  EXPECT_TRUE(kinds.count("pair")) << r.output;
  // Deterministic: a second run gives the same records.
  const fs::path again = scratch("chains-again");
  ASSERT_EQ(vxsynth(chain_args(again)).code, 0);
  for (const char* b : kBenches) EXPECT_EQ(records(out, b), records(again, b)) << b;
}

TEST(RefineCli, ResumeAfterKillNineMidRound) {
  const fs::path whole = scratch("whole"), cut = scratch("cut");
  ASSERT_EQ(vxsynth(chain_args(whole)).code, 0);
  std::size_t total_lines = 0;
  for (const char* b : kBenches) total_lines += records(whole, b).size();
  // The same run, paced so that it can be caught in the middle of a round, killed once some
  // records are on disk but before all are.
  auto args = chain_args(cut);
  args.insert(args.end(), {"--replay-pace", "0.05"});
  args.insert(args.begin(), VXSYNTH_CLI_PATH);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::freopen("/dev/null", "w", stdout);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::size_t seen = 0;
  for (int i = 0; i < 2000 && seen < total_lines / 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    seen = 0;
    for (const char* b : kBenches) seen += read_records((cut / b / "revisions.jsonl").string()).size();
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";
  std::size_t before = 0;
  for (const char* b : kBenches) before += records(cut, b).size();
  EXPECT_GT(before, 0u);
  EXPECT_LT(before, total_lines);
  const auto cached = fs::is_directory(cut / "evaluations")
                          ? std::distance(fs::directory_iterator(cut / "evaluations"), fs::directory_iterator{})
                          : 0;
  // Without --resume the record is never overwritten.
  const CliRun refused = vxsynth(chain_args(cut));
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--resume"), std::string::npos);
  auto resume = chain_args(cut);
  resume.push_back("--resume");
  const CliRun r = vxsynth(resume);
  ASSERT_EQ(r.code, 0) << r.output;
  // Nothing evaluated before the kill is evaluated again.
  EXPECT_NE(r.output.find("reused"), std::string::npos);
  const auto made_at = r.output.find("evaluations: ");
  ASSERT_NE(made_at, std::string::npos);
  const int made = std::stoi(r.output.substr(made_at + 13));
  const auto all = std::distance(fs::directory_iterator(cut / "evaluations"), fs::directory_iterator{});
  EXPECT_EQ(made, all - cached) << r.output;
  for (const char* b : kBenches) EXPECT_EQ(records(cut, b), records(whole, b)) << b;
}

// A run given an earlier run's store (--known) profiles none of the candidates that run
// measured with a passed source check; one whose check failed there is evaluated again (the
// check may have been fixed since). The records are those of a run that measured everything.
TEST(RefineCli, KnownEvaluationsOfAnEarlierRunAreNotMeasuredAgain) {
  const fs::path first = scratch("known-first"), known = scratch("known-store"), second = scratch("known-second");
  ASSERT_EQ(vxsynth(chain_args(first)).code, 0);
  fs::create_directories(known);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(first / "evaluations")) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  ASSERT_GE(entries.size(), 4u);
  for (const auto& e : entries) fs::copy_file(e, known / e.filename());
  Json failed = read_json_file(entries.front().string());
  failed["source_check"]["status"] = "failed";
  write_json_file((known / entries.front().filename()).string(), failed);
  auto args = chain_args(second);
  args.insert(args.end(), {"--known", known.string()});
  const CliRun r = vxsynth(args);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("known: " + std::to_string(entries.size() - 1) + " evaluation(s)"), std::string::npos) << r.output;
  const auto made_at = r.output.find("evaluations: ");
  ASSERT_NE(made_at, std::string::npos);
  EXPECT_EQ(std::stoi(r.output.substr(made_at + 13)), 1) << r.output;
  for (const char* b : kBenches) EXPECT_EQ(records(second, b), records(first, b)) << b;
  // A store that is not one is named.
  auto bad = chain_args(scratch("known-bad"));
  bad.insert(bad.end(), {"--known", "/nonexistent/evaluations"});
  const CliRun refused = vxsynth(bad);
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find("/nonexistent/evaluations"), std::string::npos) << refused.output;
}

// A chain whose reference was captured on another GPU than its candidates' profiles stops at
// the first comparison, naming both GPUs and the reference; nothing is compared across them.
TEST(RefineCli, AProfileOfAnotherGpuIsNotComparedWithTheReference) {
  const fs::path out = scratch("other-gpu");
  const fs::path ref = scratch("other-gpu-ref") / "act-1-linear" / "reference.json";
  fs::create_directories(ref.parent_path());
  Json j = read_json_file("../suite/vx-robotics/h200/act-1-linear/reference.json");
  j["platform"]["gpu"] = "NVIDIA H100 80GB HBM3";
  write_json_file(ref.string(), j);
  const CliRun r = vxsynth({"refine", "--reference", ref.string(), "--start", "data/refine/act-1-linear/parent-design.json", "--scope", "kernel", "--replay",
                            "data/refine/store", "--sim-check", "skip", "--budget", "revisions=2", "--out", out.string()});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("r0 of chain act-1-linear"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("): NVIDIA H200 (132 SMs); " + ref.string() + ": NVIDIA H100 80GB HBM3 (132 SMs). Two GPU models"),
            std::string::npos)
      << r.output;
  // No record holds a D across the two GPUs.
  if (fs::exists(out / "act-1-linear" / "revisions.jsonl")) {
    for (const auto& line : records(out, "act-1-linear")) EXPECT_TRUE(line["d"].is_null()) << line.dump();
  }
}

// A replay says what it did: a start its store lacks leaves the chain without a D (not "D 0 ->
// 0", which reads as a perfect match) and the run exits 1; a chain that exhausts the store says
// so; nothing claims to be profiled; the summary names the record files.
TEST(RefineCli, AReplaySaysWhatItsStoreHeld) {
  const fs::path missing = scratch("replay-missing");
  const CliRun r = vxsynth({"refine", "--reference", "../suite/vx-robotics/h200/act-2-linear/reference.json", "--scope", "kernel", "--replay",
                            "data/refine/store", "--out", missing.string()});
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("act-2-linear: no D (the start was not scored); stopped: the start design was rejected"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("D 0.0000 -> 0.0000"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("profiled"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("looked up in the replay store"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("records: " + (missing / "act-2-linear" / "revisions.jsonl").string()), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("<chain>"), std::string::npos) << r.output;
  const fs::path held = scratch("replay-held");
  const CliRun all = vxsynth({"refine", "--reference", "../suite/vx-robotics/h200/act-1-linear/reference.json", "--scope", "kernel", "--replay",
                              "data/refine/store", "--sim-check", "skip", "--budget", "revisions=200", "--out", held.string()});
  EXPECT_EQ(all.code, 0) << all.output;
  EXPECT_NE(all.output.find("stopped: no untried move whose evaluation the replay store holds"), std::string::npos) << all.output;
  EXPECT_NE(all.output.find("D of the mean of the profiles the replay store holds, up to 3"), std::string::npos) << all.output;
}

TEST(RefineCli, ScriptedExternalGenerator) {
  const fs::path out = scratch("external");
  const std::string generator =
      std::string("sh ") + fs::absolute("refine/scripted-generator.sh").string() + " " + VXSYNTH_CLI_PATH + " boundary=padded";
  const CliRun r = vxsynth({"refine", "--reference", "../suite/vx-robotics/h200/act-4-linear/reference.json", "--start",
                            "data/refine/act-4-linear/parent-design.json", "--scope", "kernel", "--replay", "data/refine/store", "--retention",
                            "single", "--margin", "0.005", "--generator", generator, "--budget", "revisions=4", "--out",
                            out.string()});
  ASSERT_EQ(r.code, 0) << r.output;
  const auto lines = records(out, "act-4-linear");
  ASSERT_EQ(lines.size(), 5u) << r.output;
  // r1: boundary=padded (recorded D 0.0070 below the parent's, retained at margin 0.005) with a
  // Vortex kernel that subtracts the bias: the candidate check on the simulator fails, the
  // revision is rejected.
  EXPECT_EQ(lines[1]["kind"], "external");
  EXPECT_EQ(lines[1]["decision"], "rejected") << lines[1].dump();
  EXPECT_EQ(lines[1]["checks"]["candidate"]["status"], "failed") << lines[1].dump();
  EXPECT_EQ(lines[1]["checks"]["source"]["status"], "passed");
  // r2: the same design with its generated kernel: checked on the simulator and retained.
  EXPECT_EQ(lines[2]["decision"], "retained") << lines[2].dump();
  EXPECT_EQ(lines[2]["checks"]["candidate"]["status"], "passed") << lines[2].dump();
  EXPECT_EQ(lines[2]["moves"][0]["axis"], "boundary");
  EXPECT_EQ(lines[2]["retention"]["rule"], "custom");
  EXPECT_EQ(lines[2]["note"]["schema"], "vxsynth.revision-note/1");
  // r3 reads a file, r4 writes a file it was not asked for: both stopped by the sandbox.
  EXPECT_EQ(lines[3]["decision"], "rejected");
  EXPECT_NE(lines[3]["reason"].get<std::string>().find("accesses files"), std::string::npos) << lines[3].dump();
  EXPECT_EQ(lines[4]["decision"], "rejected");
  EXPECT_NE(lines[4]["reason"].get<std::string>().find("cache.bin"), std::string::npos) << lines[4].dump();
  // The bundle the generator saw.
  const Json bundle = read_json_file((out / "act-4-linear" / "generator" / "r2" / "bundle" / "bundle.json").string());
  EXPECT_EQ(bundle["schema"], "vxsynth.generator-bundle/1");
  EXPECT_EQ(bundle["history"].size(), 2u);
  EXPECT_TRUE(bundle["current"].contains("distances"));
  EXPECT_EQ(bundle["fixed"]["block_size"], 256);
}

TEST(RefineCli, BadInputIsNamed) {
  const fs::path out = scratch("bad");
  CliRun r = vxsynth({"refine", "--reference", "nope.json", "--out", out.string(), "--scope", "kernel", "--replay", "data/refine/store"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("nope.json"), std::string::npos) << r.output;
  r = vxsynth({"refine", "--reference", "../suite/vx-robotics/h200/act-4-linear/reference.json", "--out", out.string(),
               "--budget", "revisions=lots", "--scope", "kernel", "--replay", "data/refine/store"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("revisions"), std::string::npos) << r.output;
  r = vxsynth({"refine", "--reference", "../suite/vx-robotics/h200/act-4-linear/reference.json", "--out", out.string(),
               "--retention", "median", "--scope", "kernel", "--replay", "data/refine/store"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("unknown retention rule"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vxsynth::refine
