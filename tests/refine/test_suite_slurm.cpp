// `vxsynth suite refine --slurm` through a real single-node Slurm (scripts/slurm-local: a munged,
// slurmctld and slurmd of the test's own, on free ports), with the replay evaluator and the
// candidate checks run on the embedded simulator: one array task per chain; one task told that
// its time limit is near (SIGUSR1 to its batch script, as Slurm's --signal sends it), which
// requeues itself mid-chain; a record line cut in half while it waits (what a kill in the
// middle of a write leaves); the requeued task resumes; the dependent collect job locks the
// pairs and writes the suite table. The records must be those of an uninterrupted run, with
// nothing lost, torn or repeated, and nothing evaluated twice. Skipped, saying why, where this
// machine cannot run Slurm (not root, Slurm not installed).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "common/json_io.h"
#include "common/process.h"
#include "refine/record.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

fs::path scratch(const std::string& name) {
  static const fs::path root = [] {
    std::atexit([] {
      if (std::getenv("VXSYNTH_KEEP_SCRATCH") == nullptr) {
        std::error_code ec;
        fs::remove_all(fs::temp_directory_path() / ("vxsynth-suite-slurm-" + std::to_string(::getpid())), ec);
      }
    });
    return fs::temp_directory_path() / ("vxsynth-suite-slurm-" + std::to_string(::getpid()));
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

CliRun run(std::vector<std::string> args) {
  CliRun r;
  r.code = run_program(args, &r.output);
  return r;
}

CliRun vxsynth(std::vector<std::string> args) {
  args.insert(args.begin(), VXSYNTH_CLI_PATH);
  return run(args);
}

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

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The record without what measures wall time: the line's time stamp and the simulator's seconds.
std::vector<Json> records(const fs::path& file) {
  auto lines = read_records(file.string());
  for (auto& l : lines) {
    l.erase("at");
    l.erase("sim_seconds");
  }
  return lines;
}

std::size_t files_in(const fs::path& dir) {
  return fs::is_directory(dir) ? static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{})) : 0;
}

std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

// Polls `done` every 50 ms until it holds or `seconds` pass.
template <typename F>
bool wait_for(double seconds, F done) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

// The test's own cluster: its jobs cancelled and its daemons stopped when the test ends.
class LocalSlurm {
 public:
  explicit LocalSlurm(fs::path dir) : dir_(std::move(dir)) {}
  ~LocalSlurm() {
    std::string ignored;
    if (running_) {
      // Only this cluster's jobs (SLURM_CONF names it; never a real cluster's).
      ProcessOptions po;
      po.capture = &ignored;
      po.env = {"SLURM_CONF=" + (dir_ / "slurm.conf").string()};
      run_process({"scancel", "--me"}, po);
      ::unsetenv("SLURM_CONF");
    }
    // Stops what did start, whatever failed after (the daemons of DIR, by their pid files).
    if (tried_) run_program({"../scripts/slurm-local", "stop", dir_.string()}, &ignored);
  }
  // The exit status of scripts/slurm-local start (3: this machine cannot run Slurm).
  int start(std::string* output) {
    tried_ = true;
    const int rc = run_program({"../scripts/slurm-local", "start", dir_.string()}, output);
    if (rc == 0) {
      running_ = true;
      ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
    }
    return rc;
  }

 private:
  fs::path dir_;
  bool tried_ = false, running_ = false;
};

const char* kBenches[] = {"act-4-linear", "act-1-linear"};

std::vector<std::string> chain_args(const fs::path& suite, const fs::path& out) {
  std::vector<std::string> a = {"suite", "refine", suite.string(), "--out", out.string()};
  for (const char* b : kBenches) {
    a.insert(a.end(), {"--bench", b, "--start", std::string(b) + "=data/refine/" + b + "/parent-design.json"});
  }
  a.insert(a.end(), {"--scope", "kernel", "--replay", "data/refine/store", "--replay", "data/refine/store-synthetic", "--retention", "single",
                     "--sim-check", "run", "--budget", "revisions=6", "--width", "3", "--pair-after", "2"});
  return a;
}

