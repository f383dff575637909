#include "common/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "common/error.h"

extern char** environ;

namespace vxsynth {
namespace {

volatile sig_atomic_t g_forwarded_signal = 0;
void remember_signal(int sig) { g_forwarded_signal = sig; }

// The inherited environment with `extra` set (an entry replaces the inherited one of its name).
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& x : extra) replaced |= name_of(x) == name_of(entry);
    if (!replaced) out.push_back(entry);
  }
  for (const auto& x : extra) {
    if (x.find('=') == std::string::npos) throw WorkError("run_process: environment entry '" + x + "' is not NAME=value");
    out.push_back(x);
  }
  return out;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw WorkError("run_process: empty command");
  int pipe_fds[2] = {-1, -1};
  if (options.capture != nullptr && pipe(pipe_fds) != 0) {
    throw WorkError(std::string("pipe failed: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.capture != nullptr) {
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  } else {
    const int flags = O_WRONLY | O_CREAT | O_TRUNC;
    if (!options.stdout_path.empty()) {
      posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.stdout_path.c_str(), flags, 0644);
    }
    if (!options.stderr_path.empty()) {
      if (options.stderr_path == options.stdout_path) {
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
      } else {
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, options.stderr_path.c_str(), flags, 0644);
      }
    }
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_storage;
  std::vector<char*> env;
  if (!options.env.empty()) {
    env_storage = child_environment(options.env);
    for (auto& e : env_storage) env.push_back(e.data());
    env.push_back(nullptr);
  }

  const bool own_group = options.timeout_seconds > 0;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), env.empty() ? environ : env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (options.capture != nullptr) close(pipe_fds[1]);
  if (rc != 0) {
    if (options.capture != nullptr) close(pipe_fds[0]);
    throw WorkError("cannot run '" + argv[0] + "': " + std::strerror(rc));
  }

  struct sigaction forward {}, old_int {}, old_term {};
  if (own_group) {
    g_forwarded_signal = 0;
    forward.sa_handler = remember_signal;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGINT, &forward, &old_int);
    sigaction(SIGTERM, &forward, &old_term);
  }
  ProcessResult result;
  std::string text;
  bool pipe_open = options.capture != nullptr;
  bool exited = false;
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  while (!exited || pipe_open) {
    if (pipe_open) {
      // Drain the output (the child blocks on a full pipe), waking up to check the clock.
      pollfd p{pipe_fds[0], POLLIN, 0};
      const int ready = poll(&p, 1, own_group ? 20 : -1);
      if (ready > 0) {
        char chunk[4096];
        const ssize_t n = read(pipe_fds[0], chunk, sizeof chunk);
        if (n > 0) {
          text.append(chunk, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          close(pipe_fds[0]);
          pipe_open = false;
        }
      }
    }
    if (!exited) {
      const bool block = !pipe_open && !own_group;
      struct rusage usage {};
      const pid_t done = wait4(pid, &status, block ? 0 : WNOHANG, &usage);
      if (done == pid) {
        exited = true;
        result.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                             1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
      } else if (done < 0 && errno != EINTR) {
        throw WorkError("waiting for " + argv[0] + ": " + std::strerror(errno));
      } else if (!pipe_open && own_group) {
        poll(nullptr, 0, 20);
      }
    }
    if (own_group && !exited) {
      if (g_forwarded_signal != 0) {
        kill(-pid, g_forwarded_signal);
        g_forwarded_signal = 0;
      }
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > options.timeout_seconds) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        exited = true;  // the loop still drains what the group left in the pipe
        result.timed_out = true;
      }
    }
  }
  if (own_group) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  if (options.capture != nullptr) *options.capture = std::move(text);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

int run_program(const std::vector<std::string>& argv, std::string* output) {
  std::string text;
  ProcessOptions o;
  o.capture = &text;
  const ProcessResult r = run_process(argv, o);
  if (output != nullptr) *output = std::move(text);
  return r.exit_code;
}

std::string find_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? program : "";
  }
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

std::string render_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) {
        if (c == '\'') out += "'\\''";
        else out += c;
      }
      out += '\'';
    }
  }
  return out;
}

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return ".";
  return exe.parent_path().string();
}

}  // namespace vxsynth
