#include "gpu/isolation/containment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace fs = std::filesystem;

namespace vxsynth::gpu::isolation {
namespace {

// --- Landlock (uapi values spelled out: Debian 12's headers stop at ABI 2) -------------------
constexpr std::uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2,
                        kFsReadDir = 1ull << 3, kFsRemoveDir = 1ull << 4, kFsRemoveFile = 1ull << 5,
                        kFsMakeChar = 1ull << 6, kFsMakeDir = 1ull << 7, kFsMakeReg = 1ull << 8,
                        kFsMakeSock = 1ull << 9, kFsMakeFifo = 1ull << 10, kFsMakeBlock = 1ull << 11,
                        kFsMakeSym = 1ull << 12, kFsRefer = 1ull << 13, kFsTruncate = 1ull << 14,
                        kFsIoctlDev = 1ull << 15;
constexpr std::uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnix = 1ull << 0, kScopeSignal = 1ull << 1;
constexpr unsigned kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;
// Rights that only make sense on a directory (a rule on a file may not name them).
constexpr std::uint64_t kDirOnly = kFsReadDir | kFsRemoveDir | kFsRemoveFile | kFsMakeChar | kFsMakeDir |
                                   kFsMakeReg | kFsMakeSock | kFsMakeFifo | kFsMakeBlock | kFsMakeSym | kFsRefer;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

std::uint64_t fs_rights_of(int abi) {
  std::uint64_t r = (kFsMakeSym << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) r |= kFsRefer;
  if (abi >= 3) r |= kFsTruncate;
  if (abi >= 5) r |= kFsIoctlDev;
  return r;
}

std::uint64_t rights_for(PathAccess a) {
  switch (a) {
    case PathAccess::read: return kFsReadFile | kFsReadDir;
    case PathAccess::read_exec: return kFsReadFile | kFsReadDir | kFsExecute;
    case PathAccess::read_write:
      return kFsReadFile | kFsReadDir | kFsWriteFile | kFsRemoveDir | kFsRemoveFile | kFsMakeDir | kFsMakeReg |
             kFsTruncate | kFsRefer;
    case PathAccess::device: return kFsReadFile | kFsWriteFile | kFsIoctlDev;
  }
  return 0;
}

const char* access_name(PathAccess a) {
  switch (a) {
    case PathAccess::read: return "read";
    case PathAccess::read_exec: return "read+exec";
    case PathAccess::read_write: return "read+write";
    case PathAccess::device: return "device rw+ioctl";
  }
  return "?";
}

// --- seccomp ---------------------------------------------------------------------------------
#if defined(__x86_64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
#error "candidate containment: seccomp filter written for x86_64 and aarch64 only"
#endif

struct Named {
  long nr;
  const char* name;
};

// Killed outright (the runner's SIGSYS handler reports the call): process creation, program
// execution, debugging or reading another process.
const std::vector<Named>& trapped_calls() {
  static const std::vector<Named> v = {
#ifdef SYS_fork
      {SYS_fork, "fork"},
#endif
#ifdef SYS_vfork
      {SYS_vfork, "vfork"},
#endif
      {SYS_execve, "execve"},         {SYS_execveat, "execveat"},
      {SYS_ptrace, "ptrace"},         {SYS_process_vm_readv, "process_vm_readv"},
      {SYS_process_vm_writev, "process_vm_writev"},
  };
  return v;
}

// Refused with EPERM (a driver that tries them gets an error, not a dead process): network,
// other processes, kernel facilities a GPU kernel's host code never needs.
const std::vector<Named>& refused_calls() {
  static const std::vector<Named> v = {
      {SYS_socket, "socket"},         {SYS_socketpair, "socketpair"},   {SYS_connect, "connect"},
      {SYS_bind, "bind"},             {SYS_listen, "listen"},           {SYS_accept, "accept"},
      {SYS_accept4, "accept4"},       {SYS_tkill, "tkill"},             {SYS_pidfd_open, "pidfd_open"},
      {SYS_pidfd_send_signal, "pidfd_send_signal"},                     {SYS_pidfd_getfd, "pidfd_getfd"},
      {SYS_mount, "mount"},           {SYS_umount2, "umount2"},         {SYS_pivot_root, "pivot_root"},
      {SYS_chroot, "chroot"},         {SYS_unshare, "unshare"},         {SYS_setns, "setns"},
      {SYS_bpf, "bpf"},               {SYS_perf_event_open, "perf_event_open"},
      {SYS_userfaultfd, "userfaultfd"},                                 {SYS_keyctl, "keyctl"},
      {SYS_add_key, "add_key"},       {SYS_request_key, "request_key"}, {SYS_init_module, "init_module"},
      {SYS_finit_module, "finit_module"},                               {SYS_delete_module, "delete_module"},
      {SYS_kexec_load, "kexec_load"}, {SYS_reboot, "reboot"},           {SYS_io_uring_setup, "io_uring_setup"},
      {SYS_io_uring_enter, "io_uring_enter"},                           {SYS_io_uring_register, "io_uring_register"},
      {SYS_open_by_handle_at, "open_by_handle_at"},                     {SYS_name_to_handle_at, "name_to_handle_at"},
      {SYS_process_madvise, "process_madvise"},                         {SYS_kcmp, "kcmp"},
      {SYS_acct, "acct"},             {SYS_swapon, "swapon"},           {SYS_swapoff, "swapoff"},
#ifdef SYS_kexec_file_load
      {SYS_kexec_file_load, "kexec_file_load"},
#endif
  };
  return v;
}

sock_filter stmt(std::uint16_t code, std::uint32_t k) { return BPF_STMT(code, k); }
sock_filter jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
  return BPF_JUMP(code, k, jt, jf);
}

constexpr std::uint32_t kArg0Low = offsetof(seccomp_data, args[0]);  // little-endian: low half first
constexpr std::uint32_t kNr = offsetof(seccomp_data, nr);

std::vector<sock_filter> build_filter(pid_t self) {
  std::vector<sock_filter> f;
  const std::uint32_t kill = SECCOMP_RET_KILL_PROCESS, trap = SECCOMP_RET_TRAP, allow = SECCOMP_RET_ALLOW;
  const std::uint32_t eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0));
  f.push_back(stmt(BPF_RET | BPF_K, kill));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNr));