TEST(SuiteSlurm, ArrayTasksARequeueMidChainAndTheCollectJob) {
  const auto t0 = Clock::now();
  auto at = [&] { return std::to_string(std::chrono::duration<double>(Clock::now() - t0).count()).substr(0, 5) + " s"; };
  LocalSlurm slurm(scratch("cluster"));
  std::string started;
  const int rc = slurm.start(&started);
  if (rc == 3) GTEST_SKIP() << last_line(started);
  ASSERT_EQ(rc, 0) << "scripts/slurm-local start failed:\n" << started;
  std::cout << "[" << at() << "] single-node Slurm up\n";

  // The uninterrupted run: the same chains, one local worker each.
  const fs::path whole_suite = suite_copy("suite-whole"), whole = scratch("whole");
  auto local = chain_args(whole_suite, whole);
  local.insert(local.end(), {"--workers", "2"});
  const CliRun w = vxsynth(local);
  ASSERT_EQ(w.code, 0) << w.output;
  const Json whole_run = read_json_file((whole / "suite-run.json").string());
  std::map<std::string, fs::path> whole_record;
  for (const auto& wk : whole_run["workers"]) {
    for (const auto& c : wk["chains"]) whole_record[c.get<std::string>()] = whole / wk["dir"].get<std::string>() / c.get<std::string>() / "revisions.jsonl";
  }
  std::cout << "[" << at() << "] uninterrupted local run done\n";

  // The cluster run, paced (0.4 s per evaluation) so that a task can be caught mid-chain.
  const fs::path suite = suite_copy("suite"), out = scratch("run");
  auto args = chain_args(suite, out);
  args.insert(args.end(), {"--slurm", "--time", "30", "--replay-pace", "0.4"});
  const CliRun sub = vxsynth(args);
  ASSERT_EQ(sub.code, 0) << sub.output;
  const Json run_file = read_json_file((out / "suite-run.json").string());
  ASSERT_EQ(run_file["scheduler"], "slurm");
  ASSERT_EQ(run_file["workers"].size(), 2u) << "one array task per chain";
  const std::string array_job = run_file["slurm"]["submissions"][0]["array_job"].get<std::string>();
  const std::string collect_job = run_file["slurm"]["submissions"][0]["collect_job"].get<std::string>();
  ASSERT_FALSE(collect_job.empty());
  int victim = -1;
  fs::path victim_dir;
  for (const auto& wk : run_file["workers"]) {
    ASSERT_EQ(wk["chains"].size(), 1u);
    if (wk["chains"][0] == kBenches[0]) {
      victim = wk["index"].get<int>();
      victim_dir = out / wk["dir"].get<std::string>();
    }
  }
  ASSERT_GE(victim, 0);
  const fs::path victim_record = victim_dir / kBenches[0] / "revisions.jsonl";
  const std::size_t total = read_records(whole_record[kBenches[0]].string()).size();
  ASSERT_GE(total, 5u);

  // Mid-chain: once round 1 is on record (start + 3 lines), Slurm's time-limit warning: the
  // batch script's trap requeues the task, and Slurm stops it (SIGTERM to the task).
  ASSERT_TRUE(wait_for(300, [&] { return read_records(victim_record.string()).size() >= 4; }))
      << "the task's record never reached round 1: " << slurp(out / "slurm" / ("task-" + std::to_string(victim) + ".out"));
  const std::string task = array_job + "_" + std::to_string(victim);
  const CliRun usr1 = run({"scancel", "--batch", "--signal=USR1", task});
  ASSERT_EQ(usr1.code, 0) << usr1.output;
  const fs::path task_state = out / "tasks" / ("worker-" + std::to_string(victim) + ".json");
  ASSERT_TRUE(wait_for(60, [&] { return read_json_file(task_state.string())["state"] != "running"; }))
      << slurp(out / "slurm" / ("task-" + std::to_string(victim) + ".out"));
  // Held while the test looks at what the kill left (Slurm starts a requeued job a few seconds later).
  const CliRun hold = run({"scontrol", "hold", task});
  ASSERT_EQ(hold.code, 0) << hold.output;
  std::cout << "[" << at() << "] task " << task << " requeued and held\n";
  const std::size_t kept = read_records(victim_record.string()).size();
  ASSERT_LT(kept, total) << "the chain ended before its task could be requeued";
  // What a kill in the middle of writing the next line leaves: half of it, no newline.
  {
    std::istringstream whole_lines(slurp(whole_record[kBenches[0]]));
    std::string line;
    for (std::size_t i = 0; i <= kept; ++i) std::getline(whole_lines, line);
    std::ofstream(victim_record, std::ios::app | std::ios::binary) << line.substr(0, line.size() / 2);
  }
  const std::size_t cached = files_in(victim_dir / "evaluations");
  {
    const CliRun st = vxsynth({"suite", "status", suite.string(), "--run", out.string(), "--json"});
    ASSERT_EQ(st.code, 0) << st.output;
    const Json s = Json::parse(st.output);
    for (const auto& r : s["rows"]) {
      if (r["chain"] == kBenches[0]) {
        EXPECT_EQ(r["state"], "requeued") << st.output;
        EXPECT_EQ(r["revisions"], static_cast<int>(kept) - 1);
      }
    }
    std::cout << vxsynth({"suite", "status", suite.string(), "--run", out.string()}).output;
  }
  const CliRun release = run({"scontrol", "release", task});
  ASSERT_EQ(release.code, 0) << release.output;

  // The collect job runs once both tasks have ended.
  ASSERT_TRUE(wait_for(400, [&] { return fs::is_regular_file(out / "collect.json"); }))
      << run({"squeue", "-a"}).output << slurp(out / "slurm" / ("task-" + std::to_string(victim) + ".out"));
  ASSERT_TRUE(wait_for(60, [&] { return slurp(out / "slurm" / "collect.out").find("columns: tries") != std::string::npos; }));
  std::cout << "[" << at() << "] collect job done\n";

  // Every chain's record is the uninterrupted run's: nothing lost, torn or repeated.
  for (const auto& wk : run_file["workers"]) {
    const std::string chain = wk["chains"][0].get<std::string>();
    const fs::path record = out / wk["dir"].get<std::string>() / chain / "revisions.jsonl";
    EXPECT_EQ(records(record), records(whole_record[chain])) << chain;
    const std::string text = slurp(record);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n') << chain;
    EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), read_records(record.string()).size()) << chain;
    std::set<int> revisions;
    for (const auto& l : read_records(record.string())) EXPECT_TRUE(revisions.insert(l["revision"].get<int>()).second) << chain;
  }
  // The victim ran twice: stopped by the requeue, then resumed by Slurm (restart count 1) with
  // nothing evaluated before the kill evaluated again.
  const Json attempts = read_json_file(task_state.string())["attempts"];
  ASSERT_EQ(attempts.size(), 2u) << attempts.dump();
  EXPECT_GT(attempts[0]["exit"].get<int>(), 128) << "stopped by a signal";
  EXPECT_EQ(attempts[1]["exit"], 0);
  EXPECT_EQ(attempts[1]["slurm_restart_count"], 1);
  EXPECT_EQ(attempts[0]["slurm_job"], task);
  const std::string resumed = slurp(out / attempts[1]["log"].get<std::string>());
  EXPECT_NE(resumed.find("resuming"), std::string::npos) << resumed;
  const auto made_at = resumed.find("evaluations: ");
  ASSERT_NE(made_at, std::string::npos) << resumed;
  EXPECT_EQ(static_cast<std::size_t>(std::stoi(resumed.substr(made_at + 13))), files_in(victim_dir / "evaluations") - cached)
      << resumed;

  // The collect job locked the pairs (the same as a lock of the uninterrupted run) and wrote the table.
  const Json collected = read_json_file((out / "collect.json").string());
  EXPECT_TRUE(collected["unfinished"].empty()) << collected.dump();
  ASSERT_EQ(collected["locked"].size(), 2u) << collected.dump() << slurp(out / "slurm" / "collect.out");
  const CliRun lock_whole = vxsynth({"suite", "lock", whole_suite.string(), "--run", whole.string()});
  ASSERT_EQ(lock_whole.code, 0) << lock_whole.output;
  for (const char* b : kBenches) {
    const Json mine = read_json_file((suite / b / "signature.json").string());
    const Json theirs = read_json_file((whole_suite / b / "signature.json").string());
    EXPECT_EQ(mine["revision"], theirs["revision"]) << b;
    EXPECT_EQ(mine["d"], theirs["d"]) << b;
    EXPECT_EQ(slurp(suite / b / "design.json"), slurp(whole_suite / b / "design.json")) << b;
    EXPECT_EQ(slurp(suite / b / "vortex" / "kernel.cpp"), slurp(whole_suite / b / "vortex" / "kernel.cpp")) << b;
  }
  EXPECT_NE(slurp(out / "suite-status.txt").find("2 of 13 benchmarks locked"), std::string::npos) << slurp(out / "suite-status.txt");

  const CliRun st = vxsynth({"suite", "status", suite.string(), "--run", out.string(), "--json"});
  ASSERT_EQ(st.code, 0) << st.output;
  const Json s = Json::parse(st.output);
  EXPECT_EQ(s["states"], Json({{"done", 2}})) << st.output;
  for (const auto& r : s["rows"]) {
    const auto lines = read_records(whole_record[r["chain"].get<std::string>()].string());
    EXPECT_EQ(r["revisions"].get<std::size_t>(), lines.size() - 1);
    EXPECT_EQ(r["attempts"], r["chain"] == kBenches[0] ? 2 : 1);
    EXPECT_GT(r["elapsed_seconds"].get<double>(), 0.0);
    double best = 1e9;
    for (const auto& l : lines) {
      if (l["decision"] == "start" || l["decision"] == "retained") best = std::min(best, l["d"].get<double>());
    }
    EXPECT_DOUBLE_EQ(r["best_d"].get<double>(), best);
  }
  std::cout << vxsynth({"suite", "status", suite.string(), "--run", out.string()}).output;
  std::cout << "[" << at() << "] done\n";
}

