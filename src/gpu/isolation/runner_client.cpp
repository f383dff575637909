#include "gpu/isolation/runner_client.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "gpu/isolation/containment.h"
#include "gpu/isolation/runner.h"

namespace fs = std::filesystem;

extern char** environ;

namespace vxsynth::gpu::isolation {
namespace {

std::string signal_text(int sig) {
  const char* d = strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

}  // namespace

RunnerClient::RunnerClient(RunnerOptions options) : options_(std::move(options)) {
  loaded_.assign(options_.objects.size(), false);
  if (options_.scratch_dir.empty()) throw WorkError("runner: no scratch folder given");
  fs::create_directories(options_.scratch_dir);
}

RunnerClient::~RunnerClient() {
  if (pid_ > 0) {
    try {
      send_message(fd_, {{"op", "quit"}});
    } catch (...) {
    }
    stop(false);
  }
}

void RunnerClient::start() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    throw WorkError(std::string("runner: socketpair failed: ") + std::strerror(errno));
  }
  const std::string log_path = (fs::path(options_.scratch_dir) / "runner.log").string();
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    close(sv[0]);
    close(sv[1]);
    throw WorkError("runner: cannot open its log " + log_path + ": " + std::strerror(errno));
  }
  std::vector<std::string> args = {options_.program, "--channel-fd", std::to_string(sv[1]), "--log-fd",
                                   std::to_string(log_fd), "--scratch", options_.scratch_dir};
  if (options_.cpu_seconds > 0) args.insert(args.end(), {"--cpu-seconds", std::to_string(options_.cpu_seconds)});
  if (options_.data_gib > 0) args.insert(args.end(), {"--data-gib", std::to_string(options_.data_gib)});
  for (const auto& o : options_.objects) args.insert(args.end(), {"--object", o});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The runner's environment: the harness's (CUDA_VISIBLE_DEVICES, a profiler's injection
  // variables), with TMPDIR in its scratch folder, the one place it may write.
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env_text.emplace_back(*e);
  }
  env_text.push_back("TMPDIR=" + options_.scratch_dir);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    close(log_fd);
    throw WorkError(std::string("runner: fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec (the harness has CUDA's threads).
    setpgid(0, 0);
    fcntl(sv[1], F_SETFD, 0);
    fcntl(log_fd, F_SETFD, 0);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // both sides set it: no race with a kill of the group
  close(sv[1]);
  close(log_fd);
  pid_ = pid;
  fd_ = sv[0];
  ++starts_;
  violation_syscall_.reset();
  loaded_.assign(options_.objects.size(), false);
  buffer_sent_ = false;
  Json ready;
  const double wait = std::max(120.0, options_.request_timeout_seconds);
  ReceiveStatus st = ReceiveStatus::closed;
  try {
    st = receive_message(fd_, wait, &ready);
  } catch (const std::exception&) {
    st = ReceiveStatus::closed;
  }
  if (st != ReceiveStatus::ok || ready.value("op", "") != "ready") {
    std::string why = st == ReceiveStatus::timeout ? "did not start within " + std::to_string(static_cast<int>(wait)) + " s"
                                                   : "failed to start";
    if (st == ReceiveStatus::ok && ready.value("op", "") == "fatal") why += ": " + ready.value("error", "");
    stop(true);
    throw WorkError("the candidate runner " + options_.program + " " + why + " (log: " + log_path + ")");
  }
  containment_ = ready.at("containment");
  if (options_.log) {
    *options_.log << "candidate runner started (pid " << pid_ << ", start " << starts_ << "): seccomp "
                  << (containment_.value("seccomp_applied", false) ? "applied" : "NOT applied") << ", Landlock "
                  << (containment_.value("landlock_applied", false)
                          ? "ABI " + std::to_string(containment_.value("landlock_abi", 0)) + " applied"
                          : "NOT applied: " + containment_.value("landlock", std::string()))
                  << ", " << containment_.value("rlimits", std::string()) << "\n";
    if (ready.contains("warning")) *options_.log << ready["warning"].get<std::string>() << "\n";
  }
}

void RunnerClient::stop(bool kill_it) {
  if (pid_ <= 0) return;
  if (kill_it) kill(-pid_, SIGKILL);
  int status = 0;
  if (!kill_it) {
    // Give a runner that was asked to quit a moment, then end it.
    for (int i = 0; i < 200; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(10000);
    }
    if (pid_ > 0) kill(-pid_, SIGKILL);
  }
  if (pid_ > 0) waitpid(pid_, &status, 0);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  pid_ = -1;
}

std::string RunnerClient::death_reason() {
  int status = 0;
  pid_t r;
  kill(-pid_, SIGKILL);  // whatever is left of it (its group lives while the leader is a zombie)
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  std::string why;
  if (violation_syscall_) {
    const std::string name = syscall_name(*violation_syscall_);
    why = "the candidate made a forbidden system call " + std::to_string(*violation_syscall_) +
          (name.empty() ? "" : " (" + name + ")") + ": the containment (seccomp) killed its process";
  } else if (r == pid_ && WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGSYS) why = "the candidate process was killed by seccomp (SIGSYS): a forbidden system call";
    else if (sig == SIGXCPU) why = "the candidate process ran out of CPU time (RLIMIT_CPU, SIGXCPU)";
    else why = "the candidate process died: " + signal_text(sig);
  } else if (r == pid_ && WIFEXITED(status)) {
    why = "the candidate process exited with code " + std::to_string(WEXITSTATUS(status)) + " during the request";
  } else {
    why = "the candidate process ended";
  }
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  pid_ = -1;
  return why;
}

