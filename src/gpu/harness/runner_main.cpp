// vxsynth-gpu-runner: the candidate process (docs/gpu.md, "Isolation"). Started by
// vxsynth-gpu-harness, one per batch of candidates; holds a CUDA context of its own, the
// candidates' shared objects, and nothing else: no vendor library, no reference output, no
// checker. Inputs arrive and outputs leave through the channel (src/gpu/isolation); every launch
// (checked or profiled) is the same code path, and every output goes back to be compared.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "common/error.h"
#include "gpu/isolation/runner.h"
#include "gpu/job.h"
#include "gpu/sandbox.h"

namespace vxsynth::gpu::isolation {
namespace {

// A CUDA error after a candidate ran may have poisoned the context (an illegal address is
// sticky): the runner is spent and the harness starts another.
void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    throw RunnerSpent(std::string(what) + ": " + cudaGetErrorName(rc) + " (" + cudaGetErrorString(rc) + ")");
  }
}

// A device buffer with guard bands of kGuardByte on both sides (outputs and workspace: a write
// past them is found), or none (inputs: exact allocations, so that compute-sanitizer still sees
// a read past an input); grows, never shrinks.
class GuardedDevice {
 public:
  explicit GuardedDevice(std::size_t guard = kGuardBytes) : guard_(guard) {}
  ~GuardedDevice() {
    if (base_) cudaFree(base_);
  }
  void* prepare(std::size_t bytes) {
    if (bytes > capacity_ || !base_ || (guard_ == 0 && bytes != capacity_)) {  // inputs: exact size
      if (base_) cudaFree(base_);
      base_ = nullptr;
      capacity_ = guard_ ? std::max<std::size_t>(bytes, 256) : std::max<std::size_t>(bytes, 1);
      check(cudaMalloc(&base_, capacity_ + 2 * guard_), "cudaMalloc");
    }
    bytes_ = bytes;
    if (guard_) {
      check(cudaMemset(base_, kGuardByte, guard_), "cudaMemset (guard)");
      check(cudaMemset(data_bytes() + bytes_, kGuardByte, guard_), "cudaMemset (guard)");
    }
    return data();
  }
  void* data() const { return static_cast<std::uint8_t*>(base_) + guard_; }
  bool guards_intact() const {
    if (!guard_) return true;
    std::vector<std::uint8_t> g(2 * guard_);
    check(cudaMemcpy(g.data(), base_, guard_, cudaMemcpyDeviceToHost), "cudaMemcpy (guard)");
    check(cudaMemcpy(g.data() + guard_, data_bytes() + bytes_, guard_, cudaMemcpyDeviceToHost), "cudaMemcpy (guard)");
    for (auto b : g) {
      if (b != kGuardByte) return false;
    }
    return true;
  }

 private:
  std::uint8_t* data_bytes() const { return static_cast<std::uint8_t*>(data()); }
  std::size_t guard_ = 0;
  void* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t bytes_ = 0;
};

struct Loaded {
  void* handle = nullptr;
  vxsynth_candidate_launch_fn launch = nullptr;
  vxsynth_candidate_workspace_fn workspace = nullptr;
};

class CudaExecutor : public Executor {
 public:
  std::string init() override {
    // The context, and the profiler's injection (ncu, compute-sanitizer) with it, before the
    // containment: they open files and sockets that a candidate may not.
    check(cudaFree(nullptr), "cudaFree(0) (context creation)");
    nvtxInitialize(nullptr);
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  }

