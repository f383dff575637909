// The harness's side of the candidate process (runner.h): starts the runner (one process for a
// batch of candidates, in its own process group), sends inputs, receives outputs, and turns
// every way a candidate process can go wrong into a reason: a forbidden system call (named),
// a crash (the signal), a request that took longer than its timeout (the process group is
// killed), a reply it should not have sent. After a failure the next request starts a fresh
// runner, so one bad candidate does not take the batch's other candidates with it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "gpu/abi/vxsynth_candidate.h"
#include "gpu/isolation/channel.h"

namespace vxsynth::gpu::isolation {

struct RunnerOptions {
  std::string program;               // the runner executable
  std::vector<std::string> objects;  // candidate shared objects, by index
  std::string scratch_dir;           // the runner's private folder (created; its log goes there)
  double request_timeout_seconds = 120;  // one load/launch; then the process group is killed
  double cpu_seconds = 0;            // RLIMIT_CPU of the runner (0: none)
  double data_gib = 32;              // RLIMIT_DATA above what the runner holds after init
  std::ostream* log = nullptr;       // starts, failures, the containment report
};

struct RunnerLaunch {
  int candidate = 0;
  vxsynth_problem problem{};
  std::vector<HostView> inputs;      // copied into the shared buffer
  bool has_bias = false;
  const void* poison = nullptr;      // out_bytes of the poisoned output
  std::size_t out_bytes = 0;
  std::size_t workspace_bytes = 0;
  std::string segment;               // non-empty: profiled launch
};

struct RunnerOutcome {
  bool ok = false;         // the runner answered (rc says what the candidate returned)
  std::string failure;     // otherwise why not, in words
  int rc = 0;
  double ms = 0;
  std::uint64_t stream_id = 0;
  int pid = 0;             // the runner process that ran it (ncu's "Process ID")
  std::vector<std::string> violations;
  const std::uint8_t* out = nullptr;  // out_bytes of output, valid until the next request
};

class RunnerClient {
 public:
  explicit RunnerClient(RunnerOptions options);
  ~RunnerClient();
  RunnerClient(const RunnerClient&) = delete;
  RunnerClient& operator=(const RunnerClient&) = delete;

  // "" when loaded, else the reason (the runner may have died doing it).
  std::string load(int candidate);
  // Workspace size the candidate asks for, or the failure.
  std::optional<std::size_t> workspace_bytes(int candidate, const vxsynth_problem& problem, std::string* failure);
  RunnerOutcome launch(const RunnerLaunch& request);

  int pid() const { return pid_; }
  int starts() const { return starts_; }
  const Json& containment() const { return containment_; }  // the latest runner's report

 private:
  void start();
  void stop(bool kill_it);
  std::string death_reason();
  std::optional<Json> request(const Json& message, int candidate, std::string* failure, int pass_fd = -1);
  void ensure_buffer(std::size_t bytes);
  bool ensure_loaded(int candidate, std::string* failure);

  RunnerOptions options_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int starts_ = 0;
  Json containment_;
  SharedBuffer buffer_;
  bool buffer_sent_ = false;
  std::vector<bool> loaded_;
  std::optional<long> violation_syscall_;
};

}  // namespace vxsynth::gpu::isolation