std::optional<Json> RunnerClient::request(const Json& message, int candidate, std::string* failure, int pass_fd) {
  (void)candidate;
  if (pid_ <= 0) start();
  try {
    send_message(fd_, message, pass_fd);
  } catch (const WorkError&) {
    *failure = death_reason();
    return std::nullopt;
  }
  for (;;) {
    Json reply;
    ReceiveStatus st;
    try {
      st = receive_message(fd_, options_.request_timeout_seconds, &reply);
    } catch (const WorkError& e) {
      stop(true);
      *failure = std::string("the candidate process sent a malformed reply (") + e.what() + "): killed";
      return std::nullopt;
    }
    if (st == ReceiveStatus::timeout) {
      stop(true);
      *failure = "the candidate did not finish within " + std::to_string(static_cast<int>(options_.request_timeout_seconds)) +
                 " s: its process group was killed (a kernel or host code that never returns?)";
      return std::nullopt;
    }
    if (st == ReceiveStatus::closed) {
      *failure = death_reason();
      return std::nullopt;
    }
    if (reply.value("op", "") == "violation") {
      violation_syscall_ = reply.value("syscall", -1L);
      *failure = death_reason();
      return std::nullopt;
    }
    if (!reply.contains("ok") || !reply["ok"].is_boolean()) {
      stop(true);
      *failure = "the candidate process sent a reply that is not one of the protocol's: killed";
      return std::nullopt;
    }
    if (reply.value("restart", false)) stop(false);  // its context is spent: a fresh runner next time
    return reply;
  }
}

bool RunnerClient::ensure_loaded(int candidate, std::string* failure) {
  if (candidate < 0 || static_cast<std::size_t>(candidate) >= options_.objects.size()) {
    *failure = "no candidate " + std::to_string(candidate);
    return false;
  }
  if (pid_ > 0 && loaded_[static_cast<std::size_t>(candidate)]) return true;
  const auto r = request({{"op", "load"}, {"candidate", candidate}}, candidate, failure);
  if (!r) return false;
  if (!(*r)["ok"].get<bool>()) {
    *failure = r->value("error", std::string("load failed"));
    return false;
  }
  loaded_[static_cast<std::size_t>(candidate)] = true;
  return true;
}

std::string RunnerClient::load(int candidate) {
  std::string failure;
  return ensure_loaded(candidate, &failure) ? "" : failure;
}

std::optional<std::size_t> RunnerClient::workspace_bytes(int candidate, const vxsynth_problem& problem,
                                                         std::string* failure) {
  if (!ensure_loaded(candidate, failure)) return std::nullopt;
  const auto r = request({{"op", "workspace"}, {"candidate", candidate}, {"problem", to_hex(&problem, sizeof(problem))}},
                         candidate, failure);
  if (!r) return std::nullopt;
  if (!(*r)["ok"].get<bool>()) {
    *failure = r->value("error", std::string("workspace query failed"));
    return std::nullopt;
  }
  return r->value("bytes", std::size_t{0});
}

void RunnerClient::ensure_buffer(std::size_t bytes) {
  if (buffer_.size() < bytes) {
    buffer_ = SharedBuffer(std::max(bytes, 2 * buffer_.size()));
    buffer_sent_ = false;
  }
}

RunnerOutcome RunnerClient::launch(const RunnerLaunch& req) {
  RunnerOutcome out;
  if (!ensure_loaded(req.candidate, &out.failure)) return out;
  std::size_t need = 0;
  for (const auto& in : req.inputs) need += align_up(in.bytes);
  need += align_up(req.out_bytes);
  ensure_buffer(std::max<std::size_t>(need, 1 << 20));
  if (!buffer_sent_) {
    const auto r = request({{"op", "buffer"}, {"bytes", buffer_.size()}}, req.candidate, &out.failure, buffer_.fd());
    if (!r) return out;
    if (!(*r)["ok"].get<bool>()) {
      out.failure = r->value("error", std::string("buffer refused"));
      return out;
    }
    buffer_sent_ = true;
    // A runner that died meanwhile was restarted without the candidate: load it again.
    if (!ensure_loaded(req.candidate, &out.failure)) return out;
  }
  std::size_t off = 0;
  Json inputs = Json::array();
  for (const auto& in : req.inputs) {
    std::memcpy(buffer_.data() + off, in.data, in.bytes);
    inputs.push_back({off, in.bytes});
    off += align_up(in.bytes);
  }
  const std::size_t out_off = off;
  std::memcpy(buffer_.data() + out_off, req.poison, req.out_bytes);
  Json m = {{"op", "launch"},
            {"candidate", req.candidate},
            {"problem", to_hex(&req.problem, sizeof(req.problem))},
            {"inputs", inputs},
            {"has_bias", req.has_bias},
            {"out", {out_off, req.out_bytes}},
            {"workspace_bytes", req.workspace_bytes},
            {"segment", req.segment}};
  out.pid = pid_;
  const auto r = request(m, req.candidate, &out.failure);
  if (!r) return out;
  if (!(*r)["ok"].get<bool>()) {
    out.failure = r->value("error", std::string("launch failed"));
    return out;
  }
  out.ok = true;
  out.rc = r->value("rc", -1);
  out.ms = r->value("ms", 0.0);
  out.stream_id = r->value("stream_id", std::uint64_t{0});
  if (r->contains("violations")) out.violations = (*r)["violations"].get<std::vector<std::string>>();
  out.out = buffer_.data() + out_off;
  return out;
}

}  // namespace vxsynth::gpu::isolation
