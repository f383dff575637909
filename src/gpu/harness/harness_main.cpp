// vxsynth-gpu-harness JOB.json: runs a job written by `vxsynth gpu run|profile` on the GPU
// and writes <out_dir>/result.json. Run mode: for every (op, candidate) pair, fresh seeded
// inputs, the vendor operator and the candidate on them, outputs as tensor files and the
// source-output equivalence report. Profile mode (under ncu): the same checks, then one
// launch per (op, candidate, repeat) on its own stream inside the NVTX range
// "vxsynth/<candidate>@<op>", which ncu's NVTX filter selects and result.json maps back.
//
// The candidates never run in this process: they run in vxsynth-gpu-runner (one contained
// process for the batch, src/gpu/isolation), which gets the inputs and returns the outputs
// through a channel. This process keeps the vendor operator, its output and the comparison;
// every output the runner returns is compared, the profiled launches' included.
#include <cuda_runtime_api.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "common/error.h"
#include "common/process.h"
#include "gpu/isolation/runner_client.h"
#include "gpu/job.h"
#include "gpu/problem.h"
#include "gpu/sandbox.h"
#include "harness/cuda_check.h"
#include "harness/cupti_kernels.h"
#include "harness/platform_probe.h"
#include "harness/vendor_reference.h"
#include "ops/equivalence.h"
#include "ops/inputs.h"
#include "ops/reference.h"
#include "ops/tensor_file.h"

namespace fs = std::filesystem;

namespace vxsynth::gpu {
namespace {

std::ostream* g_log = &std::cout;
bool job_records_kernels = true;

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) VX_CUDA(cudaMalloc(&ptr_, bytes_));
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

void upload(const ops::Tensor& t, DeviceBuffer& d) { VX_CUDA(cudaMemcpy(d.get(), t.data(), t.byte_size(), cudaMemcpyHostToDevice)); }
void download(const DeviceBuffer& d, ops::Tensor& t) { VX_CUDA(cudaMemcpy(t.data(), d.get(), t.byte_size(), cudaMemcpyDeviceToHost)); }

// splitmix64 step: well-spread seeds for each check from the job's seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (1 + a * 1000003ull + b * 1009ull + c);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Adds the seconds since the last lap to a named phase of the job (JobResult::phase_seconds).
class PhaseTimer {
 public:
  explicit PhaseTimer(std::map<std::string, double>& phases) : phases_(phases), last_(Clock::now()) {}
  void lap(const std::string& phase) {
    const auto now = Clock::now();
    phases_[phase] += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::map<std::string, double>& phases_;
  Clock::time_point last_;
};

// Inputs of one check on the device, in ops' argument order (x/a/input, weight/b, bias).
struct DeviceInputs {
  std::vector<ops::Tensor> host;
  std::vector<std::unique_ptr<DeviceBuffer>> device;
  const ops::Tensor* bias = nullptr;

