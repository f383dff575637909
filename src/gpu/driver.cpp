#include "gpu/driver.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/error.h"
#include "gpu/device_probe.h"
#include "gpu/elf_inspect.h"
#include "common/process.h"
#include "gpu/sandbox.h"
#include "ops/op_spec.h"
#include "signature/derive.h"

namespace fs = std::filesystem;

namespace vxsynth::gpu {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::uint64_t seed_or_fresh(std::uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

// One request to the candidate process (a launch, under ncu a profiled one) may take this long
// before the runner is killed and the batch goes on: two minutes, or half the whole job's
// timeout when that is shorter.
double candidate_timeout(const DriverOptions& options) {
  double t = 120;
  if (options.timeout_seconds > 0) t = std::min(t, options.timeout_seconds / 2);
  return std::max(t, 1.0);
}

// RLIMIT_CPU of the candidate process over the whole job: four CPU-seconds per second of the
// job's timeout (the driver's and a profiler's threads count too), at least ten minutes; none
// when the job has no timeout (each request still has one).
double candidate_cpu_limit(const DriverOptions& options) {
  return options.timeout_seconds > 0 ? std::max(600.0, 4 * options.timeout_seconds) : 0.0;
}

}  // namespace

std::string find_harness(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("VXSYNTH_GPU_HARNESS"); env && *env) return env;
  const fs::path next_to_exe = fs::path(executable_dir()) / "vxsynth-gpu-harness";
  if (fs::exists(next_to_exe)) return next_to_exe.string();
#ifndef VXSYNTH_GPU_HARNESS_BUILT
  throw WorkError("vxsynth-gpu-harness was not built: this build found no CUDA toolkit/cuDNN (see the CMake "
                  "configure output)");
#else
  throw WorkError("vxsynth-gpu-harness not found next to " + executable_dir() +
                  " (give --harness or set VXSYNTH_GPU_HARNESS)");
#endif
}

std::string find_ncu(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("VXSYNTH_NCU"); env && *env) return env;
  if (auto p = find_on_path("ncu"); !p.empty()) return p;
  for (const char* p : {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/2025.3.1/ncu"}) {
    if (fs::exists(p)) return p;
  }
  throw WorkError("ncu (Nsight Compute) not found on PATH, in /usr/local/cuda/bin or /opt/nvidia (give --ncu)");
}

std::string find_compute_sanitizer() {
  if (auto p = find_on_path("compute-sanitizer"); !p.empty()) return p;
  if (fs::exists("/usr/local/cuda/bin/compute-sanitizer")) return "/usr/local/cuda/bin/compute-sanitizer";
  throw WorkError("compute-sanitizer not found on PATH or in /usr/local/cuda/bin (needed by --memcheck)");
}

std::vector<JobOp> job_ops(const std::vector<std::string>& paths) {
  std::vector<JobOp> ops;
  std::map<std::string, int> seen;
  for (const auto& path : paths) {
    ops::read_op_spec(path);  // a bad spec fails here, naming file and field, before any build
    std::string name = fs::path(path).stem().string();
    if (seen[name]++ > 0) name.append(1, '-').append(std::to_string(seen[name]));
    ops.push_back({name, fs::absolute(path).string()});
  }
  return ops;
}

std::vector<JobCandidate> build_and_admit(const std::vector<std::string>& sources,
                                          const std::vector<std::vector<std::string>>& candidate_ops,
                                          const DriverOptions& options, Json& build_log) {
  if (!candidate_ops.empty() && candidate_ops.size() != sources.size()) {
    throw WorkError("internal: " + std::to_string(candidate_ops.size()) + " op lists for " + std::to_string(sources.size()) +
                    " candidates");
  }
  BuildOptions bo;
  bo.cache_dir = options.cache_dir;
  bo.extra_flags = options.nvcc_flags;
  const auto results = build_candidates(sources, bo, options.jobs);
  std::vector<JobCandidate> out;
  std::string errors;
  build_log = Json::array();
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    build_log.push_back({{"source", r.source}, {"object", r.shared_object}, {"key", r.key}, {"cache_hit", r.cache_hit},
                         {"seconds", r.seconds}, {"error", r.error}});
    if (!r.error.empty()) {
      errors += r.error + "\n";
      continue;
    }
    const auto verdict = check_sandbox(inspect_elf(r.shared_object));
    if (!verdict.ok()) {
      errors += verdict.describe(r.source);
      continue;
    }
    std::string name = r.name;
    if (seen[name]++ > 0) name.append(1, '-').append(std::to_string(seen[name]));
    out.push_back({name, fs::absolute(r.source).string(), r.shared_object, candidate_ops.empty() ? std::vector<std::string>{} : candidate_ops[i]});
  }
  if (!errors.empty()) throw WorkError(errors);
  return out;
}