#if defined(__x86_64__)
  f.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // the x32 ABI: another table
  f.push_back(stmt(BPF_RET | BPF_K, kill));
#endif
  for (const auto& c : trapped_calls()) {
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(c.nr), 0, 1));
    f.push_back(stmt(BPF_RET | BPF_K, trap));
  }
  for (const auto& c : refused_calls()) {
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(c.nr), 0, 1));
    f.push_back(stmt(BPF_RET | BPF_K, eperm));
  }
  // clone3's flags live in memory the filter cannot read: ENOSYS makes glibc fall back to clone.
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
  // clone: threads (CLONE_THREAD, which the CUDA driver uses) only; a new process is trapped.
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
  f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, allow));
  f.push_back(stmt(BPF_RET | BPF_K, trap));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNr));
  // Signals go to this process only (kill(0) is its own process group: the runner leads one).
  for (long nr : {static_cast<long>(SYS_kill), static_cast<long>(SYS_tgkill), static_cast<long>(SYS_rt_sigqueueinfo),
                  static_cast<long>(SYS_rt_tgsigqueueinfo)}) {
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 6));
    f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(self), 2, 0));
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
    f.push_back(stmt(BPF_RET | BPF_K, eperm));
    f.push_back(stmt(BPF_RET | BPF_K, allow));
    f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kNr));
  }
  // The runner's SIGSYS handler reports trapped calls: replacing it is itself trapped... by a
  // kill, since a trap would go to the handler being replaced.
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 0, 4));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SIGSYS, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, kill));
  f.push_back(stmt(BPF_RET | BPF_K, allow));
  f.push_back(stmt(BPF_RET | BPF_K, allow));
  return f;
}

std::string describe_seccomp() {
  std::string s = "seccomp-bpf on all threads: killed with a report (SIGSYS): ";
  bool first = true;
  for (const auto& c : trapped_calls()) {
    s += (first ? "" : ", ") + std::string(c.name);
    first = false;
  }
  s += ", clone without CLONE_THREAD; killed: replacing the SIGSYS handler; refused (EPERM): ";
  first = true;
  for (const auto& c : refused_calls()) {
    s += (first ? "" : ", ") + std::string(c.name);
    first = false;
  }
  s += ", signals to other processes; clone3 -> ENOSYS (threads through clone)";
  return s;
}

std::uint64_t current_data_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmData:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024ull;
  }
  return 0;
}

void set_limit(int resource, rlim_t soft, rlim_t hard, const char* name, std::string& note) {
  rlimit cur{};
  getrlimit(resource, &cur);
  if (cur.rlim_max != RLIM_INFINITY) {
    hard = std::min(hard, cur.rlim_max);
    soft = std::min(soft, hard);
  }
  rlimit r{soft, hard};
  if (setrlimit(resource, &r) != 0) {
    throw WorkError(std::string("containment: setrlimit(") + name + ") failed: " + std::strerror(errno));
  }
  note += std::string(note.empty() ? "" : ", ") + name + "=" + std::to_string(soft);
}

}  // namespace

