// The one way vxsynth runs another program: an argument vector (no shell), optional extra
// environment, output captured or sent to files, and an optional timeout that ends the whole
// process group (ncu's target process, a compiler's children).
#pragma once

#include <string>
#include <vector>

namespace vxsynth {

struct ProcessOptions {
  // stdout and stderr together into *capture (when not null); otherwise to these files ("" =
  // inherited; stderr_path may equal stdout_path to merge them).
  std::string* capture = nullptr;
  std::string stdout_path;
  std::string stderr_path;
  // "NAME=value" entries set in the child's environment (replacing an inherited NAME).
  std::vector<std::string> env;
  // 0 = wait for ever; else the child runs in its own process group, which is killed (SIGKILL)
  // after this many seconds; Ctrl-C and SIGTERM are forwarded to the group meanwhile.
  double timeout_seconds = 0;
};

struct ProcessResult {
  int exit_code = -1;      // exit status, or 128 + signal number when killed by a signal
  bool signaled = false;
  bool timed_out = false;  // killed with its process group after timeout_seconds
  double cpu_seconds = 0;  // user + system CPU time of the child (not its own children), when it exited by itself
};

// WorkError when the program cannot be started (not found, not executable).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// run_process with stdout and stderr captured into *output; returns the exit status.
int run_program(const std::vector<std::string>& argv, std::string* output);

// Full path of `program` found on PATH, or "" (a name with a '/' is returned when executable).
std::string find_on_path(const std::string& program);

// Shell-quoted rendering of argv, for logs and reports (never executed through a shell).
std::string render_command(const std::vector<std::string>& argv);

// The directory of the running executable (from /proc/self/exe).
std::string executable_dir();

}  // namespace vxsynth
