// The candidate process's isolation without a GPU (label cuda-host): the runner protocol, the
// kernel-enforced containment (seccomp, Landlock, rlimits), the timeout, and the parent's own
// checks, with host-side candidates that cheat through raw system calls (cpu_candidates/).
#include <gtest/gtest.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <algorithm>
#include <random>

#include "gpu/candidate_build.h"
#include "gpu/elf_inspect.h"
#include "gpu/isolation/channel.h"
#include "gpu/isolation/containment.h"
#include "gpu/isolation/runner_client.h"
#include "gpu/sandbox.h"
#include "../test_util.h"

namespace fs = std::filesystem;

namespace vxsynth::gpu::isolation {
namespace {

using testing::read_text;
using testing::TempDir;

std::string object(const std::string& cheat) { return std::string(VXSYNTH_CPU_CANDIDATES) + "/vxcpu_" + cheat + ".so"; }

// A linear fp32 problem of odd size, inputs from a seed, and the parent's reference and check.
struct Linear {
  vxsynth_problem p{};
  std::vector<float> a, b, bias, expected, poison;
  explicit Linear(std::uint32_t seed, long m = 7, long n = 13, long k = 33) {
    p.abi_version = VXSYNTH_CANDIDATE_ABI_VERSION;
    p.op_kind = VXSYNTH_OP_LINEAR;
    p.dtype = VXSYNTH_DTYPE_FP32;
    p.precision = VXSYNTH_PRECISION_FP32;
    p.has_bias = 1;
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch_count = 1;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a.resize(m * k);
    b.resize(n * k);
    bias.resize(n);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
    for (auto& x : bias) x = u(rng);
    expected.resize(m * n);
    for (long i = 0; i < m; ++i) {
      for (long j = 0; j < n; ++j) {
        double s = bias[j];
        for (long q = 0; q < k; ++q) s += static_cast<double>(a[i * k + q]) * b[j * k + q];
        expected[i * n + j] = static_cast<float>(s);
      }
    }
    poison.assign(m * n, std::nanf("0x7fc0de"));
  }
  RunnerLaunch launch(int candidate) const {
    RunnerLaunch r;
    r.candidate = candidate;
    r.problem = p;
    r.inputs = {{a.data(), a.size() * 4}, {b.data(), b.size() * 4}, {bias.data(), bias.size() * 4}};
    r.has_bias = true;
    r.poison = poison.data();
    r.out_bytes = expected.size() * 4;
    return r;
  }
  // The parent's comparison; `from` skips the elements a cheat used to report an errno.
  std::size_t wrong(const std::uint8_t* out, std::size_t from = 0) const {
    std::size_t bad = 0;
    const auto* y = reinterpret_cast<const float*>(out);
    for (std::size_t i = from; i < expected.size(); ++i) {
      if (!(std::fabs(y[i] - expected[i]) <= 1e-4f * (1 + std::fabs(expected[i])))) ++bad;
    }
    return bad;
  }
};

RunnerOptions options(const TempDir& dir, std::vector<std::string> cheats, double timeout = 30) {
  RunnerOptions o;
  o.program = VXSYNTH_CPU_RUNNER;
  for (const auto& c : cheats) o.objects.push_back(object(c));
  o.scratch_dir = dir / "runner";
  o.request_timeout_seconds = timeout;
  o.data_gib = 4;
  return o;
}

TEST(Isolation, HonestCandidateRunsContainedAndItsReportSaysWhatWasApplied) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"honest", "threads"}));
  for (int c = 0; c < 2; ++c) {
    for (std::uint32_t seed : {1u, 2u}) {
      const Linear lin(seed + 10 * c);
      const auto r = client.launch(lin.launch(c));
      ASSERT_TRUE(r.ok) << r.failure;
      EXPECT_EQ(r.rc, 0);
      EXPECT_TRUE(r.violations.empty());
      EXPECT_EQ(lin.wrong(r.out), 0u) << "candidate " << c << " seed " << seed;
    }
  }
  EXPECT_EQ(client.starts(), 1) << "one runner for the whole batch";
  const Json& rep = client.containment();
  EXPECT_TRUE(rep.value("seccomp_applied", false)) << rep.dump(2);
  // Landlock: applied when the kernel has it, and never silently missing.
  EXPECT_EQ(rep.value("landlock_applied", false), landlock_abi_version() > 0) << rep.dump(2);
  EXPECT_FALSE(rep.value("landlock", std::string()).empty());
  EXPECT_NE(rep.value("rlimits", std::string()).find("RLIMIT_DATA"), std::string::npos);
  EXPECT_NE(read_text(dir / "runner/runner.log").find("seccomp: applied"), std::string::npos);
}

