// The files between `vxsynth gpu ...` and the harness process (vxsynth-gpu-harness):
//   job.json       vxsynth.gpu-job/1      what to run (ops x candidates, seeds, mode)
//   result.json    vxsynth.gpu-result/1   what happened (checks, vendor kernels, launches)
// In profile mode the result's launch list is the manifest that maps ncu's rows (by stream)
// to candidates.
#pragma once

#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "signature/platform.h"

namespace vxsynth::gpu {

enum class JobMode { run, profile };

struct JobOp {
  std::string name;  // short label for ranges and folders (op file stem unless given)
  std::string path;  // vxsynth.op/1 file
};

struct JobCandidate {
  std::string name;    // label (source stem)
  std::string source;  // the .cu (for reports)
  std::string object;  // the built shared object
  // The ops (JobOp names) it runs on; empty: every op of the job. The refinement loop pairs each
  // candidate with its own chain's op: a round's job holds every chain's op, and a generic-K
  // candidate would otherwise be checked and profiled on every op it accepts.
  std::vector<std::string> ops;
  bool runs_on(const std::string& op) const;
};

enum class CpuCheck { automatic, on, off };

struct Job {
  JobMode mode = JobMode::run;
  std::string out_dir;
  std::uint64_t seed = 0;      // inputs of check i use a seed derived from this and i
  int repeat = 1;              // profiled launches per (op, candidate)
  bool with_reference = false; // profile the vendor operator too
  bool write_tensors = true;   // inputs and both outputs as tensor files (run mode)
  CpuCheck cpu_check = CpuCheck::automatic;
  bool record_kernels = true;  // name the vendor kernels with CUPTI (off under compute-sanitizer)
  double cpu_check_max_flops = 4e9;  // "automatic": CPU reference only up to this size
  // The candidate process (docs/gpu.md, "Isolation"): one request (a load or a launch) longer
  // than this kills it; RLIMIT_CPU over its life (0 = none).
  double candidate_timeout_seconds = 120;
  double candidate_cpu_seconds = 3600;
  std::vector<JobOp> ops;
  std::vector<JobCandidate> candidates;

  Json to_json() const;
  static Job from_json(const Json& j, const std::string& file);
};

Job read_job(const std::string& path);
void write_job(const std::string& path, const Job& job);

// The name of a (candidate, op) pair: "<candidate>@<op>"; the vendor operator is "reference".
std::string segment_name(const std::string& candidate, const std::string& op);
inline constexpr const char* kReferenceName = "reference";
// The NVTX range every profiled launch sits in (the ncu filter is "<range>/").
inline constexpr const char* kProfileRange = "vxsynth";

// One profiled launch group: every kernel launched on `stream_id` between the NVTX push and
// pop belongs to `segment`.
struct LaunchRecord {
  std::string segment;
  std::string op;
  std::string candidate;  // kReferenceName for the vendor operator
  int repeat = 0;
  std::uint64_t stream_id = 0;
  std::uint64_t seed = 0;
  std::int64_t pid = 0;  // the process that launched it (candidates: the runner); 0 = unknown
};

struct CheckRecord {
  std::string op;
  std::string candidate;
  std::string status;  // "passed", "failed", "unsupported", "error"
  std::string message;
  std::uint64_t seed = 0;
  Json equivalence;        // ops::EquivalenceReport::to_json() (candidate vs vendor)
  Json vendor_vs_cpu;      // the vendor output vs the CPU reference, when computed
  double launch_ms = 0;    // one launch, CUDA events (not a benchmark: a sanity figure)
  bool profiled = false;   // the check of a profiled launch (its own fresh inputs)
};

struct VendorRecord {
  std::string op;
  std::string library;           // "cuBLASLt", "cuBLAS", "cuDNN"
  std::string math;              // the math mode used, in words
  std::vector<std::string> kernels;  // kernel names CUPTI saw during the call ("" when unknown)
  std::string kernels_note;      // how the names were obtained, or why not
  Json details;
};

struct JobResult {
  std::string device;
  // The GPU and software the job ran on (absent in results made before it was recorded: then
  // what `device` says).
  signature::Platform platform;
  std::vector<CheckRecord> checks;
  std::vector<VendorRecord> vendors;
  std::vector<LaunchRecord> launches;
  // Seconds the harness spent in each phase of the job (profile mode: "inputs", "vendor",
  // "warm_up", "runner_launch" (the candidate in the runner, ncu's replay passes included),
  // "compare"): says where a profiled launch's time goes. Absent in older results.
  std::map<std::string, double> phase_seconds;

  Json to_json() const;
  static JobResult from_json(const Json& j, const std::string& file);
};

JobResult read_job_result(const std::string& path);

}  // namespace vxsynth::gpu