RunOutcome run_candidates(const RunRequest& request, const DriverOptions& options) {
  require_cuda_device("vxsynth gpu run");
  const std::string harness = find_harness(options.harness);
  RunOutcome outcome;
  Job& job = outcome.job;
  job.mode = JobMode::run;
  job.ops = job_ops(request.ops);
  fs::create_directories(request.out_dir);
  job.out_dir = fs::absolute(request.out_dir).string();
  job.seed = seed_or_fresh(options.seed);
  job.write_tensors = request.write_tensors;
  job.cpu_check = request.cpu_check;
  job.record_kernels = !request.memcheck;  // CUPTI and the sanitizer do not share a process
  job.candidate_timeout_seconds = candidate_timeout(options);
  job.candidate_cpu_seconds = candidate_cpu_limit(options);
  Json builds;
  job.candidates = build_and_admit(request.candidates, request.candidate_ops, options, builds);
  write_json_file((fs::path(job.out_dir) / "builds.json").string(), builds);
  const std::string job_path = (fs::path(job.out_dir) / "job.json").string();
  write_job(job_path, job);
  std::vector<std::string> argv = {harness, job_path};
  constexpr int kMemcheckExit = 86;
  if (request.memcheck) {
    outcome.memcheck_log = (fs::path(job.out_dir) / "memcheck.log").string();
    // --target-processes all: the candidates run in the runner, a child of the harness.
    argv.insert(argv.begin(), {find_compute_sanitizer(), "--tool", "memcheck", "--target-processes", "all", "--error-exitcode",
                               std::to_string(kMemcheckExit), "--log-file", outcome.memcheck_log});
  }
  ProcessOptions po;
  po.timeout_seconds = options.timeout_seconds;
  const ProcessResult pr = run_process(argv, po);
  if (pr.timed_out) {
    throw WorkError("the harness did not finish within " + std::to_string(static_cast<int>(options.timeout_seconds)) +
                    " s and was killed (a candidate that never returns?); see " + job.out_dir);
  }
  outcome.harness_exit = pr.exit_code;
  if (request.memcheck && outcome.harness_exit == kMemcheckExit) {
    outcome.memory_errors = true;
    outcome.harness_exit = 0;
  }
  const fs::path result_path = fs::path(job.out_dir) / "result.json";
  if (!fs::exists(result_path)) {
    throw WorkError("the harness wrote no result (exit " + std::to_string(outcome.harness_exit) + ")");
  }
  outcome.result = read_job_result(result_path.string());
  std::map<std::string, int> accepted;
  for (const auto& c : job.candidates) accepted[c.name] = 0;
  for (const auto& c : outcome.result.checks) {
    if (c.status == "passed") ++outcome.passed;
    else if (c.status == "failed") ++outcome.failed;
    else if (c.status == "unsupported") ++outcome.declined;
    else ++outcome.errors;
    if (c.status != "unsupported") ++accepted[c.candidate];
  }
  for (const auto& [name, n] : accepted) {
    if (n == 0 && outcome.harness_exit == 0) outcome.idle_candidates.push_back(name);
  }
  return outcome;
}