TEST(Isolation, LinkCheckAdmitsTheRawSyscallCheatsSoOnlyTheKernelCanStopThem) {
  for (const char* c : {"raw_open", "raw_exec", "raw_fork", "raw_socket", "raw_ptrace", "read_parent_memory"}) {
    const auto v = check_sandbox(inspect_elf(object(c)));
    EXPECT_TRUE(v.ok()) << c << ": " << v.describe(c);
  }
}

TEST(Isolation, ReadingAReferenceFileThroughARawOpenIsDenied) {
  if (landlock_abi_version() <= 0) GTEST_SKIP() << "this kernel has no Landlock: file reads are not contained here";
  TempDir dir("iso");
  const Linear lin(3);
  const std::string secret = dir / "y_vendor.raw";
  testing::write_text(secret, std::string(reinterpret_cast<const char*>(lin.expected.data()), lin.expected.size() * 4));
  setenv("VXSYNTH_TEST_SECRET", secret.c_str(), 1);
  RunnerClient client(options(dir, {"raw_open"}));
  const auto r = client.launch(lin.launch(0));
  unsetenv("VXSYNTH_TEST_SECRET");
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(reinterpret_cast<const float*>(r.out)[0], static_cast<float>(-EACCES)) << "the open was not refused";
  EXPECT_EQ(lin.wrong(r.out, 1), 0u);
}

TEST(Isolation, PlantingAFileThroughARawOpenIsDenied) {
  if (landlock_abi_version() <= 0) GTEST_SKIP() << "this kernel has no Landlock: file writes are not contained here";
  TempDir dir("iso");
  const std::string planted = dir / "planted";
  setenv("VXSYNTH_TEST_SECRET", planted.c_str(), 1);
  RunnerClient client(options(dir, {"raw_open_write"}));
  const auto r = client.launch(Linear(4).launch(0));
  unsetenv("VXSYNTH_TEST_SECRET");
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(reinterpret_cast<const float*>(r.out)[0], static_cast<float>(-EACCES));
  EXPECT_FALSE(fs::exists(planted));
}

// Each of these dies by the kernel's hand, the reason names the system call, and the next
// candidate of the batch still runs (in a fresh runner).
TEST(Isolation, ProcessCreationDebuggingAndReadingTheParentAreKilledWithTheCallNamed) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"raw_exec", "raw_fork", "raw_ptrace", "read_parent_memory", "write_parent_memory",
                                     "replace_sigsys", "raw_clone", "honest"}));
  const std::vector<std::pair<int, std::string>> expect = {{0, "execve"},           {1, "fork"},
                                                           {2, "ptrace"},           {3, "process_vm_readv"},
                                                           {4, "process_vm_writev"}, {5, "SIGSYS"},
                                                           {6, "clone (a new process)"}};
  for (const auto& [c, word] : expect) {
    const auto r = client.launch(Linear(5).launch(c));
    EXPECT_FALSE(r.ok) << "candidate " << c << " was not stopped";
    EXPECT_NE(r.failure.find(word), std::string::npos) << r.failure;
    EXPECT_NE(r.failure.find("seccomp"), std::string::npos) << r.failure;
  }
  const Linear lin(6);
  const auto r = client.launch(lin.launch(7));
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(lin.wrong(r.out), 0u);
  EXPECT_EQ(client.starts(), 8);
}