int landlock_abi_version() {
  const long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return v < 0 ? 0 : static_cast<int>(v);
}

std::string syscall_name(long nr) {
  for (const auto& c : trapped_calls()) {
    if (c.nr == nr) return c.name;
  }
  for (const auto& c : refused_calls()) {
    if (c.nr == nr) return c.name;
  }
  if (nr == SYS_clone) return "clone (a new process)";
  if (nr == SYS_rt_sigaction) return "rt_sigaction";
  return "";
}

std::vector<std::string> trapped_call_names() {
  std::vector<std::string> out;
  for (const auto& c : trapped_calls()) out.emplace_back(c.name);
  return out;
}

std::vector<std::string> refused_call_names() {
  std::vector<std::string> out;
  for (const auto& c : refused_calls()) out.emplace_back(c.name);
  return out;
}

Policy cuda_candidate_policy(const std::vector<std::string>& candidate_objects, const std::string& scratch_dir) {
  Policy p;
  // Libraries the driver and runtime may still load after initialization (ld.so's cache too).
  for (const char* d : {"/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/usr/local/cuda",
                        "/usr/local/nvidia", "/opt/nvidia", "/etc/ld.so.cache"}) {
    p.paths.push_back({d, PathAccess::read_exec});
  }
  // What the driver reads about the machine: its /proc/driver/nvidia, /proc/self, /sys/bus/pci.
  p.paths.push_back({"/proc", PathAccess::read});
  p.paths.push_back({"/sys", PathAccess::read});
  // The GPU's device nodes (opened again by the driver for new contexts and UVM).
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) p.paths.push_back({e.path().string(), PathAccess::device});
  }
  for (const char* d : {"/dev/null", "/dev/zero", "/dev/urandom"}) p.paths.push_back({d, PathAccess::device});
  // Under Nsight Compute the profiler's injection library (CUDA_INJECTION64_PATH) lives in its
  // install folder, and the profiler exchanges data through shared memory.
  if (const char* inj = std::getenv("CUDA_INJECTION64_PATH"); inj && *inj) {
    // <ncu>/target/<platform>/lib...so -> <ncu>; compute-sanitizer's sits one level lower.
    fs::path dir = fs::path(inj).parent_path();
    if (dir.has_parent_path() && dir.parent_path() != "/") dir = dir.parent_path();
    if (dir.has_parent_path() && dir.parent_path() != "/") dir = dir.parent_path();
    p.paths.push_back({dir.string(), PathAccess::read_exec});
    p.paths.push_back({"/dev/shm", PathAccess::read_write});
  }
  for (const auto& o : candidate_objects) p.paths.push_back({fs::absolute(o).string(), PathAccess::read_exec});
  if (!scratch_dir.empty()) p.paths.push_back({scratch_dir, PathAccess::read_write});
  p.file_size_bytes = 1ull << 30;
  return p;
}

Policy apply_environment_switch(Policy policy, std::string* note) {
  const char* v = std::getenv("VXSYNTH_CANDIDATE_CONTAINMENT");
  const std::string s = v ? v : "on";
  if (s == "off") {
    policy.seccomp = policy.landlock = false;
  } else if (s == "no-landlock") {
    policy.landlock = false;
  } else if (s == "no-seccomp") {
    policy.seccomp = false;
  } else if (s != "on" && !s.empty()) {
    throw InputError("VXSYNTH_CANDIDATE_CONTAINMENT is '" + s + "': expected on, off, no-landlock or no-seccomp");
  }
  if (note && s != "on" && !s.empty()) {
    *note = "WARNING: VXSYNTH_CANDIDATE_CONTAINMENT=" + s + " weakens the candidate process's containment";
  }
  return policy;
}

