// The replay evaluator: answers from a store of recorded evaluations (what a GPU run wrote
// under OUT/evaluations, or what `vxsynth refine --import-profile` made of a `vxsynth gpu
// profile` folder), so the whole loop runs without a GPU.
//
// The candidate check comes from the store when it was recorded there. Otherwise (the store
// holds no CUDA output to compare with), SimCheck::run builds the Vortex benchmark and runs it on
// the embedded simulator against the CPU reference on the same seeded inputs, and the outcome
// says so ("against": "cpu-reference"); SimCheck::skip records the check as skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "refine/evaluator.h"

namespace vxsynth::refine {

enum class SimCheck { run, skip };

class ReplayEvaluator : public Evaluator {
 public:
  // Several stores: the first that holds a key answers.
  ReplayEvaluator(const std::vector<std::string>& store_dirs, std::string work_dir, SimCheck sim, double pace_seconds = 0);
  std::string name() const override { return "replay"; }
  bool measures_sources() const override { return false; }
  bool available(const Candidate& c) const override;
  std::vector<Evaluation> evaluate(const std::vector<Candidate>& batch) override;
  std::vector<std::pair<CheckOutcome, double>> candidate_check(const std::vector<Candidate>& batch) override;

 private:
  std::optional<Evaluation> find(const std::string& key) const;
  std::vector<EvaluationStore> stores_;
  std::string work_dir_;
  SimCheck sim_;
  double pace_seconds_;  // sleep per evaluated candidate (to watch progress, or to interrupt in tests)
};

// The candidate check on the embedded simulator: the Vortex benchmark of `c` (generated from
// its design, or c.vortex_dir for external sources) against `expected` (a tensor file: the
// CUDA candidate's output) or, when `expected` is empty, the CPU reference in its data folder.
// Returns the outcome and the simulator seconds (build + run).
std::pair<CheckOutcome, double> simulator_check(const Candidate& c, const std::string& work_dir, std::uint64_t seed,
                                                const std::string& expected, const std::string& against);

// Makes store entries from a `vxsynth gpu profile` folder whose candidates are one-axis sets
// of a parent design (the refine-round2 layout: PROFILE/parent-design.json, candidates named
// AXIS-VALUE or "parent", signatures/<candidate>@<op>.json, result.json, profile-summary.json).
// Returns the keys written.
std::vector<std::string> import_profile(const std::string& profile_dir, const std::string& store_dir);

}  // namespace vxsynth::refine
