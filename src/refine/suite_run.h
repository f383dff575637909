// The suite's life cycle after planning (docs/suite.md):
//   refine_suite   every benchmark's chain in one run, one `vxsynth refine` worker per GPU
//                  (chains dealt out by share), resumable: RUN/suite-run.json fixes which
//                  worker owns which chain, RUN/worker-<i>/ is that worker's refine folder
//                  (on a Slurm cluster, suite_run_cluster.h: one worker per chain, each an
//                  array task);
//   lock_suite     each chain's best revision whose both checks passed, written into the
//                  suite folder (design.json, cuda/, vortex/, revisions.jsonl, signature.json,
//                  validation.json);
//   suite_table    the table `vxsynth suite status` prints, from the suite folder alone.
#pragma once

#include <iosfwd>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "refine/evaluation.h"
#include "refine/suite.h"

namespace vxsynth::refine {

struct SuiteRefineOptions {
  std::string out;                                // RUN folder
  bool resume = false;
  int workers = 0;                                // 0: one per visible GPU (replay: 1)
  bool replay = false;                            // refine_args answer from stores: no GPU needed
  std::vector<std::string> refine_args;           // passed to every worker's `vxsynth refine`
  std::map<std::string, std::string> starts;      // benchmark -> start design.json
  std::vector<std::string> only;                  // benchmarks to refine (empty: all)
  // Chains per benchmark (--multi-start): the first from the seed (or --start), the others from
  // designs a few random single-axis moves away from it, named multi_start_chain(bench, k).
  int multi_start = 1;
  std::string self;                               // the vxsynth executable
};

// The k-th chain of a benchmark (k >= 2): "<bench>.start<k>". The first keeps the bench's name.
std::string multi_start_chain(const std::string& bench, int k);
// The benchmark a chain refines (the name without ".start<k>"), and which of its chains it is
// (k; 1 for the chain named after the benchmark).
std::string chain_benchmark(const std::string& chain);
int chain_start_index(const std::string& chain);
// The start of chain k >= 2 of a benchmark whose first chain starts from `first`: a seeded
// random walk of 3 moves from it (deterministic per benchmark and k), distinct from `first`.
design::DesignPoint multi_start_design(const design::DesignPoint& first, const std::string& bench, int k);

struct SuiteWorker {
  int index = 0;
  std::string gpu;                  // CUDA_VISIBLE_DEVICES value ("" for replay)
  std::string dir;                  // RUN/worker-<i>
  std::vector<std::string> chains;  // benchmark names
  int exit_code = -1;
  double seconds = 0;
  std::string log;
};

// The GPUs this process may use: CUDA_VISIBLE_DEVICES when set, else nvidia-smi's indices.
std::vector<std::string> visible_gpus();

// Runs the workers in parallel and waits for all. Progress lines go to `progress`. Each
// worker's attempts are kept in RUN/tasks/worker-<i>.json (suite_run_cluster.h).
std::vector<SuiteWorker> refine_suite(const SuitePlan& plan, const SuiteRefineOptions& options, std::ostream& progress);

// The parts refine_suite and the Slurm path share.
inline constexpr const char* kSuiteRunFile = "suite-run.json";
// Checks the options against the plan, then writes RUN/suite-run.json (the workers and their
// chains; `one_chain_per_worker` for Slurm, "scheduler": "slurm") or, with --resume, reads it.
std::vector<SuiteWorker> prepare_suite_run(const SuitePlan& plan, const SuiteRefineOptions& options, bool one_chain_per_worker);
std::vector<SuiteWorker> read_suite_workers(const std::string& run);
// The worker's `vxsynth refine ...` arguments after the executable, without --resume
// (seed starts written to RUN/starts/ when other chains have --start).
std::vector<std::string> worker_refine_args(const SuitePlan& plan, const SuiteRefineOptions& options, const SuiteWorker& worker);
// RUN/worker-<i>.run<N>.log with the first N not taken: one log per attempt.
std::string next_worker_log(const std::string& run, int index);

// Completes the candidate checks a GPU machine deferred in a refine folder (OUT/<chain>/
// deferred-checks.jsonl, one line per check). Returns the number of retained (or start)
// revisions whose check failed. `only_keys`: when not empty, just these evaluation keys.
struct DeferredSummary {
  int checked = 0, failed_kept = 0, missing = 0;
};
// `recheck`: run them again even when a result is recorded (after a generator change).
DeferredSummary complete_deferred_checks(const std::string& out, std::ostream& progress,
                                         const std::vector<std::string>& only_keys = {}, bool recheck = false);

struct LockResult {
  std::string bench;
  bool locked = false;
  int revision = -1;
  double d = 0;
  std::string why;  // why not locked, or what was locked
};

// A lock's choice of revision, apart from the files (tested on records alone):
// lock_candidates: the start and retained revisions whose source check passed, lowest D first
// (equal D: the earlier record first). choose_lock_revision: the first of those whose candidate
// check, as `check_of` resolves it (deferred checks completed or borrowed), passed; the better
// ones passed over are listed with why.
struct ResolvedCheck {
  Json check;           // the candidate check's outcome ({"status": ...})
  Json sources;         // the Vortex sources it ran (name -> sha256), when recorded
  std::string from;     // another run's check file it was borrowed from ("" = this run)
  std::string why_not;  // when not passed: what would have made it count
};
struct LockChoice {
  const Json* record = nullptr;  // nullptr: no revision passed both checks
  ResolvedCheck check;
  std::vector<std::string> passed_over;
};
std::vector<const Json*> lock_candidates(const std::vector<Json>& lines);
LockChoice choose_lock_revision(const std::vector<const Json*>& candidates,
                                const std::function<ResolvedCheck(const Json&)>& check_of);

// Locks every benchmark of `plan` whose chain is in `run` (a suite refine RUN folder, or a
// single `vxsynth refine` OUT folder). `benches` empty: all.
// `recheck`: the candidate checks of the revisions considered run again (needs their CUDA outputs).
// `chain`: lock the one benchmark of `benches` from this chain of the run instead of the chain
// named after it (a chain started by hand, `vxsynth refine --name`); its records must have been
// scored against the benchmark's reference (the locked revision's D is recomputed from it).
// `checks_from`: folders searched (recursively) for the candidate check of a revision whose check
// is deferred and whose CUDA output this run did not keep (an evaluation reused from an earlier
// run, `refine --known`): a passed check of the same key in a `deferred-checks.jsonl` counts when
// the record beside it (`revisions.jsonl`, same revision) has the same CUDA digest and the check
// recorded the Vortex sources it ran (the lock requires them to be today's, as for its own).
std::vector<LockResult> lock_suite(const SuitePlan& plan, const std::string& run, const std::vector<std::string>& benches,
                                   std::ostream& progress, bool recheck = false, const std::string& chain = "",
                                   const std::vector<std::string>& checks_from = {});

// The suite table from the suite folder (references, suite.json and the locked files).
Json suite_status(const SuitePlan& plan);
std::string format_suite_status(const Json& status);

}  // namespace vxsynth::refine

