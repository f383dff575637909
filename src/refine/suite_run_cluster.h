// A suite's chains as separate tasks: on a Slurm cluster, one array task per chain
// (docs/cluster.md), and the attempts of every worker, local or Slurm, kept where `suite status
// --run` reads them.
//
//   submit_suite_slurm   writes RUN/suite-run.json (one worker per chain, each with its
//                        `vxsynth refine` arguments), RUN/slurm/refine.sbatch and collect.sbatch,
//                        then submits one array job and the collect job that depends on it;
//   run_suite_task       what one array task runs (`vxsynth suite task RUN --index I`): its
//                        chain's `vxsynth refine`, with --resume once the chain has a folder, so
//                        a task requeued or preempted mid-chain continues from its records;
//   task attempts        RUN/tasks/worker-<i>.json: each start of a worker (host, pid, Slurm job,
//                        log, end, exit status);
//   suite_run_status     per chain: state, attempts, revisions, best D, elapsed, from the
//                        records, the attempts and (for a Slurm run, when squeue answers) the queue.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "refine/suite.h"
#include "refine/suite_run.h"

namespace vxsynth::refine {

struct SlurmOptions {
  std::string partition, time, account;  // sbatch's --partition, --time, --account ("": the cluster's default)
  int gpus_per_task = -1;                // -1: 1, or 0 with --replay (no GPU needed)
  int cpus_per_task = 0;                 // 0: not asked for
  int max_running = 0;                   // at most this many tasks at once (0: no limit)
  int signal_seconds = 300;              // SIGUSR1 this long before --time: the task requeues itself
  std::vector<std::string> sbatch_args;  // further sbatch options, one per entry ("--qos=high")
  bool collect = true;                   // submit `vxsynth suite collect` to run after the array
  std::string suite;                     // the suite folder the collect step locks into
};

struct SlurmSubmission {
  std::string array_job, collect_job;  // Slurm job ids ("" when not submitted)
  std::string tasks;                   // the --array index list ("" when every chain had finished)
  std::string script;                  // RUN/slurm/refine.sbatch
};

// `vxsynth suite refine ... --slurm`. With options.resume, only the tasks whose chain has not
// finished are submitted again (refused while tasks of the run are still queued or running).
SlurmSubmission submit_suite_slurm(const SuitePlan& plan, const SuiteRefineOptions& options, const SlurmOptions& slurm,
                                   std::ostream& progress);

// `vxsynth suite task RUN --index I`: runs worker I of a Slurm run and returns its exit status.
// Waits (up to `wait_seconds`) while an earlier attempt still holds the chain's record.
int run_suite_task(const std::string& run, int index, std::ostream& progress, double wait_seconds = 120);

// RUN/tasks/worker-<i>.json. begin: a new attempt (an earlier one left open was killed without
// a word: it is marked interrupted); end: its end time and exit status.
void begin_task_attempt(const std::string& run, const SuiteWorker& worker, const std::string& log);
void end_task_attempt(const std::string& run, int index, int exit_code);

// vxsynth.suite-run-status/1: one row per chain.
Json suite_run_status(const std::string& run);
std::string format_suite_run_status(const Json& status);

}  // namespace vxsynth::refine
