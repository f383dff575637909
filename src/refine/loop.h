// The refinement loop (docs/refine.md): chains of revisions from a start design, evaluated in
// rounds (every pending candidate of every chain in one batch), retained by the retention
// rule, recorded line by line in OUT/<chain>/revisions.jsonl, resumable after a kill.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "refine/evaluator.h"
#include "refine/retention.h"
#include "refine/strategy.h"
#include "signature/distance.h"
#include "signature/operator_scope.h"

namespace vxsynth::refine {

struct ChainSpec {
  std::string reference;     // reference.json of the workload kernel
  std::string start_design;  // "" = the reference's seed design
  std::string name;          // "" = the reference's folder name
};

struct Budget {
  int revisions = 12;         // attempts per chain after the start
  double device_seconds = 0;  // device time of the whole run (0 = no limit)
  int rounds = 0;             // 0 = no limit
};

struct LoopOptions {
  std::string out_dir;
  bool resume = false;
  Budget budget;
  int width = 4;  // proposals per chain per round
  RetentionRule retention;
  signature::DistanceConfig distance;
  // What D is taken at: every kernel of the candidate's launch against the reference operator
  // (the default), or the longest kernel against the reference's hot kernel (the paper's).
  signature::Scope scope = signature::Scope::kOperator;
  // Evaluation stores of earlier runs (RUN/evaluations): their passed evaluations are copied
  // into this run's store first, so the loop profiles none of those candidates again.
  std::vector<std::string> known;
};

struct ChainResult {
  std::string name;
  std::vector<RevisionRecord> records;
  int best_revision = 0;
  std::optional<double> start_d, best_d;  // none when the start was never scored (rejected)
  std::string stop_reason;
  std::string record_file;  // OUT/<chain>/revisions.jsonl
};

struct LoopResult {
  std::vector<ChainResult> chains;
  // Evaluations made now / answered from OUT/evaluations. `evaluated` counts a screened
  // candidate's confirmation (its further profiles) as an evaluation of its own: the
  // candidates profiled now are evaluated - confirmations.
  int evaluated = 0, reused = 0, confirmations = 0;
  int superseded = 0;  // stored evaluations of another source under the same key, measured again
  double device_seconds = 0, sim_seconds = 0;
  double build_seconds = 0;  // of device_seconds: the candidates' builds (GPU evaluator)
};

// `evaluator` is wrapped in the run's own store (OUT/evaluations). Progress lines go to
// `progress` (may be null).
LoopResult run_refinement(const std::vector<ChainSpec>& chains, std::unique_ptr<Evaluator> evaluator, Strategy& strategy,
                          const LoopOptions& options, std::ostream* progress);

// The final table: each revision, its move, D, delta D, decision.
std::string format_table(const LoopResult& result);

}  // namespace vxsynth::refine
