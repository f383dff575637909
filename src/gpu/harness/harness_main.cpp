// vxsynth-gpu-harness JOB.json: runs a job written by `vxsynth gpu run|profile` on the GPU
// and writes <out_dir>/result.json. Run mode: for every (op, candidate) pair, fresh seeded
// inputs, the vendor operator and the candidate on them, outputs as tensor files and the
// source-output equivalence report. Profile mode (under ncu): the same checks, then one
// launch per (op, candidate, repeat) on its own stream inside the NVTX range
// "vxsynth/<candidate>@<op>", which ncu's NVTX filter selects and result.json maps back.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "common/error.h"
#include "gpu/job.h"
#include "gpu/problem.h"
#include "gpu/sandbox.h"
#include "harness/cuda_check.h"
#include "harness/cupti_kernels.h"
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

// A loaded candidate; the sandbox is checked again here, right before dlopen.
class Candidate {
 public:
  explicit Candidate(const JobCandidate& c) : info_(c) {
    enforce_sandbox(c.object);
    handle_ = dlopen(c.object.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw WorkError("cannot load candidate " + c.source + " (" + c.object + "): " + dlerror());
    launch_ = reinterpret_cast<vxsynth_candidate_launch_fn>(dlsym(handle_, kLaunchSymbol));
    workspace_ = reinterpret_cast<vxsynth_candidate_workspace_fn>(dlsym(handle_, kWorkspaceSymbol));
    if (!launch_) throw WorkError("candidate " + c.source + " does not export " + kLaunchSymbol);
  }
  ~Candidate() {
    if (handle_) dlclose(handle_);
  }
  Candidate(const Candidate&) = delete;
  Candidate& operator=(const Candidate&) = delete;

  const JobCandidate& info() const { return info_; }
  std::size_t workspace_bytes(const vxsynth_problem& p) const { return workspace_ ? workspace_(&p) : 0; }
  int launch(const vxsynth_problem& p, const vxsynth_buffers& b, cudaStream_t s) const {
    return launch_(&p, &b, reinterpret_cast<vxsynth_stream>(s));
  }

 private:
  JobCandidate info_;
  void* handle_ = nullptr;
  vxsynth_candidate_launch_fn launch_ = nullptr;
  vxsynth_candidate_workspace_fn workspace_ = nullptr;
};

// splitmix64 step: well-spread seeds for each check from the job's seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (1 + a * 1000003ull + b * 1009ull + c);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

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

void poison(const ops::OpSpec& spec, DeviceBuffer& out) { upload(ops::make_poisoned_output(spec), out); }

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

struct CandidateRun {
  int rc = 0;
  double ms = 0;
};

CandidateRun launch_candidate(const Candidate& cand, const OpContext& op, const DeviceInputs& in, DeviceBuffer& out,
                              DeviceBuffer* workspace, cudaStream_t s) {
  poison(op.spec, out);
  vxsynth_buffers b{};
  b.a = in.ptr(0);
  b.b = in.ptr(1);
  b.bias = op.problem.has_bias ? in.ptr(2) : nullptr;
  b.out = out.get();
  if (workspace) {
    VX_CUDA(cudaMemset(workspace->get(), 0xff, workspace->bytes()));
    b.workspace = workspace->get();
    b.workspace_bytes = workspace->bytes();
  }
  cudaEvent_t start, stop;
  VX_CUDA(cudaEventCreate(&start));
  VX_CUDA(cudaEventCreate(&stop));
  VX_CUDA(cudaEventRecord(start, s));
  CandidateRun r;
  r.rc = cand.launch(op.problem, b, s);
  VX_CUDA(cudaEventRecord(stop, s));
  VX_CUDA(cudaGetLastError());
  VX_CUDA(cudaStreamSynchronize(s));
  float ms = 0;
  VX_CUDA(cudaEventElapsedTime(&ms, start, stop));
  r.ms = ms;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return r;
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
  *g_log << "device: " << result.device << "\n";
  VendorHandles handles;
  std::unique_ptr<KernelRecorder> recorder;
  if (job.mode == JobMode::run && job.record_kernels) recorder = std::make_unique<KernelRecorder>();
  cudaStream_t main_stream;
  VX_CUDA(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));

  std::vector<std::unique_ptr<Candidate>> candidates;
  for (const auto& c : job.candidates) candidates.push_back(std::make_unique<Candidate>(c));