  DeviceInputs(const ops::OpSpec& spec, std::uint64_t seed) : host(ops::generate_inputs(spec, seed)) {
    for (const auto& t : host) {
      device.push_back(std::make_unique<DeviceBuffer>(t.byte_size()));
      upload(t, *device.back());
    }
    if (host.size() > 2) bias = &host[2];
  }
  const void* ptr(std::size_t i) const { return i < device.size() ? device[i]->get() : nullptr; }
};

struct OpContext {
  JobOp job_op;
  ops::OpSpec spec;
  vxsynth_problem problem{};
  std::unique_ptr<VendorReference> vendor;
  bool vendor_named = false;
};


struct VendorOutput {
  ops::Tensor y;
};

// Runs the vendor operator on `in` into `out` and returns the finished host tensor.
VendorOutput vendor_output(OpContext& op, const DeviceInputs& in, DeviceBuffer& out, cudaStream_t s,
                           KernelRecorder* recorder, JobResult& result) {
  upload(op.vendor->initial_output(in.bias), out);
  const bool name_it = recorder && !op.vendor_named;
  if (name_it) recorder->start();
  op.vendor->run(in.ptr(0), in.ptr(1), in.ptr(2), out.get(), s);
  VX_CUDA(cudaGetLastError());
  VX_CUDA(cudaStreamSynchronize(s));
  if (name_it || (!recorder && !op.vendor_named)) {
    VendorRecord rec;
    rec.op = op.job_op.name;
    rec.library = op.vendor->library();
    rec.math = op.vendor->math();
    rec.details = op.vendor->details();
    if (name_it) {
      for (const auto& k : recorder->stop()) rec.kernels.push_back(k.name);
      rec.kernels_note = recorder->note();
      if (!recorder->available()) rec.kernels_note = recorder->note();
    } else {
      rec.kernels_note = job_records_kernels
                             ? "not recorded in profile mode (CUPTI belongs to ncu there): see the profile's kernel names"
                             : "not recorded under compute-sanitizer";
    }
    result.vendors.push_back(std::move(rec));
    op.vendor_named = true;
  }
  VendorOutput v;
  v.y = ops::make_poisoned_output(op.spec);
  download(out, v.y);
  op.vendor->finish_on_host(v.y);
  return v;
}

// The op's source tolerance. ops::tolerance_for already allows for what the vendor path rounds
// that a fused candidate does not (PyTorch's separate activation kernel, cuDNN's bias blend after
// a rounded intermediate; docs/tolerances.md), so the harness adds nothing: one tolerance model.
struct CheckTolerance {
  ops::Tolerance tol;
  Json note;
};

CheckTolerance check_tolerance(const OpContext& op) {
  CheckTolerance t;
  t.tol = ops::tolerance_for(op.spec, ops::Check::source);
  t.note = {{"ops_atol", t.tol.atol}, {"ops_rtol", t.tol.rtol}};
  return t;
}

// One launch of a candidate in the runner on `in`, compared here against `expected`: the
// record says passed, failed (values, or memory written outside the output), error (the
// candidate process failed: the reason) or unsupported.
struct Launched {
  CheckRecord check;
  bool stop_candidate = false;  // declined, errored or its process failed: no more launches
  std::uint64_t stream_id = 0;
  int pid = 0;
};

Launched run_in_runner(isolation::RunnerClient& runner, int ci, const std::string& name, const OpContext& op,
                       const DeviceInputs& in, const ops::Tensor& expected, const ops::Tolerance& tol,
                       const Json& tol_note, std::uint64_t seed, const std::string& segment,
                       ops::Tensor* actual_out, PhaseTimer* timer = nullptr) {
  Launched l;
  CheckRecord& check = l.check;
  check.seed = seed;
  check.op = op.job_op.name;
  check.candidate = name;
  check.profiled = !segment.empty();
  std::string failure;
  const auto ws = runner.workspace_bytes(ci, op.problem, &failure);
  if (!ws) {
    check.status = "error";
    check.message = failure;
    l.stop_candidate = true;
    return l;
  }
  const ops::Tensor poison = ops::make_poisoned_output(op.spec);
  isolation::RunnerLaunch req;
  req.candidate = ci;
  req.problem = op.problem;
  for (const auto& t : in.host) req.inputs.push_back({t.data(), t.byte_size()});
  req.has_bias = op.problem.has_bias != 0;
  req.poison = poison.data();
  req.out_bytes = poison.byte_size();
  req.workspace_bytes = *ws;
  req.segment = segment;
  const isolation::RunnerOutcome r = runner.launch(req);
  if (timer) timer->lap("runner_launch");
  if (!r.ok) {
    check.status = "error";
    check.message = r.failure;
    l.stop_candidate = true;
    return l;
  }
  check.launch_ms = r.ms;
  l.stream_id = r.stream_id;
  l.pid = r.pid;
  if (r.rc == VXSYNTH_LAUNCH_UNSUPPORTED) {
    check.status = "unsupported";
    check.message = "the candidate declined this problem";
    l.stop_candidate = true;
    return l;
  }
  if (r.rc != VXSYNTH_LAUNCH_OK) {
    check.status = "error";
    check.message = "launch function returned " + std::to_string(r.rc);
    l.stop_candidate = true;
    return l;
  }
  ops::Tensor actual = poison;
  std::memcpy(actual.data(), r.out, actual.byte_size());  // out of the shared buffer at once
  const auto report = ops::compare_outputs(expected, actual, tol);
  check.equivalence = report.to_json();
  check.equivalence["tolerance"] = tol_note;
  check.status = report.passed() && r.violations.empty() ? "passed" : "failed";
  for (const auto& v : r.violations) check.message += std::string(check.message.empty() ? "" : "; ") + "the candidate " + v;
  if (check.profiled && !report.passed()) {
    check.message += std::string(check.message.empty() ? "" : "; ") +
                     "the profiled launch's output is wrong (a candidate must compute the same under the profiler)";
  }
  *g_log << "source-output equivalence, " << name << " vs " << op.vendor->library() << " on " << op.job_op.name
         << (check.profiled ? " (profiled launch" : " (") << ", seed " << check.seed << "):\n"
         << report.text() << "\n";
  if (!r.violations.empty()) *g_log << check.message << "\n";
  if (actual_out) *actual_out = std::move(actual);
  if (timer) timer->lap("compare");
  return l;
}

// The warm-up launch of profile mode: zero inputs, the output not compared. It keeps module
// loading and first-launch costs out of the profile and shows a declined problem; what is
// checked is the profiled launch, on fresh inputs the candidate has not seen.
Launched warm_up(isolation::RunnerClient& runner, int ci, const std::string& name, const OpContext& op) {
  Launched l;
  l.check.op = op.job_op.name;
  l.check.candidate = name;
  std::string failure;
  const auto ws = runner.workspace_bytes(ci, op.problem, &failure);
  if (!ws) {
    l.check.status = "error";
    l.check.message = failure;
    l.stop_candidate = true;
    return l;
  }
  std::vector<ops::Tensor> zeros;
  for (const auto& d : op.spec.inputs()) zeros.emplace_back(d.dtype, d.shape, d.name);
  const ops::Tensor poison = ops::make_poisoned_output(op.spec);
  isolation::RunnerLaunch req;
  req.candidate = ci;
  req.problem = op.problem;
  for (const auto& t : zeros) req.inputs.push_back({t.data(), t.byte_size()});
  req.has_bias = op.problem.has_bias != 0;
  req.poison = poison.data();
  req.out_bytes = poison.byte_size();
  req.workspace_bytes = *ws;
  const isolation::RunnerOutcome r = runner.launch(req);
  if (!r.ok) {
    l.check.status = "error";
    l.check.message = r.failure;
    l.stop_candidate = true;
  } else if (r.rc == VXSYNTH_LAUNCH_UNSUPPORTED) {
    l.check.status = "unsupported";
    l.check.message = "the candidate declined this problem";
    l.stop_candidate = true;
  } else if (r.rc != VXSYNTH_LAUNCH_OK) {
    l.check.status = "error";
    l.check.message = "launch function returned " + std::to_string(r.rc);
    l.stop_candidate = true;
  }
  return l;
}

std::string runner_program() {
  if (const char* env = std::getenv("VXSYNTH_GPU_RUNNER"); env && *env) return env;
  return (fs::path(executable_dir()) / "vxsynth-gpu-runner").string();
}

bool cpu_check_wanted(const Job& job, const ops::OpSpec& spec) {
  switch (job.cpu_check) {
    case CpuCheck::on: return true;
    case CpuCheck::off: return false;
    case CpuCheck::automatic: return spec.flops() <= job.cpu_check_max_flops;
  }
  return false;
}

std::string describe_check(const CheckRecord& c) {
  std::string line = c.candidate + " on " + c.op + ": " + c.status;
  if (!c.message.empty()) line += " (" + c.message + ")";
  return line;
}

void run_job(const Job& job, JobResult& result) {
  job_records_kernels = job.record_kernels;
  int device = 0;
  VX_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  VX_CUDA(cudaGetDeviceProperties(&prop, device));
  result.device = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
                  std::to_string(prop.multiProcessorCount) + " SMs)";
  if (prop.major != 9 || prop.minor != 0) {
    throw WorkError("candidates are built for sm_90 but the device is " + result.device);
  }
  result.platform = probe_platform(device);
  *g_log << "device: " << result.device << "; platform " << dump_json(signature::platform_to_json(result.platform), -1) << "\n";
  VendorHandles handles;
  std::unique_ptr<KernelRecorder> recorder;
  if (job.mode == JobMode::run && job.record_kernels) recorder = std::make_unique<KernelRecorder>();
  cudaStream_t main_stream;
  VX_CUDA(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));

