// vxsynth suite: the benchmark suite as a whole (docs/suite.md).
//   suite plan   SUITE [--json]                 which references are benchmarks (merging those within noise)
//   suite refine SUITE --out RUN [--resume] [--workers N] [--bench B ...] [refine options]
//                [--slurm [--partition P] [--time T] [--gpus-per-task N] ...]   one array task per chain
//   suite task   RUN [--index I]                what one Slurm array task runs (its chain's refine, resumed)
//   suite collect SUITE --run RUN               after the tasks: lock the finished chains, write the table
//   suite lock   SUITE --run RUN [--bench B ...] each chain's best pair with both checks passed, into SUITE
//                [--bench B --chain C]          B from chain C of the run (a chain named by hand)
//                [--checks-from DIR ...]        candidate checks of reused evaluations from earlier runs
//   suite status SUITE [--json] [--run RUN]     the suite table, or a run's chains (state, revisions, best D)
//   suite effort SUITE --runs DIR [--json]     what each benchmark cost over every committed run (effort.json)
//   suite run    SUITE [--jobs N] [--bench B ...] [--signature] [--timing-out DIR] every locked Vortex benchmark
//                on the embedded simulator; --signature: timed, writing each one's Vortex-side signature into
//                the suite; --timing-out: timed, its run and signature into DIR
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "cli/command.h"
#include "common/error.h"
#include "common/json_io.h"
#include "gpu/device_probe.h"
#include "refine/platform_check.h"
#include "refine/suite.h"
#include "refine/suite_effort.h"
#include "refine/suite_run.h"
#include "refine/suite_run_cluster.h"
#include "refine/vortex_side.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

struct SuiteOptions {
  std::string suite, out, run, work, runs, chain, timing_out;
  double merge_below = refine::kReferenceNoiseD;
  std::string plan_scope = "kernel";
  bool json = false, resume = false, recheck = false, signature = false;
  double clock_mhz = 200.0;
  int workers = 0, jobs = 0;
  std::vector<std::string> benches, starts, replay, known, checks_from;
  // Passed through to every worker's `vxsynth refine`.
  std::string budget, retention, sim_check, scope;
  int width = 0, pair_after = 0;
  int multi_start = 1;
  bool profile_every_kernel = false;
  double pace = 0;
  std::uint64_t seed = 0;
  // --slurm: one array task per chain (docs/cluster.md).
  bool slurm = false, no_collect = false;
  refine::SlurmOptions sl;
  int index = -1;
};

std::string self_executable() { return fs::read_symlink("/proc/self/exe").string(); }

int run_plan(const SuiteOptions& o) {
  const auto plan = refine::plan_suite(o.suite, o.merge_below, {}, signature::scope_from_key(o.plan_scope, "", "--scope"));
  if (o.json) {
    std::cout << dump_json(plan.to_json()) << "\n";
    return kExitOk;
  }
  std::cout << plan.benchmarks.size() << " benchmark(s) in " << plan.dir << " (references within D " << plan.merge_below
            << " of each other at " << signature::scope_key(plan.scope)
            << " scope, same workload and operator, are one benchmark)\n";
  for (const auto& b : plan.benchmarks) {
    std::cout << "  " << b.name << "  share " << b.share << "  nearest other reference " << b.nearest << " (D " << b.nearest_d
              << ")\n";
    for (std::size_t i = 1; i < b.serves.size(); ++i) {
      std::cout << "    serves also " << b.serves[i].folder << " (" << b.serves[i].shape << ", share " << b.serves[i].share
                << ")\n";
    }
    if (b.serves.size() > 1) std::cout << "    largest D to a merged reference " << b.merge_d << "\n";
  }
  return kExitOk;
}

