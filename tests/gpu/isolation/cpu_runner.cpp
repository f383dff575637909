// The candidate runner with a host Executor: the same protocol, containment and reports as
// vxsynth-gpu-runner, so that CI (no GPU) tests them with host-side "candidates" (shared
// objects exporting vxsynth_cpu_candidate_launch, which takes host pointers) that cheat
// through raw system calls, crash, spin, cache, or write outside their output.
#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "common/error.h"
#include "gpu/isolation/runner.h"

namespace vxsynth::gpu::isolation {
namespace {

using CpuLaunch = int (*)(const vxsynth_problem*, const vxsynth_buffers*);
using CpuWorkspace = std::size_t (*)(const vxsynth_problem*);

// A buffer with guard bands of kGuardByte on both sides.
struct Guarded {
  std::vector<std::uint8_t> bytes;
  std::size_t size = 0;
  explicit Guarded(std::size_t n) : bytes(n + 2 * kGuardBytes, kGuardByte), size(n) {}
  std::uint8_t* data() { return bytes.data() + kGuardBytes; }
  bool guards_intact() const {
    for (std::size_t i = 0; i < kGuardBytes; ++i) {
      if (bytes[i] != kGuardByte || bytes[kGuardBytes + size + i] != kGuardByte) return false;
    }
    return true;
  }
};

class CpuExecutor : public Executor {
 public:
  std::string init() override { return "host CPU (test executor)"; }
  void load(int index, const std::string& object) override {
    void* h = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw WorkError("cannot load " + object + ": " + dlerror());
    auto launch = reinterpret_cast<CpuLaunch>(dlsym(h, "vxsynth_cpu_candidate_launch"));
    if (!launch) throw WorkError(object + " does not export vxsynth_cpu_candidate_launch");
    launch_[index] = launch;
    workspace_[index] = reinterpret_cast<CpuWorkspace>(dlsym(h, "vxsynth_candidate_workspace_bytes"));
  }
  std::size_t workspace_bytes(int index, const vxsynth_problem& p) override {
    return workspace_[index] ? workspace_[index](&p) : 0;
  }
  LaunchResult launch(const LaunchRequest& req) override {
    std::vector<Guarded> inputs;
    for (const auto& in : req.inputs) {
      inputs.emplace_back(in.bytes);
      std::memcpy(inputs.back().data(), in.data, in.bytes);
    }
    Guarded out(req.out_bytes);
    std::memcpy(out.data(), req.out, req.out_bytes);  // the poison
    Guarded ws(req.workspace_bytes);
    std::memset(ws.data(), 0xff, req.workspace_bytes);
    vxsynth_buffers b{};
    b.a = inputs.size() > 0 ? inputs[0].data() : nullptr;
    b.b = inputs.size() > 1 ? inputs[1].data() : nullptr;
    b.bias = req.has_bias && inputs.size() > 2 ? inputs[2].data() : nullptr;
    b.out = out.data();
    b.workspace = req.workspace_bytes ? ws.data() : nullptr;
    b.workspace_bytes = req.workspace_bytes;
    const auto t0 = std::chrono::steady_clock::now();
    LaunchResult r;
    r.rc = launch_.at(req.candidate)(&req.problem, &b);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!out.guards_intact()) r.violations.push_back("wrote outside its output (the guard bands around it changed)");
    if (req.workspace_bytes && !ws.guards_intact()) r.violations.push_back("wrote outside its workspace");
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].guards_intact() || std::memcmp(inputs[i].data(), req.inputs[i].data, req.inputs[i].bytes) != 0) {
        r.violations.push_back("wrote to its input " + std::to_string(i));
      }
    }
    std::memcpy(req.out, out.data(), req.out_bytes);
    return r;
  }

 private:
  std::map<int, CpuLaunch> launch_;
  std::map<int, CpuWorkspace> workspace_;
};

}  // namespace
}  // namespace vxsynth::gpu::isolation

int main(int argc, char** argv) {
  vxsynth::gpu::isolation::CpuExecutor ex;
  return vxsynth::gpu::isolation::serve_runner(argc, argv, ex);
}
