// OS containment of a candidate process, enforced by the kernel (docs/gpu.md, "Isolation"):
// a seccomp-bpf filter (no new processes, no exec, no ptrace, no sockets, no signals to other
// processes), Landlock file-system rules (an allowlist of what the CUDA driver needs) where the
// kernel has Landlock, and rlimits (CPU time, data memory, file size, no core dumps).
//
// apply() is one-way: the calling process stays contained until it exits. It is called by the
// candidate runner after the CUDA driver (and a profiler's injection library) are initialized
// and before any candidate code is loaded. What could not be applied is said in the report,
// never skipped silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json_io.h"

namespace vxsynth::gpu::isolation {

enum class PathAccess {
  read,        // read files, list directories
  read_exec,   // read, list, map as executable (libraries, the candidate's shared object)
  read_write,  // also create, write, remove (the runner's private scratch folder)
  device,      // open a device node for reading and writing, and ioctl on it (/dev/nvidia*)
};

struct PathRule {
  std::string path;
  PathAccess access = PathAccess::read;
};

struct Policy {
  bool seccomp = true;
  bool landlock = true;
  std::vector<PathRule> paths;  // the Landlock allowlist; anything else is denied
  double cpu_seconds = 0;                 // RLIMIT_CPU (0 = unchanged)
  std::uint64_t data_bytes_above_now = 0; // RLIMIT_DATA = current data size + this (0 = unchanged)
  std::uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE (0 = unchanged)
};

struct Report {
  bool seccomp_applied = false;
  std::string seccomp;    // what the filter does, or why it is not applied
  int landlock_abi = 0;   // the kernel's Landlock ABI version, 0 = none
  bool landlock_applied = false;
  std::string landlock;   // the rights handled and the rules, or why not
  std::string rlimits;    // the limits set
  std::vector<std::string> skipped_paths;  // allowlisted paths that do not exist here

  std::string text() const;
  Json to_json() const;
};

// The allowlist for a CUDA candidate process, in one place: what the CUDA driver and runtime
// open after initialization (devices /dev/nvidia*, /proc and /sys read-only, library folders),
// the candidates' shared objects, a private scratch folder, and, under Nsight Compute
// (CUDA_INJECTION64_PATH set), the profiler's install folder and /dev/shm. Documented in
// docs/gpu.md ("What the candidate process may open").
Policy cuda_candidate_policy(const std::vector<std::string>& candidate_objects, const std::string& scratch_dir);

// The Landlock ABI version of the running kernel (0 when Landlock is missing or disabled).
int landlock_abi_version();

// Applies the policy to the calling process (seccomp to all its threads; Landlock to the
// calling thread and every thread or process it starts later). Throws WorkError when a part
// the policy asks for fails for another reason than "the kernel does not have it".
Report apply(const Policy& policy);

// The name of a system call number on this architecture ("" when not one we name).
std::string syscall_name(long nr);

// The filter's lists by name, in filter order (docs/gpu.md, "Isolation"): the calls that kill
// the candidate with a report, and those refused with EPERM. Held whole by the tests.
std::vector<std::string> trapped_call_names();
std::vector<std::string> refused_call_names();

// The environment switch read by the runner: VXSYNTH_CANDIDATE_CONTAINMENT=off|no-landlock|
// no-seccomp|on (default on). An operator's escape hatch, never set by a candidate (the runner
// reads it before any candidate code runs); every weakening is written to the report and log.
Policy apply_environment_switch(Policy policy, std::string* note);

}  // namespace vxsynth::gpu::isolation
