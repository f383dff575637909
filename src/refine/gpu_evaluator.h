// The GPU evaluator (on gpu::driver): one round = one build of every pending candidate + one
// ncu process over the harness (source-output check against the vendor operator on fresh
// seeded inputs, then R profiled launches of each candidate); the candidate check = one harness
// run that writes the CUDA candidate's inputs and output, then the Vortex benchmark on the same
// input bits on the embedded simulator, compared with that output. Each candidate's CUDA output,
// inputs and design are kept under checks_dir/<key>/; on a machine without the Vortex kernel
// toolchain (riscv64-unknown-elf-gcc: the GPU machine has none) the check is "deferred" and
// `vxsynth refine --check-deferred OUT` completes it from those files where the toolchain is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/driver.h"
#include "refine/evaluator.h"

namespace vxsynth::refine {

class GpuEvaluator : public Evaluator {
 public:
  GpuEvaluator(std::string work_dir, std::string checks_dir, int repeats, gpu::DriverOptions driver);
  std::string name() const override { return "gpu"; }
  bool available(const Candidate&) const override { return true; }
  std::vector<Evaluation> evaluate(const std::vector<Candidate>& batch) override;
  std::vector<std::pair<CheckOutcome, double>> candidate_check(const std::vector<Candidate>& batch) override;
  // Replay every kernel of a profiled launch, auxiliary passes included (diagnostics; slower).
  void set_profile_every_kernel(bool every) { profile_every_kernel_ = every; }

 private:
  // Writes the .cu under a name unique to the candidate and each chain's op file; returns the
  // sources and sets op_names (one per candidate) and op_files.
  void stage(const std::vector<Candidate>& batch, const std::string& dir, std::vector<std::string>& sources,
             std::vector<std::string>& op_files, std::vector<std::string>& op_names);
  std::string work_dir_, checks_dir_;
  int repeats_;
  gpu::DriverOptions driver_;
  int round_ = 0;
  bool profile_every_kernel_ = false;
};

// The source check of one candidate on its op from a job's checks (the warm-up and every
// profiled launch are checked): the first check that did not pass decides, else the last
// passing one; nullopt when the job holds no check of that pair.
std::optional<CheckOutcome> source_check_of(const std::vector<gpu::CheckRecord>& checks, const std::string& candidate,
                                            const std::string& op);

// The candidates of a batch grouped by the number of profiles they ask for (one profile job
// takes one repeat count), in the order each count first appears; indices into the batch, each
// group in batch order.
std::vector<std::vector<std::size_t>> group_by_repeats(const std::vector<Candidate>& batch);

// The kernels a profile job of this batch replays (gpu::ProfileRequest::only_kernels): each
// generated candidate's main kernel (codegen::main_kernel_name), since D compares only that
// one with the vendor kernel; empty (every kernel) when a candidate's CUDA source came from
// elsewhere (an external generator names its kernels as it likes).
std::vector<std::string> kernels_to_profile(const std::vector<Candidate>& batch);

// True when the Vortex kernel toolchain is on PATH (candidate checks can run here).
bool vortex_toolchain_present();

// The candidate check from a folder the GPU evaluator kept (check.json, design.json, the input
// tensors, y_candidate.tensor, kernel.cpp when the Vortex kernel is not the design's own).
// sha256 of a tensor file's data bytes (after its header); "" when it is not one.
std::string tensor_data_sha256(const std::string& path);
std::pair<CheckOutcome, double> check_saved(const std::string& saved_dir, const std::string& work_dir);

}  // namespace vxsynth::refine