  // The link-level check before anything is started (the runner repeats it before dlopen).
  for (const auto& c : job.candidates) enforce_sandbox(c.object);
  isolation::RunnerOptions ro;
  ro.program = runner_program();
  for (const auto& c : job.candidates) ro.objects.push_back(c.object);
  ro.scratch_dir = (fs::path(job.out_dir) / "candidate-runner").string();
  ro.request_timeout_seconds = job.candidate_timeout_seconds;
  ro.cpu_seconds = job.candidate_cpu_seconds;
  ro.log = g_log;
  isolation::RunnerClient runner(ro);

  const int repeats = job.mode == JobMode::profile ? job.repeat : 1;
  for (std::size_t oi = 0; oi < job.ops.size(); ++oi) {
    OpContext op;
    op.job_op = job.ops[oi];
    op.spec = ops::read_op_spec(op.job_op.path);
    op.problem = make_problem(op.spec, op.job_op.path);
    op.vendor = std::make_unique<VendorReference>(op.spec, op.problem, handles);
    DeviceBuffer ref_out(ops::make_poisoned_output(op.spec).byte_size());
    std::vector<bool> stopped(job.candidates.size(), false);
    bool cpu_checked = false;
    const CheckTolerance tolerance = check_tolerance(op);

    for (int rep = 0; rep < repeats; ++rep) {
      for (std::size_t ci = 0; ci < job.candidates.size(); ++ci) {
        if (stopped[ci] || !job.candidates[ci].runs_on(op.job_op.name)) continue;
        const JobCandidate& cand = job.candidates[ci];
        const std::uint64_t seed = derive_seed(job.seed, oi, ci, static_cast<std::uint64_t>(rep));
        if (job.mode == JobMode::profile) {
          // Profile mode: a warm-up launch (zero inputs, not compared) before the candidate's
          // first profiled launch, then the profiled launch on fresh inputs, which is the check.
          // An answer cached from an earlier launch is wrong here, and a candidate that computes
          // differently under the profiler fails its check. Later repeats need no warm-up: the
          // candidate's module is loaded and its first launch is behind it.
          PhaseTimer timer(result.phase_seconds);
          Launched w;
          if (rep == 0) w = warm_up(runner, static_cast<int>(ci), cand.name, op);
          timer.lap("warm_up");
          if (w.stop_candidate) {
            w.check.seed = seed;
            stopped[ci] = true;
            *g_log << describe_check(w.check) << "\n";
            result.checks.push_back(std::move(w.check));
            continue;
          }
          const DeviceInputs pin(op.spec, seed);
          timer.lap("inputs");
          const VendorOutput pvendor = vendor_output(op, pin, ref_out, main_stream, nullptr, result);
          timer.lap("vendor");
          const std::string segment = segment_name(cand.name, op.job_op.name);
          Launched p = run_in_runner(runner, static_cast<int>(ci), cand.name, op, pin, pvendor.y, tolerance.tol,
                                     tolerance.note, seed, segment, nullptr, &timer);
          if (p.stop_candidate) stopped[ci] = true;
          if (p.check.status == "unsupported") {
            p.check.status = "error";
            p.check.message = "declined the profiled launch after accepting the same problem in the warm-up";
          }
          if (p.check.status != "passed") *g_log << describe_check(p.check) << "\n";
          if (p.check.status == "passed" || p.check.status == "failed") {
            result.launches.push_back({segment, op.job_op.name, cand.name, rep, p.stream_id, seed, p.pid});
          }
          result.checks.push_back(std::move(p.check));
          continue;
        }
        const DeviceInputs in(op.spec, seed);
        const VendorOutput vendor = vendor_output(op, in, ref_out, main_stream, recorder.get(), result);
        const ops::Tensor& expected = vendor.y;
        Json vendor_vs_cpu;
        if (!cpu_checked && cpu_check_wanted(job, op.spec)) {
          // Checks the vendor path itself (descriptors, transposes, math mode) against ops' CPU reference.
          const ops::Tensor cpu = ops::compute_reference(op.spec, in.host);
          const auto rep_cpu = ops::compare_outputs(cpu, expected, tolerance.tol);
          vendor_vs_cpu = rep_cpu.to_json();
          *g_log << "vendor " << op.vendor->library() << " vs CPU reference on " << op.job_op.name << ": "
                 << (rep_cpu.passed() ? "passed" : "FAILED") << "\n";
          if (!rep_cpu.passed()) *g_log << rep_cpu.text() << "\n";
          cpu_checked = true;
        }
        ops::Tensor actual;
        Launched l = run_in_runner(runner, static_cast<int>(ci), cand.name, op, in, expected, tolerance.tol,
                                   tolerance.note, seed, "", &actual);
        l.check.vendor_vs_cpu = vendor_vs_cpu;
        if (l.stop_candidate) {
          stopped[ci] = true;
          *g_log << describe_check(l.check) << "\n";
          result.checks.push_back(std::move(l.check));
          continue;
        }
        if (job.mode == JobMode::run && job.write_tensors) {
          const fs::path dir = fs::path(job.out_dir) / segment_name(cand.name, op.job_op.name);
          fs::create_directories(dir);
          for (const auto& t : in.host) ops::write_tensor_file((dir / (t.name() + ".tensor")).string(), t);
          ops::Tensor ref_copy = expected;
          ref_copy.set_name("y_vendor");
          ops::write_tensor_file((dir / "y_vendor.tensor").string(), ref_copy);
          actual.set_name("y_candidate");
          ops::write_tensor_file((dir / "y_candidate.tensor").string(), actual);
        }
        result.checks.push_back(std::move(l.check));
      }
      if (job.mode == JobMode::profile && job.with_reference) {
        const std::uint64_t seed = derive_seed(job.seed, oi, job.candidates.size(), static_cast<std::uint64_t>(rep));
        const DeviceInputs in(op.spec, seed);
        vendor_output(op, in, ref_out, main_stream, nullptr, result);  // warm-up, outside the range
        cudaStream_t s;
        VX_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        unsigned long long stream_id = 0;
        VX_CUDA(cudaStreamGetId(s, &stream_id));
        const std::string segment = segment_name(kReferenceName, op.job_op.name);
        upload(op.vendor->initial_output(in.bias), ref_out);
        nvtxRangePushA(kProfileRange);
        nvtxRangePushA(segment.c_str());
        op.vendor->run(in.ptr(0), in.ptr(1), in.ptr(2), ref_out.get(), s);
        nvtxRangePop();
        nvtxRangePop();
        VX_CUDA(cudaGetLastError());
        VX_CUDA(cudaStreamSynchronize(s));
        VX_CUDA(cudaStreamDestroy(s));
        result.launches.push_back({segment, op.job_op.name, kReferenceName, rep, stream_id, seed,
                                   static_cast<std::int64_t>(getpid())});
      }
    }
  }
  VX_CUDA(cudaStreamDestroy(main_stream));
}

}  // namespace
}  // namespace vxsynth::gpu

