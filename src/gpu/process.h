// Runs a program with an argument vector (no shell), its output sent to files or inherited.
#pragma once

#include <string>
#include <vector>

namespace vxsynth::gpu {

struct ProcessResult {
  int exit_code = -1;   // exit status, or 128 + signal number when killed by a signal
  bool signaled = false;
  bool timed_out = false;  // killed (with its whole process group) after timeout_seconds
};

struct ProcessOptions {
  std::string stdout_path;  // "" = inherit
  std::string stderr_path;  // "" = inherit; may equal stdout_path to merge
  std::vector<std::string> extra_env;  // "NAME=value" entries added to the environment
  double timeout_seconds = 0;          // 0 = wait for ever; else SIGKILL the process group
};

// WorkError when the program cannot be started (not found, not executable).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Full path of `program` found on PATH, or "" (a name with a '/' is returned when executable).
std::string find_on_path(const std::string& program);

// Shell-quoted rendering of argv, for logs and reports (never executed through a shell).
std::string render_command(const std::vector<std::string>& argv);

// The directory of the running executable (from /proc/self/exe).
std::string executable_dir();

}  // namespace vxsynth::gpu
