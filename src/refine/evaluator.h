// The evaluator interface of the refinement loop, and its two implementations' common
// wrapper. One round hands every pending candidate of every chain to evaluate() at once (the
// GPU evaluator turns that into one build + one ncu process); candidate_check() then runs on
// the candidates that may be retained.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "refine/evaluation.h"

namespace vxsynth::refine {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::string name() const = 0;  // "gpu", "replay"
  // False when this evaluator cannot answer for the candidate (replay: nothing recorded). The
  // built-in strategy proposes only available candidates.
  virtual bool available(const Candidate& c) const = 0;
  // Source-output check + profiles for every candidate, in order. A candidate that fails to
  // build or is rejected by the sandbox comes back with source_check.status "error".
  virtual std::vector<Evaluation> evaluate(const std::vector<Candidate>& batch) = 0;
  // The candidate check of each candidate, in order.
  virtual std::vector<std::pair<CheckOutcome, double>> candidate_check(const std::vector<Candidate>& batch) = 0;
  // Whether an evaluation measures the candidate's source as it is now. A replay answers with
  // what was measured then, for whatever source: its evaluations are reused as they are.
  virtual bool measures_sources() const { return true; }
};

// The run's own store in front of another evaluator: a key already evaluated in this run
// (before a kill, or in an earlier round) is answered from OUT/evaluations and never sent to
// the device again; every new evaluation is stored as soon as the inner evaluator returns it.
// A stored evaluation of another CUDA source of the same design (another generator's text), or
// one whose profiles lack the scope the run compares at (made before operator scope), is moved to
// superseded/ and measured again, when the inner evaluator measures sources.
class CachingEvaluator : public Evaluator {
 public:
  CachingEvaluator(std::unique_ptr<Evaluator> inner, EvaluationStore store,
                   signature::Scope scope = signature::Scope::kKernel);
  std::string name() const override { return inner_->name(); }
  bool measures_sources() const override { return inner_->measures_sources(); }
  bool available(const Candidate& c) const override;
  std::vector<Evaluation> evaluate(const std::vector<Candidate>& batch) override;
  std::vector<std::pair<CheckOutcome, double>> candidate_check(const std::vector<Candidate>& batch) override;
  int reused() const { return reused_; }      // evaluations answered from the store
  int evaluated() const { return evaluated_; }  // evaluations the inner evaluator made
  int superseded() const { return superseded_; }  // stored ones of another source, measured again
  const EvaluationStore& store() const { return store_; }

 private:
  // Whether `e` answers for `c` in this run: the same source, profiled at the run's scope.
  bool answers(const Evaluation& e, const Candidate& c) const;
  std::unique_ptr<Evaluator> inner_;
  EvaluationStore store_;
  signature::Scope scope_;
  int reused_ = 0, evaluated_ = 0, superseded_ = 0;
};

}  // namespace vxsynth::refine