ProfileOutcome profile_candidates(const ProfileRequest& request, const DriverOptions& options,
                                  const signature::DistanceConfig& distance) {
  require_cuda_device("vxsynth gpu profile");
  const std::string harness = find_harness(options.harness);
  const std::string ncu = find_ncu(options.ncu);
  const auto t0 = Clock::now();
  ProfileOutcome outcome;
  Job& job = outcome.job;
  job.mode = JobMode::profile;
  job.ops = job_ops(request.ops);
  fs::create_directories(request.out_dir);
  const fs::path dir = fs::absolute(request.out_dir);
  job.out_dir = dir.string();
  job.seed = seed_or_fresh(options.seed);
  job.repeat = request.repeat;
  job.with_reference = request.with_reference;
  job.write_tensors = false;
  job.cpu_check = CpuCheck::off;
  job.candidate_timeout_seconds = candidate_timeout(options);
  job.candidate_cpu_seconds = candidate_cpu_limit(options);
  Json builds;
  job.candidates = build_and_admit(request.candidates, request.candidate_ops, options, builds);
  outcome.build_seconds = seconds_since(t0);
  write_json_file((dir / "builds.json").string(), builds);
  const std::string job_path = (dir / "job.json").string();
  write_job(job_path, job);
  outcome.ncu_argv = ncu_command(ncu, harness, job_path, request.only_kernels);
  std::ofstream(dir / "ncu-command.txt") << render_command(outcome.ncu_argv) << "\n";
  const std::string csv = (dir / "ncu-raw.csv").string();
  const auto t1 = Clock::now();
  ProcessOptions po;
  po.stdout_path = csv;
  po.stderr_path = (dir / "ncu.log").string();
  po.timeout_seconds = options.timeout_seconds;
  const auto r = run_process(outcome.ncu_argv, po);
  outcome.ncu_seconds = seconds_since(t1);
  if (r.timed_out) {
    throw WorkError("ncu and the harness did not finish within " +
                    std::to_string(static_cast<int>(options.timeout_seconds)) + " s and were killed; see " +
                    (dir / "ncu.log").string());
  }
  const fs::path result_path = dir / "result.json";
  if (r.exit_code != 0 || !fs::exists(result_path)) {
    throw WorkError("ncu or the harness failed (exit " + std::to_string(r.exit_code) + "); see " +
                    (dir / "ncu.log").string() + " and " + (dir / "harness.log").string());
  }
  outcome.result = read_job_result(result_path.string());
  const auto table = signature::NcuTable::read_file(csv);
  outcome.mapping = map_profile(table, outcome.result.launches, signature::DeriveOptions{});
  outcome.mapping.every_kernel = request.only_kernels.empty();
  // A profiled launch in which ncu saw no kernel answered without the GPU (a copy of an
  // earlier answer, a host computation): its check fails, whatever its output was.
  for (const auto& l : outcome.mapping.kernelless) {
    for (auto& c : outcome.result.checks) {
      if (!c.profiled || c.candidate != l.candidate || c.op != l.op || c.seed != l.seed) continue;
      c.status = "error";
      c.message = "its profiled launch ran no kernel that ncu saw (an answer copied or computed off the GPU); "
                  "a candidate must compute its output on the GPU under the profiler";
      if (!request.only_kernels.empty()) {
        c.message += " (this job profiled only kernels named " + ncu_kernel_filter(request.only_kernels) + ")";
      }
    }
  }
  if (!outcome.mapping.kernelless.empty()) write_json_file(result_path.string(), outcome.result.to_json());
  for (const auto& c : outcome.result.checks) outcome.failed_checks += c.status == "failed" || c.status == "error";
  const fs::path sig_dir = dir / "signatures";
  fs::create_directories(sig_dir);
  std::map<std::string, std::vector<const ProfiledLaunch*>> by_segment;
  for (const auto& l : outcome.mapping.launches) by_segment[l.launch.segment].push_back(&l);
  for (const auto& [segment, launches] : by_segment) {
    signature::SignatureFile file;
    file.source = csv;
    file.platform = outcome.result.platform;
    for (const auto* l : launches) file.kernels.push_back(l->primary());
    Json j = file.to_json();
    j["segment"] = segment;
    j["op"] = launches.front()->launch.op;
    j["candidate"] = launches.front()->launch.candidate;
    j["note"] = "kernels[i] is the longest kernel of repeat i; the launch's other kernels are in other_kernels; "
                "operators[i] is every kernel of repeat i aggregated (operator scope)";
    if (outcome.mapping.every_kernel) {
      Json ops = Json::array();
      for (const auto* l : launches) ops.push_back(l->op.to_json());
      j["operators"] = ops;
    }
    Json others = Json::array();
    for (const auto* l : launches) {
      for (std::size_t k = 1; k < l->kernels.size(); ++k) {
        others.push_back({{"repeat", l->launch.repeat}, {"name", l->kernels[k].name},
                          {"duration_ns", l->kernels[k].duration_ns.value_or(0)}});
      }
    }
    j["other_kernels"] = others;
    const std::string path = (sig_dir / (segment + ".json")).string();
    write_json_file(path, j);
    outcome.signature_files[segment] = path;
  }
  outcome.summary = summarize_profile(outcome.mapping, distance, request.workload_references,
                                      outcome.mapping.every_kernel ? request.scope : signature::Scope::kKernel);
  outcome.total_seconds = seconds_since(t0);
  Json sj = outcome.summary.to_json();
  sj["timing_seconds"] = {{"build_and_sandbox", outcome.build_seconds},
                          {"ncu_with_harness", outcome.ncu_seconds},
                          {"total", outcome.total_seconds}};
  sj["device"] = outcome.result.device;
  sj["seed"] = job.seed;
  sj["ncu_command"] = render_command(outcome.ncu_argv);
  write_json_file((dir / "profile-summary.json").string(), sj);
  std::ofstream(dir / "profile-summary.txt") << outcome.summary.text();
  return outcome;
}

}  // namespace vxsynth::gpu