// The filter's lists, whole: a call dropped from either (or moved from killed to refused) fails
// here, and every killed call is named in docs/gpu.md's threat model.
TEST(Isolation, TheTrappedAndRefusedCallListsAreComplete) {
  std::vector<std::string> trapped = {"execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev"};
#ifdef SYS_fork
  trapped.insert(trapped.begin(), "fork");
#endif
#ifdef SYS_vfork
  trapped.insert(trapped.begin() + 1, "vfork");
#endif
  EXPECT_EQ(trapped_call_names(), trapped);
  std::vector<std::string> refused = {
      "socket",          "socketpair",        "connect",        "bind",           "listen",
      "accept",          "accept4",           "tkill",          "pidfd_open",     "pidfd_send_signal",
      "pidfd_getfd",     "mount",             "umount2",        "pivot_root",     "chroot",
      "unshare",         "setns",             "bpf",            "perf_event_open", "userfaultfd",
      "keyctl",          "add_key",           "request_key",    "init_module",    "finit_module",
      "delete_module",   "kexec_load",        "reboot",         "io_uring_setup", "io_uring_enter",
      "io_uring_register", "open_by_handle_at", "name_to_handle_at", "process_madvise", "kcmp",
      "acct",            "swapon",            "swapoff"};
#ifdef SYS_kexec_file_load
  refused.push_back("kexec_file_load");
#endif
  EXPECT_EQ(refused_call_names(), refused);
  const std::string doc = read_text("../docs/gpu.md");
  for (const auto& name : trapped) EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name << " not in docs/gpu.md";
  // Numbers and names agree (the runner's report names the call from its number).
  EXPECT_EQ(syscall_name(SYS_process_vm_writev), "process_vm_writev");
  EXPECT_EQ(syscall_name(SYS_execveat), "execveat");
  EXPECT_EQ(syscall_name(SYS_kcmp), "kcmp");
}

TEST(Isolation, ASharedObjectConstructorCannotRunBeforeContainment) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"ctor_exec"}));
  const std::string why = client.load(0);
  EXPECT_NE(why.find("execve"), std::string::npos) << why;
}

TEST(Isolation, NetworkAndSignalsToOtherProcessesAreRefused) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"raw_socket", "signal_parent"}));
  for (int c = 0; c < 2; ++c) {
    const Linear lin(7);
    const auto r = client.launch(lin.launch(c));
    ASSERT_TRUE(r.ok) << r.failure;
    EXPECT_EQ(reinterpret_cast<const float*>(r.out)[0], static_cast<float>(-EPERM)) << "candidate " << c;
    EXPECT_EQ(lin.wrong(r.out, 1), 0u);
  }
}

TEST(Isolation, ACachedOutputPassesOnceAndFailsOnFreshInputs) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"cached"}));
  const Linear first(8), second(9);
  const auto r1 = client.launch(first.launch(0));
  ASSERT_TRUE(r1.ok) << r1.failure;
  EXPECT_EQ(first.wrong(r1.out), 0u);
  const auto r2 = client.launch(second.launch(0));
  ASSERT_TRUE(r2.ok) << r2.failure;
  EXPECT_GT(second.wrong(r2.out), 0u) << "fresh inputs must expose the cached answer";
}

TEST(Isolation, WritesOutsideTheOutputAndIntoTheInputsAreReported) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"oob_write", "writes_input"}));
  const auto r1 = client.launch(Linear(10).launch(0));
  ASSERT_TRUE(r1.ok) << r1.failure;
  ASSERT_EQ(r1.violations.size(), 1u);
  EXPECT_NE(r1.violations[0].find("outside its output"), std::string::npos);
  const auto r2 = client.launch(Linear(11).launch(1));
  ASSERT_TRUE(r2.ok) << r2.failure;
  ASSERT_EQ(r2.violations.size(), 1u);
  EXPECT_NE(r2.violations[0].find("input 0"), std::string::npos);
}