// The platform suite a `suite refine` works on: on a GPU, the one captured on this GPU (SUITE
// may be the folder above the platform suites); a replay or a cluster submission has no GPU to
// ask, so SUITE must be one platform suite.
std::string suite_to_refine(const SuiteOptions& o) {
  if (o.replay.empty() && !o.slurm) {
    if (const gpu::DeviceProbe probe = gpu::probe_cuda_device(); probe.present) {
      const std::string dir = refine::suite_for_gpu(o.suite, probe.detail);
      std::cout << "suite: " << dir << " (this machine's GPU: " << probe.detail << ")\n";
      return dir;
    }
  }
  const auto suites = refine::platform_suites(o.suite);
  if (suites.size() > 1) {
    std::string names;
    for (const auto& s : suites) names += (names.empty() ? "" : ", ") + s.dir + " (" + signature::describe(s.platform) + ")";
    throw InputError(o.suite, "", "holds a suite per platform (" + names + "): name the one to refine");
  }
  return suites.empty() ? o.suite : suites.front().dir;
}

int run_refine_suite(SuiteOptions o) {
  o.suite = suite_to_refine(o);
  const auto plan = refine::plan_suite(o.suite, o.merge_below);
  refine::SuiteRefineOptions ro;
  ro.out = o.out;
  ro.resume = o.resume;
  ro.workers = o.workers;
  ro.only = o.benches;
  ro.multi_start = o.multi_start;
  ro.self = self_executable();
  ro.replay = !o.replay.empty();
  for (const auto& s : o.starts) {
    const auto eq = s.find('=');
    if (eq == std::string::npos) throw InputError("--start", s, "expected BENCH=DESIGN.json");
    ro.starts[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& r : o.replay) ro.refine_args.insert(ro.refine_args.end(), {"--replay", r});
  if (!o.budget.empty()) ro.refine_args.insert(ro.refine_args.end(), {"--budget", o.budget});
  if (!o.retention.empty()) ro.refine_args.insert(ro.refine_args.end(), {"--retention", o.retention});
  if (!o.sim_check.empty()) ro.refine_args.insert(ro.refine_args.end(), {"--sim-check", o.sim_check});
  if (!o.scope.empty()) ro.refine_args.insert(ro.refine_args.end(), {"--scope", o.scope});
  if (o.width > 0) ro.refine_args.insert(ro.refine_args.end(), {"--width", std::to_string(o.width)});
  if (o.pair_after > 0) ro.refine_args.insert(ro.refine_args.end(), {"--pair-after", std::to_string(o.pair_after)});
  if (o.seed > 0) ro.refine_args.insert(ro.refine_args.end(), {"--seed", std::to_string(o.seed)});
  if (o.profile_every_kernel) ro.refine_args.push_back("--profile-every-kernel");
  // Absolute: the workers run in their own folders.
  for (const auto& k : o.known) ro.refine_args.insert(ro.refine_args.end(), {"--known", std::filesystem::absolute(k).string()});
  if (o.pace > 0) ro.refine_args.insert(ro.refine_args.end(), {"--replay-pace", std::to_string(o.pace)});
  if (o.slurm) {
    if (o.workers > 0) throw InputError("--workers", std::to_string(o.workers), "not with --slurm (one array task per chain)");
    refine::SlurmOptions sl = o.sl;
    sl.suite = o.suite;
    sl.collect = !o.no_collect;
    const auto s = refine::submit_suite_slurm(plan, ro, sl, std::cout);
    if (!s.array_job.empty()) {
      std::cout << "watch it: vxsynth suite status " << o.suite << " --run " << o.out << "\n";
      if (s.collect_job.empty()) std::cout << "then: vxsynth suite collect " << o.suite << " --run " << o.out << "\n";
    }
    return kExitOk;
  }
  const auto workers = refine::refine_suite(plan, ro, std::cout);
  int failed = 0;
  for (const auto& w : workers) failed += w.exit_code != 0;
  std::cout << workers.size() << " worker(s), " << failed << " failed; records: " << o.out
            << "/worker-<i>/<benchmark>/revisions.jsonl; lock the best pairs with `vxsynth suite lock " << o.suite
            << " --run " << o.out << "`\n";
  return failed == 0 ? kExitOk : kExitWorkFailed;
}

int run_lock(const SuiteOptions& o) {
  if (o.run.empty()) throw InputError("--run", "", "required (a `suite refine` RUN folder or a `refine` OUT folder)");
  const auto plan = refine::plan_suite(o.suite, o.merge_below);
  const auto results = refine::lock_suite(plan, o.run, o.benches, std::cout, o.recheck, o.chain, o.checks_from);
  // The plan travels with the locked files: status and run read the merges from it.
  write_json_file((fs::path(o.suite) / "suite.json").string(), plan.to_json());
  int locked = 0;
  for (const auto& r : results) {
    if (r.locked) {
      ++locked;
    } else {
      std::cout << r.bench << ": not locked: " << r.why << "\n";
    }
  }
  std::cout << locked << " of " << results.size() << " benchmark(s) locked into " << o.suite << "\n";
  return kExitOk;
}

// After the array job (or a local run): lock every chain whose task finished, then the table.
int run_collect(const SuiteOptions& o) {
  const Json run_status = refine::suite_run_status(o.run);
  const auto plan = refine::plan_suite(o.suite, o.merge_below);
  std::vector<std::string> done, unfinished;
  for (const auto& r : run_status["rows"]) {
    (r["state"] == "done" ? done : unfinished).push_back(r["chain"].get<std::string>());
  }
  Json collected{{"schema", schema_id("suite-collect", 1)}, {"suite", o.suite}, {"locked", Json::array()},
                 {"not_locked", Json::array()}, {"unfinished", unfinished}};
  if (!done.empty()) {
    for (const auto& r : refine::lock_suite(plan, o.run, done, std::cout, false)) {
      if (r.locked) {
        collected["locked"].push_back({{"benchmark", r.bench}, {"revision", r.revision}, {"d", r.d}});
      } else {
        collected["not_locked"].push_back({{"benchmark", r.bench}, {"why", r.why}});
        std::cout << r.bench << ": not locked: " << r.why << "\n";
      }
    }
    write_json_file((fs::path(o.suite) / "suite.json").string(), plan.to_json());
  }
  for (const auto& u : unfinished) std::cout << u << ": not locked: its task has not finished\n";
  const std::string table = refine::format_suite_status(refine::suite_status(plan));
  {
    std::ofstream f(fs::path(o.run) / "suite-status.txt");
    f << table;
  }
  write_json_file((fs::path(o.run) / "collect.json").string(), collected);
  std::cout << collected["locked"].size() << " of " << run_status["rows"].size() << " chain(s) locked into " << o.suite
            << (unfinished.empty() ? "" : "; " + std::to_string(unfinished.size()) + " unfinished (resume: vxsynth suite refine ... --resume)")
            << "\n\n"
            << table << "\n"
            << refine::format_suite_run_status(refine::suite_run_status(o.run));
  return unfinished.empty() ? kExitOk : kExitWorkFailed;
}

int run_task(const SuiteOptions& o) {
  int index = o.index;
  if (index < 0) {
    const char* env = std::getenv("SLURM_ARRAY_TASK_ID");
    if (env == nullptr) throw InputError("--index", "", "required outside a Slurm array task (SLURM_ARRAY_TASK_ID is not set)");
    index = std::atoi(env);
  }
  return refine::run_suite_task(o.run, index, std::cout);
}

int run_status(const SuiteOptions& o) {
  if (!o.run.empty()) {
    const Json status = refine::suite_run_status(o.run);
    std::cout << (o.json ? dump_json(status) + "\n" : refine::format_suite_run_status(status));
    return kExitOk;
  }
  const auto plan = refine::plan_suite(o.suite, o.merge_below);
  const Json status = refine::suite_status(plan);
  if (o.json) {
    std::cout << dump_json(status) << "\n";
  } else {
    std::cout << refine::format_suite_status(status);
  }
  return kExitOk;
}

int run_effort(const SuiteOptions& o) {
  const auto plan = refine::plan_suite(o.suite, o.merge_below);
  const Json effort = refine::suite_effort(plan, o.runs);
  const auto written = refine::write_suite_effort(plan, effort);
  if (o.json) {
    std::cout << dump_json(effort) << "\n";
    return kExitOk;
  }
  std::cout << effort["runs"].get<std::size_t>() << " run(s) in " << o.runs << "\n";
  for (const auto& [name, e] : effort["benchmarks"].items()) {
    std::cout << "  " << name << ": " << e["designs"].get<std::size_t>() << " design(s) tried, " << e["retained"].get<std::size_t>()
              << " retained, " << e["chains"].get<std::size_t>() << " chain(s) in " << e["runs"].size() << " run(s), "
              << static_cast<long>(e["device_seconds"].get<double>() + 0.5) << " device s\n";
  }
  if (!effort["unattributed_chains"].empty()) {
    std::cout << effort["unattributed_chains"].size() << " chain(s) belong to no benchmark of " << o.suite << ":";
    for (const auto& c : effort["unattributed_chains"]) std::cout << " " << c.get<std::string>();
    std::cout << "\n";
  }
  std::cout << written.size() << " effort.json file(s) written (locked benchmarks); `vxsynth suite status` shows them\n";
  return kExitOk;
}

int run_locked(const SuiteOptions& o) {
  const auto plan = refine::plan_suite(o.suite, o.merge_below);
  refine::LockedRunOptions lo;
  if (!o.work.empty()) lo.work = o.work;
  lo.jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  lo.benches = o.benches;
  lo.signature = o.signature;
  lo.timing_out = o.timing_out;
  if (!(o.clock_mhz > 0)) throw InputError("--clock-mhz", std::to_string(o.clock_mhz), "expected a clock above 0 MHz");
  lo.clock_mhz = o.clock_mhz;
  const auto results = refine::run_locked_suite(plan, lo, std::cout);
  int ran = 0, failed = 0, written = 0;
  double build = 0, run = 0;
  for (const auto& r : results) {
    if (r.detail == "not locked") continue;
    ++ran;
    failed += !r.passed;
    written += !r.signature_file.empty();
    build += r.build_seconds;
    run += r.run_seconds;
  }
  const bool timed = o.signature || !o.timing_out.empty();
  std::cout << ran << " locked benchmark(s) run on the embedded simulator" << (timed ? " with the vortex2 timing model" : "")
            << ", " << failed << " failed; " << build << " s building, " << run << " s simulating (summed over " << lo.jobs
            << " parallel job(s))\n";
  if (o.signature) {
    std::cout << written << " Vortex-side signature(s) written (" << refine::kVortexSignatureFile
              << " in each benchmark's folder; `vxsynth suite status` shows D to the CUDA side)\n";
  }
  if (!o.timing_out.empty()) {
    std::cout << "timed runs in " << o.timing_out << "/<bench>/: vxsim-run.json (every counter, per core and per "
              << "vx_spawn_threads region) and " << refine::kVortexSignatureFile << "\n";
  }
  if (ran == 0) std::cout << "no benchmark is locked yet: `vxsynth suite refine` then `vxsynth suite lock` (docs/suite.md)\n";
  return failed == 0 ? kExitOk : kExitWorkFailed;
}

const CommandRegistrar reg(
    "suite", "the benchmark suite: plan (merge references within noise), refine every chain, lock the best pairs, "
             "status table, run the locked Vortex benchmarks",
    65, [](CLI::App& sub) -> Runner {
      sub.require_subcommand(1);
      auto o = std::make_shared<SuiteOptions>();
      auto common = [o](CLI::App* c) {
        c->add_option("SUITE", o->suite, "suite folder of references, e.g. suite/vx-robotics/h200")->required();
        c->add_option("--merge-below", o->merge_below,
                      "references of one workload and operator closer than this D are one benchmark")
            ->capture_default_str();
      };
      CLI::App* plan = sub.add_subcommand("plan", "which references are benchmarks, and the D to each one's nearest neighbour");
      common(plan);
      plan->add_flag("--json", o->json, "print vxsynth.suite-plan/1");
      plan->add_option("--scope", o->plan_scope,
                       "the D references are merged by: kernel (their hot kernels, the plan the locks were made on; the "
                       "default) or operator (their whole calls: two hot kernels of one call are one benchmark)")
          ->check(CLI::IsMember({"operator", "kernel"}));

      CLI::App* refine = sub.add_subcommand(
          "refine", "refine every benchmark's chain in one run: one `vxsynth refine` worker per GPU, resumable");
      common(refine);
      refine->add_option("--out", o->out, "run folder (suite-run.json, worker-<i>/, worker-<i>.runN.log)")->required();
      refine->add_flag("--resume", o->resume, "continue the run in --out (each worker resumes its chains)");
      refine->add_option("--workers", o->workers, "workers (default: one per visible GPU; replay: 1)");
      refine->add_option("--bench", o->benches, "refine only these benchmarks (repeatable)");
      refine->add_option("--start", o->starts, "BENCH=DESIGN.json: a start other than the seed (repeatable; the others start from their seed)");
      refine->add_option("--multi-start", o->multi_start,
                         "chains per benchmark (default 1): the first from its start, the others (BENCH.start2, ...) from "
                         "designs three random moves away from it; `suite lock` locks the best checked revision of any")
          ->check(CLI::Range(1, 16));
      refine->add_option("--budget", o->budget, "per worker: revisions=N (per chain), device=SECONDS, rounds=N");
      refine->add_option("--retention", o->retention, "averaged | single | screened (see vxsynth refine)");
      refine->add_option("--width", o->width, "proposals per chain per round");
      refine->add_option("--pair-after", o->pair_after, "reverted single moves before two are combined");
      refine->add_option("--known", o->known,
                         "an earlier run's evaluation store (RUN/worker-N/evaluations, repeatable): every worker takes over "
                         "its evaluations with a passed source check instead of profiling those candidates again");
      refine->add_option("--scope", o->scope,
                         "what D is taken at: operator (every kernel of a candidate's launch against the reference's call; "
                         "the default) or kernel (the longest kernel, the paper's; stores made before operator scope replay "
                         "only at this scope)")
          ->check(CLI::IsMember({"operator", "kernel"}));
      refine->add_flag("--profile-every-kernel", o->profile_every_kernel,
                       "GPU, --scope kernel: replay every kernel of a profiled launch, auxiliary passes included (default "
                       "there: each candidate's main kernel; operator scope profiles every kernel)");
      refine->add_option("--seed", o->seed, "input seed of the checks (0 = fresh)");
      refine->add_option("--replay", o->replay, "answer from evaluation stores instead of the GPU (tests)");
      refine->add_option("--sim-check", o->sim_check, "replay: run | skip the candidate check");
      refine->add_option("--replay-pace", o->pace, "replay: seconds per evaluation (to watch a run, or interrupt it in tests)");
      refine->add_flag("--slurm", o->slurm, "submit one Slurm array job, a task per chain, and a collect job after it (docs/cluster.md)");
      refine->add_option("--partition", o->sl.partition, "--slurm: the partition of the GPU nodes");
      refine->add_option("--time", o->sl.time, "--slurm: each task's time limit (sbatch --time); a task requeues itself before it");
      refine->add_option("--gpus-per-task", o->sl.gpus_per_task, "--slurm: GPUs per task (default 1; 0 with --replay)");
      refine->add_option("--cpus-per-task", o->sl.cpus_per_task, "--slurm: CPUs per task (default: the cluster's)");
      refine->add_option("--account", o->sl.account, "--slurm: the account to charge");
      refine->add_option("--max-running", o->sl.max_running, "--slurm: at most this many tasks at once");
      refine->add_option("--requeue-before", o->sl.signal_seconds,
                         "--slurm: seconds before --time at which a task requeues itself (0: never)")
          ->capture_default_str();
      refine->add_option("--sbatch", o->sl.sbatch_args, "--slurm: a further sbatch option for the tasks, e.g. --sbatch=--qos=high (repeatable)");
      refine->add_flag("--no-collect", o->no_collect, "--slurm: do not submit the collect job (run `vxsynth suite collect` yourself)");

      CLI::App* task = sub.add_subcommand("task", "what one Slurm array task runs: its chain's `vxsynth refine`, resumed from its records");
      task->add_option("RUN", o->run, "the run folder of `suite refine --slurm`")->required();
      task->add_option("--index", o->index, "the task (default: $SLURM_ARRAY_TASK_ID)");

      CLI::App* collect = sub.add_subcommand(
          "collect", "after a run's tasks: lock the finished chains' best checked pairs into SUITE and write the suite table");
      common(collect);
      collect->add_option("--run", o->run, "the suite refine RUN folder")->required();

      CLI::App* lock = sub.add_subcommand(
          "lock", "lock each chain's best revision whose source and candidate checks passed into the suite folder");
      common(lock);
      lock->add_option("--run", o->run, "the suite refine RUN folder (or one refine OUT folder)")->required();
      lock->add_option("--bench", o->benches, "lock only these benchmarks (repeatable)");
      lock->add_option("--chain", o->chain,
                       "lock the one --bench from this chain of the run (a chain named by hand, `vxsynth refine --name`) "
                       "instead of the chain named after it; its D is checked against the benchmark's reference");
      lock->add_flag("--recheck", o->recheck,
                     "run the candidate checks again though recorded (after a generator change; needs the CUDA outputs)");
      lock->add_option("--checks-from", o->checks_from,
                       "folders (earlier runs, e.g. suite/vx-robotics/h200-runs) searched for the passed candidate check of a "
                       "revision whose CUDA output this run did not keep (an evaluation reused with --known): the check counts "
                       "when its record has the same CUDA digest and it ran today's Vortex sources (repeatable)");

      CLI::App* status = sub.add_subcommand("status", "the suite table: shares, checks, seed and final D per benchmark");
      common(status);
      status->add_flag("--json", o->json, "print vxsynth.suite-status/1 (with --run: vxsynth.suite-run-status/1)");
      status->add_option("--run", o->run, "a suite refine RUN folder, running or finished: per chain its state, revisions, best D, elapsed");

      CLI::App* effort = sub.add_subcommand(
          "effort", "what each benchmark cost over every committed run: designs tried, retained, device seconds (SUITE/<bench>/effort.json)");
      common(effort);
      effort->add_option("--runs", o->runs, "the folder of committed runs, e.g. suite/vx-robotics/h200-runs")->required();
      effort->add_flag("--json", o->json, "print vxsynth.suite-effort/1");

      CLI::App* run = sub.add_subcommand(
          "run", "build every locked Vortex benchmark and run it at its profiled shape on the embedded simulator, checked");
      common(run);
      run->add_option("--jobs", o->jobs, "benchmarks at once (default: all cores)");
      run->add_option("--work", o->work, "build folder (default build/suite-run)");
      run->add_option("--bench", o->benches, "run only these benchmarks (repeatable)");
      run->add_flag("--signature", o->signature,
                    "run with the vortex2 timing model and write each benchmark's Vortex-side signature to "
                    "SUITE/<bench>/vortex-signature.json (docs/suite.md)");
      run->add_option("--timing-out", o->timing_out,
                      "run with the vortex2 timing model and write each benchmark's run (every counter, per core and per "
                      "region: vxsim-run.json) and Vortex-side signature to DIR/<bench>/, leaving the suite's files alone");
      run->add_option("--clock-mhz", o->clock_mhz,
                      "with --signature or --timing-out: the Vortex core clock for DRAM bandwidth and duration (default 200)");

      sub.footer("Exit codes: 0 success, 1 the work failed (a worker, a benchmark's check), 2 bad usage or bad input.");
      return [o, plan, refine, task, collect, lock, status, effort, run]() -> int {
        if (plan->parsed()) return run_plan(*o);
        if (refine->parsed()) return run_refine_suite(*o);
        if (task->parsed()) return run_task(*o);
        if (collect->parsed()) return run_collect(*o);
        if (lock->parsed()) return run_lock(*o);
        if (status->parsed()) return run_status(*o);
        if (effort->parsed()) return run_effort(*o);
        if (run->parsed()) return run_locked(*o);
        return kExitBadInput;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