  const int repeats = job.mode == JobMode::profile ? job.repeat : 1;
  for (std::size_t oi = 0; oi < job.ops.size(); ++oi) {
    OpContext op;
    op.job_op = job.ops[oi];
    op.spec = ops::read_op_spec(op.job_op.path);
    op.problem = make_problem(op.spec, op.job_op.path);
    op.vendor = std::make_unique<VendorReference>(op.spec, op.problem, handles);
    DeviceBuffer out(ops::make_poisoned_output(op.spec).byte_size());
    DeviceBuffer ref_out(out.bytes());
    std::vector<bool> unsupported(candidates.size(), false);
    bool cpu_checked = false;

    for (int rep = 0; rep < repeats; ++rep) {
      for (std::size_t ci = 0; ci < candidates.size(); ++ci) {
        if (unsupported[ci]) continue;
        const Candidate& cand = *candidates[ci];
        CheckRecord check;
        check.op = op.job_op.name;
        check.candidate = cand.info().name;
        check.seed = derive_seed(job.seed, oi, ci, static_cast<std::uint64_t>(rep));
        const DeviceInputs in(op.spec, check.seed);
        const VendorOutput vendor = vendor_output(op, in, ref_out, main_stream, recorder.get(), result);
        const ops::Tensor& expected = vendor.y;
        const CheckTolerance tolerance = check_tolerance(op);
        if (!cpu_checked && cpu_check_wanted(job, op.spec)) {
          // Checks the vendor path itself (descriptors, transposes, math mode) against ops' CPU reference.
          const ops::Tensor cpu = ops::compute_reference(op.spec, in.host);
          const auto rep_cpu = ops::compare_outputs(cpu, expected, tolerance.tol);
          check.vendor_vs_cpu = rep_cpu.to_json();
          *g_log << "vendor " << op.vendor->library() << " vs CPU reference on " << op.job_op.name << ": "
                 << (rep_cpu.passed() ? "passed" : "FAILED") << "\n";
          if (!rep_cpu.passed()) *g_log << rep_cpu.text() << "\n";
          cpu_checked = true;
        }
        const std::size_t ws_bytes = cand.workspace_bytes(op.problem);
        std::unique_ptr<DeviceBuffer> workspace = ws_bytes ? std::make_unique<DeviceBuffer>(ws_bytes) : nullptr;
        const CandidateRun run = launch_candidate(cand, op, in, out, workspace.get(), main_stream);
        check.launch_ms = run.ms;
        if (run.rc == VXSYNTH_LAUNCH_UNSUPPORTED) {
          check.status = "unsupported";
          check.message = "the candidate declined this problem";
          unsupported[ci] = true;
          *g_log << describe_check(check) << "\n";
          result.checks.push_back(std::move(check));
          continue;
        }
        if (run.rc != VXSYNTH_LAUNCH_OK) {
          check.status = "error";
          check.message = "launch function returned " + std::to_string(run.rc);
          *g_log << describe_check(check) << "\n";
          result.checks.push_back(std::move(check));
          unsupported[ci] = true;
          continue;
        }
        ops::Tensor actual = ops::make_poisoned_output(op.spec);
        download(out, actual);
        const auto report = ops::compare_outputs(expected, actual, tolerance.tol);
        check.equivalence = report.to_json();
        check.equivalence["tolerance"] = tolerance.note;
        check.status = report.passed() ? "passed" : "failed";
        *g_log << "source-output equivalence, " << cand.info().name << " vs " << op.vendor->library() << " on "
               << op.job_op.name << " (seed " << check.seed << "):\n"
               << report.text() << "\n";
        if (job.mode == JobMode::run && job.write_tensors) {
          const fs::path dir = fs::path(job.out_dir) / segment_name(cand.info().name, op.job_op.name);
          fs::create_directories(dir);
          for (const auto& t : in.host) ops::write_tensor_file((dir / (t.name() + ".tensor")).string(), t);
          ops::Tensor ref_copy = expected;
          ref_copy.set_name("y_vendor");
          ops::write_tensor_file((dir / "y_vendor.tensor").string(), ref_copy);
          actual.set_name("y_candidate");
          ops::write_tensor_file((dir / "y_candidate.tensor").string(), actual);
        }
        result.checks.push_back(std::move(check));

        if (job.mode == JobMode::profile) {
          // The profiled launch: its own stream (ncu's "Stream" column maps the rows back).
          cudaStream_t s;
          VX_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
          unsigned long long stream_id = 0;
          VX_CUDA(cudaStreamGetId(s, &stream_id));
          const std::string segment = segment_name(cand.info().name, op.job_op.name);
          poison(op.spec, out);
          vxsynth_buffers b{};
          b.a = in.ptr(0);
          b.b = in.ptr(1);
          b.bias = op.problem.has_bias ? in.ptr(2) : nullptr;
          b.out = out.get();
          if (workspace) {
            b.workspace = workspace->get();
            b.workspace_bytes = workspace->bytes();
          }
          nvtxRangePushA(kProfileRange);
          nvtxRangePushA(segment.c_str());
          const int rc = cand.launch(op.problem, b, s);
          nvtxRangePop();
          nvtxRangePop();
          VX_CUDA(cudaGetLastError());
          VX_CUDA(cudaStreamSynchronize(s));
          VX_CUDA(cudaStreamDestroy(s));
          if (rc != VXSYNTH_LAUNCH_OK) throw WorkError(segment + ": profiled launch returned " + std::to_string(rc));
          result.launches.push_back({segment, op.job_op.name, cand.info().name, rep, stream_id, result.checks.back().seed});
        }
      }
      if (job.mode == JobMode::profile && job.with_reference) {
        const std::uint64_t seed = derive_seed(job.seed, oi, candidates.size(), static_cast<std::uint64_t>(rep));
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
        result.launches.push_back({segment, op.job_op.name, kReferenceName, rep, stream_id, seed});
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