namespace vxsynth::refine {

struct LockedRun {
  std::string bench;
  bool passed = false;
  std::string detail;  // the check's summary, or why it did not run
  double build_seconds = 0, run_seconds = 0, run_cpu_seconds = 0;
  std::uint64_t thread_instructions = 0;
  // With LockedRunOptions::signature: the timed run's cycles and the file written ("" = none).
  std::uint64_t cycles = 0;
  std::string signature_file;
  std::optional<double> d_cuda;  // D between the Vortex side and the locked CUDA side
};

struct LockedRunOptions {
  std::string work = "build/suite-run";  // build folder
  int jobs = 1;                          // benchmarks at once
  std::vector<std::string> benches;      // empty: all locked
  // Run with the vortex2 timing model and write SUITE/<bench>/vortex-signature.json
  // (refine/vortex_side.h) for each benchmark whose check passed.
  bool signature = false;
  // Run with the vortex2 timing model and write each benchmark's run document (every counter,
  // per core and per region) and Vortex-side signature to <timing_out>/<bench>/ instead: the
  // suite's files stay as they are.
  std::string timing_out;
  double clock_mhz = 200.0;
};

// `make run`: every locked benchmark's Vortex side, built from its committed sources (inputs
// generated from validation.json's seed at the profiled shape) and run on the embedded
// simulator with its check against the CPU reference; `jobs` benchmarks at once.
std::vector<LockedRun> run_locked_suite(const SuitePlan& plan, const LockedRunOptions& options, std::ostream& progress);

}  // namespace vxsynth::refine