  void load(int index, const std::string& object) override {
    enforce_sandbox(object);  // the link-level check again, in the process that loads it
    Loaded l;
    l.handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) throw WorkError("cannot load candidate " + object + ": " + dlerror());
    l.launch = reinterpret_cast<vxsynth_candidate_launch_fn>(dlsym(l.handle, kLaunchSymbol));
    l.workspace = reinterpret_cast<vxsynth_candidate_workspace_fn>(dlsym(l.handle, kWorkspaceSymbol));
    if (!l.launch) throw WorkError("candidate " + object + " does not export " + kLaunchSymbol);
    loaded_[index] = l;
  }

  std::size_t workspace_bytes(int index, const vxsynth_problem& p) override {
    const Loaded& l = loaded_.at(index);
    return l.workspace ? l.workspace(&p) : 0;
  }

  LaunchResult launch(const LaunchRequest& req) override {
    const Loaded& l = loaded_.at(req.candidate);
    while (inputs_.size() < req.inputs.size()) inputs_.push_back(std::make_unique<GuardedDevice>(0));
    vxsynth_buffers b{};
    const void* in_ptr[3] = {nullptr, nullptr, nullptr};
    for (std::size_t i = 0; i < req.inputs.size() && i < 3; ++i) {
      void* d = inputs_[i]->prepare(req.inputs[i].bytes);
      check(cudaMemcpy(d, req.inputs[i].data, req.inputs[i].bytes, cudaMemcpyHostToDevice), "cudaMemcpy (input)");
      in_ptr[i] = d;
    }
    b.a = in_ptr[0];
    b.b = in_ptr[1];
    b.bias = req.has_bias ? in_ptr[2] : nullptr;
    b.out = out_.prepare(req.out_bytes);
    check(cudaMemcpy(b.out, req.out, req.out_bytes, cudaMemcpyHostToDevice), "cudaMemcpy (poison)");
    if (req.workspace_bytes) {
      b.workspace = workspace_.prepare(req.workspace_bytes);
      b.workspace_bytes = req.workspace_bytes;
      check(cudaMemset(b.workspace, 0xff, req.workspace_bytes), "cudaMemset (workspace)");
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before the launch)");
    LaunchResult r;
    cudaStream_t s = stream_;
    const bool profiled = !req.segment.empty();
    if (profiled) {
      // The profiled launch: a stream of its own (ncu's "Stream" column maps rows back) inside
      // the NVTX range that ncu's filter selects. Same buffers, same checks as any launch.
      check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
      unsigned long long id = 0;
      check(cudaStreamGetId(s, &id), "cudaStreamGetId");
      r.stream_id = id;
      nvtxRangePushA(kProfileRange);
      nvtxRangePushA(req.segment.c_str());
    }
    check(cudaEventRecord(start_, s), "cudaEventRecord");
    r.rc = l.launch(&req.problem, &b, s);
    check(cudaEventRecord(stop_, s), "cudaEventRecord");
    if (profiled) {
      nvtxRangePop();
      nvtxRangePop();
    }
    check(cudaGetLastError(), "the candidate's launch");
    check(cudaStreamSynchronize(s), "the candidate's kernels");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    r.ms = ms;
    if (profiled) check(cudaStreamDestroy(s), "cudaStreamDestroy");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the launch)");
    check(cudaMemcpy(req.out, b.out, req.out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (output)");
    if (!out_.guards_intact()) r.violations.push_back("wrote outside its output (the guard bands around it changed)");
    if (req.workspace_bytes && !workspace_.guards_intact()) r.violations.push_back("wrote outside its workspace");
    std::vector<std::uint8_t> back;
    for (std::size_t i = 0; i < req.inputs.size() && i < 3; ++i) {
      back.resize(req.inputs[i].bytes);
      check(cudaMemcpy(back.data(), in_ptr[i], back.size(), cudaMemcpyDeviceToHost), "cudaMemcpy (input check)");
      if (std::memcmp(back.data(), req.inputs[i].data, back.size()) != 0) {
        r.violations.push_back("wrote to its input " + std::to_string(i));
      }
    }
    return r;
  }

 private:
  std::map<int, Loaded> loaded_;
  std::vector<std::unique_ptr<GuardedDevice>> inputs_;
  GuardedDevice out_, workspace_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace
}  // namespace vxsynth::gpu::isolation

int main(int argc, char** argv) {
  vxsynth::gpu::isolation::CudaExecutor ex;
  return vxsynth::gpu::isolation::serve_runner(argc, argv, ex);
}
