#include "gpu/isolation/runner.h"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>

#include "common/error.h"
#include "gpu/isolation/channel.h"
#include "gpu/isolation/containment.h"

namespace vxsynth::gpu::isolation {
namespace {

int g_channel = -1;

// A trapped system call (seccomp SECCOMP_RET_TRAP): tell the harness which one, then die.
// Only async-signal-safe calls here.
void on_sigsys(int, siginfo_t* info, void*) {
  char msg[160];
  const char* head = "{\"op\":\"violation\",\"syscall\":";
  std::size_t n = 0;
  for (const char* p = head; *p; ++p) msg[n++] = *p;
  long nr = info ? info->si_syscall : -1;
  char digits[24];
  int d = 0;
  if (nr < 0) {
    msg[n++] = '-';
    nr = -nr;
  }
  do {
    digits[d++] = static_cast<char>('0' + nr % 10);
    nr /= 10;
  } while (nr > 0 && d < 20);
  while (d > 0) msg[n++] = digits[--d];
  msg[n++] = '}';
  if (g_channel >= 0) send(g_channel, msg, n, MSG_NOSIGNAL);
  _exit(kForbiddenSyscallExit);
}

struct Args {
  int channel = -1;
  int log = -1;
  std::string scratch;
  double cpu_seconds = 0;
  double data_gib = 0;
  std::vector<std::string> objects;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InputError("runner: " + k + " needs a value");
      return argv[++i];
    };
    if (k == "--channel-fd") a.channel = std::atoi(value().c_str());
    else if (k == "--log-fd") a.log = std::atoi(value().c_str());
    else if (k == "--scratch") a.scratch = value();
    else if (k == "--cpu-seconds") a.cpu_seconds = std::atof(value().c_str());
    else if (k == "--data-gib") a.data_gib = std::atof(value().c_str());
    else if (k == "--object") a.objects.push_back(value());
    else throw InputError("runner: unknown argument " + k);
  }
  if (a.channel < 0) throw InputError("runner: --channel-fd is required (the runner is started by the harness)");
  return a;
}

Json reply_ok() { return {{"ok", true}}; }
Json reply_error(const std::string& e) { return {{"ok", false}, {"error", e}}; }

Json handle(const Json& m, int passed_fd, Executor& ex, const Args& args, SharedBuffer& shared,
            std::map<int, bool>& loaded) {
  const std::string op = m.value("op", "");
  if (op == "buffer") {
    if (passed_fd < 0) return reply_error("buffer message without a descriptor");
    shared = SharedBuffer(passed_fd, m.at("bytes").get<std::size_t>());
    return reply_ok();
  }
  const int index = m.value("candidate", -1);
  if (index < 0 || static_cast<std::size_t>(index) >= args.objects.size()) {
    return reply_error("no candidate " + std::to_string(index));
  }
  if (op == "load") {
    ex.load(index, args.objects[static_cast<std::size_t>(index)]);
    loaded[index] = true;
    return reply_ok();
  }
  if (!loaded[index]) return reply_error("candidate " + std::to_string(index) + " is not loaded");
  vxsynth_problem problem{};
  from_hex(m.at("problem").get<std::string>(), &problem, sizeof(problem));
  if (op == "workspace") {
    Json r = reply_ok();
    r["bytes"] = ex.workspace_bytes(index, problem);
    return r;
  }
  if (op == "launch") {
    LaunchRequest req;
    req.candidate = index;
    req.problem = problem;
    auto span_of = [&](const Json& pair) {
      const auto off = pair.at(0).get<std::size_t>(), bytes = pair.at(1).get<std::size_t>();
      if (off + bytes > shared.size() || off + bytes < off) throw WorkError("launch: a tensor lies outside the shared buffer");
      return HostSpan{shared.data() + off, bytes};
    };
    for (const auto& in : m.at("inputs")) req.inputs.push_back(span_of(in));
    req.has_bias = m.value("has_bias", false);
    const HostSpan out = span_of(m.at("out"));
    req.out = const_cast<std::uint8_t*>(out.data);
    req.out_bytes = out.bytes;
    req.workspace_bytes = m.value("workspace_bytes", std::size_t{0});
    req.segment = m.value("segment", "");
    const LaunchResult res = ex.launch(req);
    Json r = reply_ok();
    r["rc"] = res.rc;
    r["ms"] = res.ms;
    r["stream_id"] = res.stream_id;
    r["violations"] = res.violations;
    return r;
  }
  return reply_error("unknown request '" + op + "'");
}

}  // namespace

int serve_runner(int argc, char** argv, Executor& executor) {
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  g_channel = args.channel;
  // The candidate's prints go to the log, never to the harness's stdout (ncu's CSV there).
  if (args.log >= 0) {
    dup2(args.log, STDOUT_FILENO);
    dup2(args.log, STDERR_FILENO);
    close(args.log);
  }
  try {
    (void)syscall_name(0);  // builds the name tables before the signal handler may read them
    struct sigaction sa{};
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, nullptr);
    const std::string device = executor.init();
    std::string switch_note;
    Policy policy = apply_environment_switch(cuda_candidate_policy(args.objects, args.scratch), &switch_note);
    policy.cpu_seconds = args.cpu_seconds;
    policy.data_bytes_above_now = static_cast<std::uint64_t>(args.data_gib * (1ull << 30));
    const Report report = apply(policy);
    std::cout << "candidate runner " << getpid() << " on " << device << "\n" << report.text();
    if (!switch_note.empty()) std::cout << switch_note << "\n";
    std::cout.flush();
    Json ready = {{"op", "ready"}, {"pid", getpid()}, {"device", device}, {"containment", report.to_json()}};
    if (!switch_note.empty()) ready["warning"] = switch_note;
    send_message(args.channel, ready);
  } catch (const std::exception& e) {
    std::cerr << "runner: " << e.what() << "\n";
    try {
      send_message(args.channel, {{"op", "fatal"}, {"error", e.what()}});
    } catch (...) {
    }
    return 1;
  }
  SharedBuffer shared;
  std::map<int, bool> loaded;
  for (;;) {
    Json m;
    int fd = -1;
    ReceiveStatus st;
    try {
      st = receive_message(args.channel, 0, &m, &fd);
    } catch (const std::exception& e) {
      std::cerr << "runner: " << e.what() << "\n";
      return 1;
    }
    if (st != ReceiveStatus::ok || m.value("op", "") == "quit") break;
    Json reply;
    bool spent = false;
    try {
      reply = handle(m, fd, executor, args, shared, loaded);
    } catch (const RunnerSpent& e) {
      reply = reply_error(e.what());
      reply["restart"] = true;
      spent = true;
    } catch (const std::exception& e) {
      reply = reply_error(e.what());
    }
    std::cout.flush();
    try {
      send_message(args.channel, reply);
    } catch (const std::exception& e) {
      std::cerr << "runner: " << e.what() << "\n";
      return 1;
    }
    if (spent) return 3;
  }
  return 0;
}

}  // namespace vxsynth::gpu::isolation
