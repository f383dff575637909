// The candidate process ("runner"): loads candidates and launches them on inputs that arrive
// through the channel (channel.h), under the OS containment of containment.h. What runs the
// candidate (the CUDA runtime on the GPU, or a host function in the CPU test runner) is an
// Executor; the protocol, the containment and the reports are the same for both.
//
//   runner --channel-fd N --log-fd N --scratch DIR [--cpu-seconds S] [--data-gib G] --object SO...
//
// Start-up: stdout and stderr go to the log descriptor (under ncu, stdout is the profile's CSV,
// which a candidate must not be able to write to), Executor::init() (CUDA context, profiler
// injection), then containment, then a "ready" message with the containment report. No
// candidate code (not even a shared object's constructors) runs before containment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/abi/vxsynth_candidate.h"

namespace vxsynth::gpu::isolation {

struct HostSpan {
  const std::uint8_t* data = nullptr;
  std::size_t bytes = 0;
};

struct LaunchRequest {
  int candidate = 0;
  vxsynth_problem problem{};
  std::vector<HostSpan> inputs;  // ops' argument order: a, b, bias (when has_bias)
  bool has_bias = false;
  std::uint8_t* out = nullptr;   // holds the poison on entry; the candidate's output on return
  std::size_t out_bytes = 0;
  std::size_t workspace_bytes = 0;
  std::string segment;           // non-empty: a profiled launch (own stream, NVTX range)
};

struct LaunchResult {
  int rc = 0;
  double ms = 0;
  std::uint64_t stream_id = 0;
  std::vector<std::string> violations;  // guard bands or inputs written (found by the runner)
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Before containment: create the context, initialize what needs files or sockets. Returns a
  // line describing the device.
  virtual std::string init() = 0;
  // WorkError with the reason when the object cannot be loaded or lacks the entry point.
  virtual void load(int index, const std::string& object) = 0;
  virtual std::size_t workspace_bytes(int index, const vxsynth_problem& problem) = 0;
  virtual LaunchResult launch(const LaunchRequest& request) = 0;
};

// Thrown by an Executor when its process cannot serve another request (a CUDA error that
// leaves the context unusable): the runner replies with the reason and exits, and the harness
// starts a fresh one for the next request.
class RunnerSpent : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The runner's main: parses the arguments above, serves requests until "quit" or the channel
// closes. Returns the process's exit code.
int serve_runner(int argc, char** argv, Executor& executor);

// Exit code of a runner killed by its own SIGSYS handler after a forbidden system call.
inline constexpr int kForbiddenSyscallExit = 128 + 31;

// Guard bands around every output and workspace buffer: this many bytes of a known pattern
// before and after, compared after each launch.
inline constexpr std::size_t kGuardBytes = 64 * 1024;
inline constexpr std::uint8_t kGuardByte = 0xA5;

}  // namespace vxsynth::gpu::isolation