Report apply(const Policy& policy) {
  Report rep;
  // rlimits first: they need no privilege and must hold whatever else fails.
  std::string lim;
  set_limit(RLIMIT_CORE, 0, 0, "RLIMIT_CORE", lim);
  if (policy.cpu_seconds > 0) {
    const auto s = static_cast<rlim_t>(policy.cpu_seconds);
    set_limit(RLIMIT_CPU, s, s + 5, "RLIMIT_CPU", lim);  // SIGXCPU at s, SIGKILL at s + 5
  }
  if (policy.data_bytes_above_now > 0) {
    const rlim_t d = current_data_bytes() + policy.data_bytes_above_now;
    set_limit(RLIMIT_DATA, d, d, "RLIMIT_DATA", lim);
  }
  if (policy.file_size_bytes > 0) set_limit(RLIMIT_FSIZE, policy.file_size_bytes, policy.file_size_bytes, "RLIMIT_FSIZE", lim);
  rep.rlimits = lim;

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    throw WorkError(std::string("containment: PR_SET_NO_NEW_PRIVS failed: ") + std::strerror(errno));
  }

  rep.landlock_abi = landlock_abi_version();
  if (!policy.landlock) {
    rep.landlock = "not applied: switched off (VXSYNTH_CANDIDATE_CONTAINMENT)";
  } else if (rep.landlock_abi <= 0) {
    rep.landlock = std::string("not applied: this kernel has no Landlock (landlock_create_ruleset: ") +
                   std::strerror(errno) + "); file access is limited by seccomp and rlimits only";
  } else {
    const int abi = rep.landlock_abi;
    RulesetAttr attr{};
    attr.handled_access_fs = fs_rights_of(abi);
    std::size_t attr_size = sizeof(std::uint64_t);
    if (abi >= 4) {
      attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // no rule: no TCP at all
      attr_size = 2 * sizeof(std::uint64_t);
    }
    if (abi >= 6) {
      attr.scoped = kScopeAbstractUnix | kScopeSignal;
      attr_size = sizeof(RulesetAttr);
    }
    const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
    if (ruleset < 0) throw WorkError(std::string("containment: landlock_create_ruleset failed: ") + std::strerror(errno));
    std::string rules;
    for (const auto& r : policy.paths) {
      const int fd = open(r.path.c_str(), O_PATH | O_CLOEXEC);
      if (fd < 0) {
        rep.skipped_paths.push_back(r.path);
        continue;
      }
      struct stat st{};
      fstat(fd, &st);
      PathBeneathAttr pb{};
      pb.allowed_access = rights_for(r.access) & attr.handled_access_fs;
      if (!S_ISDIR(st.st_mode)) pb.allowed_access &= ~kDirOnly;
      if (!S_ISCHR(st.st_mode) && !S_ISDIR(st.st_mode)) pb.allowed_access &= ~kFsIoctlDev;
      pb.parent_fd = fd;
      const long rc = syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &pb, 0);
      const int err = errno;
      close(fd);
      if (rc != 0) {
        close(ruleset);
        throw WorkError("containment: landlock_add_rule(" + r.path + ") failed: " + std::strerror(err));
      }
      rules += std::string(rules.empty() ? "" : "; ") + r.path + " (" + access_name(r.access) + ")";
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
      const int err = errno;
      close(ruleset);
      throw WorkError(std::string("containment: landlock_restrict_self failed: ") + std::strerror(err));
    }
    close(ruleset);
    rep.landlock_applied = true;
    rep.landlock = "Landlock ABI " + std::to_string(abi) + " on the candidate's thread and its descendants: " +
                   "files outside the allowlist denied" + (abi >= 4 ? ", TCP bind/connect denied" : "") +
                   (abi >= 6 ? ", signals and abstract UNIX sockets scoped to this process" : "") +
                   (abi < 5 ? " (ioctl on devices not restricted before ABI 5)" : "") + "; allowed: " + rules;
  }

  if (!policy.seccomp) {
    rep.seccomp = "not applied: switched off (VXSYNTH_CANDIDATE_CONTAINMENT)";
  } else {
    auto filter = build_filter(getpid());
    sock_fprog prog{static_cast<unsigned short>(filter.size()), filter.data()};
    // TSYNC: every thread of the process (the CUDA driver's too) gets the filter.
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
      throw WorkError(std::string("containment: seccomp(SECCOMP_SET_MODE_FILTER) failed: ") + std::strerror(errno));
    }
    rep.seccomp_applied = true;
    rep.seccomp = describe_seccomp();
  }
  return rep;
}

std::string Report::text() const {
  std::ostringstream s;
  s << "seccomp: " << (seccomp_applied ? "applied" : "NOT applied") << " (" << seccomp << ")\n"
    << "landlock: " << (landlock_applied ? "applied" : "NOT applied") << " (kernel ABI " << landlock_abi << "; "
    << landlock << ")\n"
    << "rlimits: " << rlimits << "\n";
  if (!skipped_paths.empty()) {
    s << "allowlisted paths absent here:";
    for (const auto& p : skipped_paths) s << " " << p;
    s << "\n";
  }
  return s.str();
}

Json Report::to_json() const {
  return {{"seccomp_applied", seccomp_applied}, {"seccomp", seccomp},   {"landlock_abi", landlock_abi},
          {"landlock_applied", landlock_applied}, {"landlock", landlock}, {"rlimits", rlimits},
          {"skipped_paths", skipped_paths}};
}

}  // namespace vxsynth::gpu::isolation
