// The GPU part's entry points for callers (the CLI, refine): build + sandbox + check candidates
// against the vendor operator, and profile them with ncu into signatures, D and noise. Each
// call starts one harness process (profile: one ncu process over it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "gpu/candidate_build.h"
#include "gpu/job.h"
#include "gpu/profile_report.h"

namespace vxsynth::gpu {

struct DriverOptions {
  std::string cache_dir;                // "" = default_cache_dir()
  std::vector<std::string> nvcc_flags;  // extra flags for every build
  unsigned jobs = 0;                    // parallel nvcc builds, 0 = all cores
  std::string harness;                  // "" = find_harness()
  std::string ncu;                      // "" = find_ncu()
  std::uint64_t seed = 0;               // 0 = a fresh random seed (recorded in the job)
  double timeout_seconds = 600;         // the harness (or ncu) is killed after this; 0 = no limit
};

// vxsynth-gpu-harness from `given`, $VXSYNTH_GPU_HARNESS, or next to the running executable.
std::string find_harness(const std::string& given = "");
// ncu from `given`, $VXSYNTH_NCU, PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute.
std::string find_ncu(const std::string& given = "");
// compute-sanitizer from PATH or /usr/local/cuda/bin.
std::string find_compute_sanitizer();

// Names for the ops (file stems, made unique) after reading each spec (InputError on a bad one).
std::vector<JobOp> job_ops(const std::vector<std::string>& op_paths);

// Builds every source (cached, in parallel) and checks the sandbox; WorkError listing every
// failed build and every rule broken. `build_log` receives one entry per source. `candidate_ops`
// (empty, or one list per source) becomes each JobCandidate's ops.
std::vector<JobCandidate> build_and_admit(const std::vector<std::string>& sources,
                                          const std::vector<std::vector<std::string>>& candidate_ops,
                                          const DriverOptions& options, Json& build_log);

struct RunRequest {
  std::vector<std::string> ops;         // op spec files
  std::vector<std::string> candidates;  // .cu sources
  // Per candidate (same order), the op file stems it runs on; empty: every (candidate, op) pair.
  std::vector<std::vector<std::string>> candidate_ops;
  std::string out_dir;
  CpuCheck cpu_check = CpuCheck::automatic;
  bool write_tensors = true;
  bool memcheck = false;  // run the harness under compute-sanitizer's memcheck
};

struct RunOutcome {
  Job job;
  JobResult result;
  int harness_exit = 0;
  // Counts by status, and candidates that accepted none of the ops.
  int passed = 0, failed = 0, errors = 0, declined = 0;
  std::vector<std::string> idle_candidates;
  bool memory_errors = false;  // compute-sanitizer reported errors (DIR/memcheck.log)
  std::string memcheck_log;
  bool ok() const {
    return harness_exit == 0 && failed == 0 && errors == 0 && idle_candidates.empty() && !memory_errors;
  }
};

// Requires a CUDA device (WorkError saying none is present otherwise).
RunOutcome run_candidates(const RunRequest& request, const DriverOptions& options);

struct ProfileRequest {
  std::vector<std::string> ops;
  std::vector<std::string> candidates;
  std::vector<std::vector<std::string>> candidate_ops;  // as RunRequest's
  std::string out_dir;
  bool with_reference = true;
  int repeat = 1;
  // Profile only the kernels with these function names (gpu::ncu_command); empty: every kernel
  // in the profiled range. A launch none of whose kernels is profiled fails its check, as any
  // launch ncu saw no kernel of.
  std::vector<std::string> only_kernels;
  // By op name: each candidate's D to the workload reference too (summarize_profile).
  WorkloadReferences workload_references;
  // What the summary's metrics and D are of (a job with only_kernels is summarised at kernel scope).
  signature::Scope scope = signature::Scope::kOperator;
};

struct ProfileOutcome {
  Job job;
  JobResult result;
  ProfileMapping mapping;
  ProfileSummary summary;
  std::map<std::string, std::string> signature_files;  // segment -> DIR/signatures/<segment>.json
  double build_seconds = 0, ncu_seconds = 0, total_seconds = 0;
  std::vector<std::string> ncu_argv;
  int failed_checks = 0;
};

// Writes DIR/{job.json, builds.json, ncu-command.txt, ncu-raw.csv, ncu.log, result.json,
// harness.log, signatures/*.json, profile-summary.json, profile-summary.txt}. Requires a CUDA
// device and ncu. A missing counter is an error naming it.
ProfileOutcome profile_candidates(const ProfileRequest& request, const DriverOptions& options,
                                  const signature::DistanceConfig& distance = {});

}  // namespace vxsynth::gpu