TEST(Isolation, ACandidateThatNeverReturnsIsKilledAtTheTimeoutAndTheBatchGoesOn) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"spin", "honest"}, 2.0));
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = client.launch(Linear(12).launch(0));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("did not finish within 2 s"), std::string::npos) << r.failure;
  EXPECT_LT(s, 10.0);
  const Linear lin(13);
  const auto r2 = client.launch(lin.launch(1));
  ASSERT_TRUE(r2.ok) << r2.failure;
  EXPECT_EQ(lin.wrong(r2.out), 0u);
}

TEST(Isolation, TheCpuTimeLimitEndsASpinningCandidate) {
  TempDir dir("iso");
  RunnerOptions o = options(dir, {"spin"}, 60.0);
  o.cpu_seconds = 1;
  RunnerClient client(o);
  const auto r = client.launch(Linear(14).launch(0));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("CPU time"), std::string::npos) << r.failure;
}

TEST(Isolation, TheCandidatesPrintsGoToTheRunnerLogNotToTheHarnessOutput) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"fake_stdout"}));
  const auto r = client.launch(Linear(15).launch(0));
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_NE(read_text(dir / "runner/runner.log").find("PASSED!"), std::string::npos);
}

TEST(Isolation, TensorsLargerThanTheFirstSharedBufferGetANewOne) {
  TempDir dir("iso");
  RunnerClient client(options(dir, {"honest"}));
  const Linear small(16), large(17, 300, 257, 1031);  // ~2.2 MB of inputs: past the first 1 MiB
  for (const Linear* lin : {&small, &large, &small}) {
    const auto r = client.launch(lin->launch(0));
    ASSERT_TRUE(r.ok) << r.failure;
    EXPECT_EQ(lin->wrong(r.out), 0u);
  }
  EXPECT_EQ(client.starts(), 1);
}

TEST(Isolation, ChannelPiecesAndTheEnvironmentSwitch) {
  vxsynth_problem p{};
  p.m = 123456789;
  p.groups = -3;
  vxsynth_problem q{};
  from_hex(to_hex(&p, sizeof p), &q, sizeof q);
  EXPECT_EQ(q.m, p.m);
  EXPECT_EQ(q.groups, p.groups);
  EXPECT_THROW(from_hex("abc", &q, sizeof q), WorkError);
  setenv("VXSYNTH_CANDIDATE_CONTAINMENT", "sometimes", 1);
  EXPECT_THROW(apply_environment_switch(Policy{}, nullptr), InputError);
  setenv("VXSYNTH_CANDIDATE_CONTAINMENT", "no-landlock", 1);
  std::string note;
  const Policy weak = apply_environment_switch(Policy{}, &note);
  EXPECT_FALSE(weak.landlock);
  EXPECT_TRUE(weak.seccomp);
  EXPECT_NE(note.find("WARNING"), std::string::npos);
  unsetenv("VXSYNTH_CANDIDATE_CONTAINMENT");
  EXPECT_EQ(syscall_name(SYS_execve), "execve");
}

// The GPU red team (tests/gpu/candidates/redteam, run on the H200 by the label-gpu tests)
// compiles here, and the link-level check admits every one of them: what catches them is the
// process isolation, the containment and the checks, not the link check.
TEST(Isolation, GpuRedTeamCandidatesBuildAndPassTheLinkCheck) {
  VXSYNTH_REQUIRE_NVCC();
  TempDir dir("iso-red");
  std::vector<std::string> sources;
  for (const auto& e : fs::directory_iterator(VXSYNTH_REDTEAM_DIR)) {
    if (e.path().extension() == ".cu") sources.push_back(e.path().string());
  }
  std::sort(sources.begin(), sources.end());
  ASSERT_EQ(sources.size(), 8u);
  BuildOptions bo;
  bo.cache_dir = dir / "cache";
  for (const auto& r : build_candidates(sources, bo, 2)) {
    ASSERT_TRUE(r.error.empty()) << r.source << ": " << r.error;
    const auto v = check_sandbox(inspect_elf(r.shared_object));
    EXPECT_TRUE(v.ok()) << v.describe(r.source);
  }
}

}  // namespace
}  // namespace vxsynth::gpu::isolation