// What --slurm refuses, without a cluster.
TEST(SuiteSlurm, BadInputIsNamed) {
  const fs::path suite = suite_copy("suite-bad");
  auto args = chain_args(suite, scratch("bad-workers"));
  args.insert(args.end(), {"--slurm", "--workers", "2"});
  CliRun r = vxsynth(args);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--workers"), std::string::npos) << r.output;

  args = chain_args(suite, scratch("bad-partition"));
  args.insert(args.end(), {"--slurm", "--partition", "gpu h200"});
  r = vxsynth(args);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--partition"), std::string::npos) << r.output;

  // No Slurm client on PATH: said so, nothing submitted.
  args = chain_args(suite, scratch("no-sbatch"));
  args.insert(args.end(), {"--slurm"});
  args.insert(args.begin(), VXSYNTH_CLI_PATH);
  std::string text;
  ProcessOptions po;
  po.capture = &text;
  po.env = {"PATH=/nonexistent"};
  EXPECT_EQ(run_process(args, po).exit_code, 1) << text;
  EXPECT_NE(text.find("sbatch not found"), std::string::npos) << text;

  // `suite task` runs only what a --slurm submission fixed.
  const fs::path local = scratch("local-run");
  auto la = chain_args(suite, local);
  for (std::size_t i = 0; i + 1 < la.size(); ++i) {
    if (la[i] == "--sim-check") la[i + 1] = "skip";
  }
  ASSERT_EQ(vxsynth(la).code, 0);
  r = vxsynth({"suite", "task", local.string(), "--index", "0"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("refine_argv"), std::string::npos) << r.output;
  r = vxsynth({"suite", "task", local.string()});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << r.output;
  r = vxsynth({"suite", "status", suite.string(), "--run", scratch("nothing").string()});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("suite-run.json"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vxsynth::refine