int main(int argc, char** argv) {
  using namespace vxsynth;
  using namespace vxsynth::gpu;
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::cerr << "usage: vxsynth-gpu-harness JOB.json\n"
                 "Runs a job written by `vxsynth gpu run` or `vxsynth gpu profile` (docs/gpu.md) and writes\n"
                 "<out_dir>/result.json. Not meant to be called by hand.\n";
    return argc == 2 ? 0 : 2;
  }
  // Not dumpable: no process of this user (a candidate's runner least of all) may read this
  // one's memory through /proc/PID/mem or ptrace; it holds the vendor output and the checker.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  Job job;
  try {
    job = read_job(argv[1]);
  } catch (const InputError& e) {
    std::cerr << "vxsynth-gpu-harness: " << e.what() << "\n";
    return 2;
  }
  fs::create_directories(job.out_dir);
  // Under ncu, stdout carries the CSV: the harness then logs to a file.
  std::unique_ptr<std::ofstream> log_file;
  if (job.mode == JobMode::profile) {
    log_file = std::make_unique<std::ofstream>(fs::path(job.out_dir) / "harness.log");
    g_log = log_file.get();
  }
  JobResult result;
  int rc = 0;
  try {
    run_job(job, result);
  } catch (const InputError& e) {
    *g_log << "error: " << e.what() << "\n";
    std::cerr << "vxsynth-gpu-harness: " << e.what() << "\n";
    rc = 2;
  } catch (const std::exception& e) {
    *g_log << "error: " << e.what() << "\n";
    std::cerr << "vxsynth-gpu-harness: " << e.what() << "\n";
    rc = 1;
  }
  try {
    Json j = result.to_json();
    if (rc != 0) j["error"] = rc;
    write_json_file((fs::path(job.out_dir) / "result.json").string(), j);
  } catch (const std::exception& e) {
    std::cerr << "vxsynth-gpu-harness: cannot write result.json: " << e.what() << "\n";
    return 1;
  }
  g_log->flush();
  return rc;
}
