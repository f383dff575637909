// The GPU evaluator (on gpu::driver): one round = one build of every pending candidate + one
// ncu process over the harness (source-output check against the vendor operator on fresh
// seeded inputs, then R profiled launches of each candidate); the candidate check = one harness
// run that writes the CUDA candidate's inputs and output, then the Vortex benchmark on the same
// input bits on the embedded simulator, compared with that output.
#pragma once

#include <string>

#include "gpu/driver.h"
#include "refine/evaluator.h"

namespace vxsynth::refine {

class GpuEvaluator : public Evaluator {
 public:
  GpuEvaluator(std::string work_dir, int repeats, gpu::DriverOptions driver);
  std::string name() const override { return "gpu"; }
  bool available(const Candidate&) const override { return true; }
  std::vector<Evaluation> evaluate(const std::vector<Candidate>& batch) override;
  std::vector<std::pair<CheckOutcome, double>> candidate_check(const std::vector<Candidate>& batch) override;

 private:
  // Writes the .cu under a name unique to the candidate and each chain's op file; returns the
  // sources and sets op_names (one per candidate) and op_files.
  void stage(const std::vector<Candidate>& batch, const std::string& dir, std::vector<std::string>& sources,
             std::vector<std::string>& op_files, std::vector<std::string>& op_names);
  std::string work_dir_;
  int repeats_;
  gpu::DriverOptions driver_;
  int round_ = 0;
};

}  // namespace vxsynth::refine
