// Tests that need an NVIDIA GPU (CTest label "gpu": `make test-gpu` on the GPU machine). They
// drive `vxsynth gpu run/profile` as a user would, on odd shapes with fresh seeds, and read
// the files it writes. Without a device each test is skipped, visibly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "codegen/emit.h"
#include "common/json_io.h"
#include "design/seed.h"
#include "gpu/device_probe.h"
#include "gpu/job.h"
#include "signature/distance.h"
#include "signature/signature.h"
#include "ops/op_spec.h"
#include "test_util.h"

namespace vxsynth::gpu {
namespace {

using testing::run_cli;
using testing::TempDir;

const std::string kC = "gpu/candidates/";
const std::string kSmall = "data/gpu/small/";

class GpuDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto probe = probe_cuda_device();
    if (!probe.present) GTEST_SKIP() << "no CUDA device is present (" << probe.detail << ")";
    env_ = {"VXSYNTH_CACHE_DIR=" + (scratch_ / "cache")};
  }
  testing::CliRun cli(std::vector<std::string> args) { return run_cli(args, scratch_.path(), env_); }
  TempDir scratch_{"gpu-device"};
  std::vector<std::string> env_;
};

std::vector<std::string> small_ops() {
  std::vector<std::string> ops;
  for (const auto& e : std::filesystem::directory_iterator(kSmall)) ops.push_back(e.path().string());
  std::sort(ops.begin(), ops.end());
  return ops;
}

TEST_F(GpuDevice, GoodCandidatesMatchTheVendorOperatorOnOddShapes) {
  std::vector<std::string> args = {"gpu", "run", "--out", scratch_ / "run", "--cpu-check", "on", "--op"};
  for (const auto& op : small_ops()) args.push_back(op);
  args.push_back("--candidate");
  for (const char* c : {"linear_naive", "linear_tiled", "linear_wmma", "matmul_tiled", "conv_implicit_gemm"}) {
    args.push_back(kC + c + ".cu");
  }
  const auto r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto result = read_job_result(scratch_ / "run/result.json");
  int passed = 0;
  std::set<std::string> ops_with_cpu_check;
  for (const auto& c : result.checks) {
    EXPECT_TRUE(c.status == "passed" || c.status == "unsupported") << c.candidate << " on " << c.op << ": " << c.status;
    passed += c.status == "passed";
    if (!c.vendor_vs_cpu.is_null()) {
      EXPECT_EQ(c.vendor_vs_cpu["failed"], 0) << "vendor vs CPU reference on " << c.op << ": " << c.vendor_vs_cpu.dump();
      ops_with_cpu_check.insert(c.op);
    }
  }
  EXPECT_EQ(passed, 10);  // 2 fp32 linears x 2 candidates, bf16 linear x 3, matmul x 1, two convs x 1
  EXPECT_EQ(ops_with_cpu_check.size(), small_ops().size());
  ASSERT_EQ(result.vendors.size(), small_ops().size());
  for (const auto& v : result.vendors) {
    EXPECT_FALSE(v.kernels.empty()) << v.op << ": " << v.kernels_note;  // CUPTI named the vendor kernels
  }
  // Inputs and both outputs are written as tensor files.
  EXPECT_TRUE(std::filesystem::exists(scratch_ / "run/linear_tiled@lin_fp32_small/y_vendor.tensor"));
  EXPECT_TRUE(std::filesystem::exists(scratch_ / "run/linear_tiled@lin_fp32_small/y_candidate.tensor"));
  EXPECT_TRUE(std::filesystem::exists(scratch_ / "run/linear_tiled@lin_fp32_small/x.tensor"));
}

TEST_F(GpuDevice, PoisonedOutputExposesUnwrittenElements) {
  const auto r = cli({"gpu", "run", "--out", scratch_ / "skip", "--op", kSmall + "lin_fp32_small.json", "--candidate",
                      kC + "bad/skips_last_row.cu"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto result = read_job_result(scratch_ / "skip/result.json");
  ASSERT_EQ(result.checks.size(), 1u);
  EXPECT_EQ(result.checks[0].status, "failed");
  EXPECT_EQ(result.checks[0].equivalence["unwritten"], 53);  // the last row, N = 53
}

TEST_F(GpuDevice, WrongResultFailsTheCheck) {
  const auto r = cli({"gpu", "run", "--out", scratch_ / "wrong", "--op", kSmall + "lin_fp32_small.json", "--candidate",
                      kC + "bad/wrong_transpose.cu"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto result = read_job_result(scratch_ / "wrong/result.json");
  ASSERT_EQ(result.checks.size(), 1u);
  EXPECT_EQ(result.checks[0].status, "failed");
  EXPECT_GT(result.checks[0].equivalence["failed"].get<long long>(), 1000);
}

TEST_F(GpuDevice, SandboxRejectsBeforeAnythingRuns) {
  const auto r = cli({"gpu", "run", "--out", scratch_ / "cublas", "--op", kSmall + "lin_fp32_small.json",
                      "--candidate", kC + "bad/calls_cublas.cu"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("rejected (vendor-symbol): cublasCreate_v2"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(scratch_ / "cublas/result.json"));
}

TEST_F(GpuDevice, MemcheckCatchesAnOutOfBoundsReadThatEquivalenceCannot) {
  const auto bad = cli({"gpu", "run", "--memcheck", "--out", scratch_ / "oob", "--op", kSmall + "lin_fp32_small.json",
                        "--candidate", kC + "bad/reads_past_input.cu"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("memcheck found memory errors"), std::string::npos) << bad.output;
  // (The sanitizer makes the faulting launch return an error, so the harness stops there; without
  // --memcheck the same candidate passes: its outputs are right.)
  EXPECT_NE(testing::read_text(scratch_ / "oob/memcheck.log").find("Invalid __global__ read"), std::string::npos);

  const auto plain = cli({"gpu", "run", "--out", scratch_ / "plain", "--op", kSmall + "lin_fp32_small.json",
                          "--candidate", kC + "bad/reads_past_input.cu"});
  EXPECT_EQ(plain.exit_code, 0) << plain.output;

  const auto good = cli({"gpu", "run", "--memcheck", "--out", scratch_ / "ok", "--op", kSmall + "lin_fp32_small.json",
                         "--candidate", kC + "linear_tiled.cu"});
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_NE(good.output.find("memcheck: no errors"), std::string::npos) << good.output;
}

TEST_F(GpuDevice, FreshSeedsGiveFreshInputs) {
  for (const char* seed : {"1", "2"}) {
    const auto r = cli({"gpu", "run", "--out", scratch_ / (std::string("s") + seed), "--seed", seed, "--op",
                        kSmall + "lin_fp32_small.json", "--candidate", kC + "linear_tiled.cu"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const auto a = testing::read_text(scratch_ / "s1/linear_tiled@lin_fp32_small/x.tensor");
  const auto b = testing::read_text(scratch_ / "s2/linear_tiled@lin_fp32_small/x.tensor");
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a, b);
}

TEST_F(GpuDevice, ProfileWritesOneSignaturePerCandidateAndTheDistance) {
  const auto r = cli({"gpu", "profile", "--out", scratch_ / "prof", "--with-reference", "--repeat", "2", "--op",
                      kSmall + "lin_fp32_small.json", kSmall + "conv2d_tf32_small.json", "--candidates",
                      kC + "linear_tiled.cu", kC + "conv_implicit_gemm.cu"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* seg : {"linear_tiled@lin_fp32_small", "conv_implicit_gemm@conv2d_tf32_small",
                          "reference@lin_fp32_small", "reference@conv2d_tf32_small"}) {
    const auto path = scratch_ / (std::string("prof/signatures/") + seg + ".json");
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    const Json j = read_json_file(path);
    EXPECT_EQ(j["schema"], "vxsynth.signature/1");
    EXPECT_EQ(j["kernels"].size(), 2u);  // one per repeat
  }
  const Json summary = read_json_file(scratch_ / "prof/profile-summary.json");
  EXPECT_EQ(summary["mapping"], "stream id");
  int with_d = 0;
  for (const auto& s : summary["segments"]) {
    if (s["candidate"] == "reference") continue;
    ASSERT_TRUE(s.contains("d_to_reference")) << s.dump();
    // D of repeat i is exactly the distance between the two signature files' kernels i.
    const std::string seg = s["segment"].get<std::string>();
    const auto cand = signature::read_signatures(scratch_ / ("prof/signatures/" + seg + ".json"));
    const auto ref = signature::read_signatures(scratch_ / ("prof/signatures/reference@" + s["op"].get<std::string>() + ".json"));
    ASSERT_EQ(s["d_to_reference"].size(), 2u);
    ASSERT_EQ(cand.size(), 2u);
    ASSERT_EQ(ref.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      const auto d = signature::compute_distance(cand[i].values, ref[i].values, signature::DistanceConfig{}).d;
      ASSERT_TRUE(d.has_value());
      EXPECT_DOUBLE_EQ(s["d_to_reference"][i].get<double>(), *d) << seg << " repeat " << i;
      EXPECT_GT(*d, 0.0);  // a hand-written candidate is not the vendor kernel
    }
    ++with_d;
  }
  EXPECT_EQ(with_d, 2);
  EXPECT_TRUE(std::filesystem::exists(scratch_ / "prof/ncu-raw.csv"));
}

// Every precision path at the suite's real shapes and K (suite/vx-robotics/h200/*/reference.json:
// fp32 SIMT linears with K = 512 and 3200, tf32 convs with K = 4608 (tensor-core seed) and
// 10240/20480 (SIMT seeds, fp32 operands against cuDNN's TF32), bf16 GEMMs with K up to 2048):
// the generated seed candidate of each benchmark and the hand-written candidate of its op kind
// against the vendor operator. The small ops above have K <= 150, where the tf32 check once
// passed a plain fp32 result that it rejected at K = 4608.
TEST_F(GpuDevice, SuiteSeedsAndHandWrittenCandidatesPassAtTheRealK) {
  const std::filesystem::path suite = "../suite/vx-robotics/h200";
  std::vector<std::filesystem::path> benches;
  for (const auto& e : std::filesystem::directory_iterator(suite)) {
    if (std::filesystem::exists(e.path() / "reference.json")) benches.push_back(e.path());
  }
  std::sort(benches.begin(), benches.end());
  ASSERT_EQ(benches.size(), 15u);
  std::set<std::string> paths_passed;
  std::printf("%-28s %-22s %-6s %7s %-7s %10s %10s %9s %9s\n", "benchmark", "candidate", "path", "K", "status",
              "max |d|", "atol", "worst/allowed", "bias/lim");
  for (const auto& bench : benches) {
    const std::string name = bench.filename().string();
    SCOPED_TRACE(name);
    const std::string ref = (bench / "reference.json").string();
    // The served op: diffusion_policy-1/-3/-4/-5 are layout transforms of their conv1d (tested
    // below); here the convs' tf32 check at the real K is the point.
    const ops::OpSpec spec = design::op_spec_from_reference(read_json_file(ref), ref, true);
    const std::string op_file = scratch_ / (name + ".json");
    ops::write_op_spec(op_file, spec);
    const design::DesignPoint seed = design::seed_from_reference(ref, true);
    const std::string seed_cu = scratch_ / (name + "-seed.cu");
    std::ofstream(seed_cu) << codegen::emit_cuda(seed);
    std::vector<std::string> candidates = {seed_cu};
    switch (spec.kind) {
      case ops::OpKind::linear:
        candidates.push_back(kC + "linear_tiled.cu");
        if (spec.precision == ops::PrecisionPath::bf16) candidates.push_back(kC + "linear_wmma.cu");
        break;
      case ops::OpKind::matmul: candidates.push_back(kC + "matmul_tiled.cu"); break;
      case ops::OpKind::conv1d:
      case ops::OpKind::conv2d: candidates.push_back(kC + "conv_implicit_gemm.cu"); break;  // fp32 FFMA
      case ops::OpKind::layout_transform: break;
    }
    std::vector<std::string> args = {"gpu", "run", "--out", scratch_ / name, "--seed", "7", "--no-tensors", "--op",
                                     op_file, "--candidate"};
    args.insert(args.end(), candidates.begin(), candidates.end());
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const auto result = read_job_result(scratch_ / (name + "/result.json"));
    EXPECT_EQ(result.checks.size(), candidates.size());
    for (const auto& c : result.checks) {
      const Json& e = c.equivalence;
      auto num = [&](const char* key) { return e.contains(key) && e[key].is_number() ? e[key].get<double>() : -1.0; };
      const double bias = num("bias_limit") > 0 ? num("bias_slope") / num("bias_limit") : 0.0;
      std::printf("%-28s %-22s %-6s %7lld %-7s %10.3g %10.3g %9.3g %9.3g\n", name.c_str(),
                  std::filesystem::path(c.candidate).stem().string().substr(0, 22).c_str(),
                  ops::to_string(spec.precision).c_str(), static_cast<long long>(spec.reduction_length()),
                  c.status.c_str(), num("max_abs_error"), num("atol"), num("worst_ratio"), bias);
      const bool generated = c.candidate.find("-seed") != std::string::npos;
      if (generated || c.candidate.find("conv_implicit_gemm") != std::string::npos) {
        EXPECT_EQ(c.status, "passed") << c.candidate << " on " << name << ": " << c.message << " " << e.dump();
      } else {
        EXPECT_TRUE(c.status == "passed" || c.status == "unsupported") << c.candidate << ": " << e.dump();
      }
      if (c.status == "passed") paths_passed.insert(ops::to_string(spec.precision));
    }
  }
  EXPECT_EQ(paths_passed, (std::set<std::string>{"bf16", "fp32", "tf32"}));  // the suite uses no fp16
}

// The layout-transform family against cuDNN's own re-layout (cudnnTransformTensor): generated
// candidates (seeds, a vectorised, a direct and a uniform-branch design) on odd shapes of every
// precision and both directions must match bit for bit; a candidate that skips a tile is caught
// as unwritten; CUPTI names the cuDNN kernel.
TEST_F(GpuDevice, LayoutTransformCandidatesMatchCudnnBitForBit) {
  const std::string t = "data/gpu/transform/";
  struct Gen {
    std::string name, shape, dtype, layout, tensor;
    std::vector<std::string> set;
  };
  const std::vector<Gen> gens = {
      {"fp32_nchw", "N=3,C=37,H=5,W=9", "fp32", "nchw", "activation", {}},
      {"fp32_nchw_direct", "N=3,C=37,H=5,W=9", "fp32", "nchw", "activation",
       {"shared_staging=none", "lane_b=reversed", "boundary=uniform_branch"}},
      {"bf16_nhwc", "N=2,C=64,H=6,W=8", "bf16", "nhwc", "activation", {}},
      {"bf16_nhwc_vec", "N=2,C=64,H=6,W=8", "bf16", "nhwc", "activation",
       {"register_tile=2x2", "read_once=read_only", "scale=none"}},
      {"fp16_ncl", "N=5,C=24,L=5", "fp16", "ncl", "weight", {}},
      {"fp32_dpw", "N=64,C=96,L=5", "fp32", "ncl", "weight", {"k_range=fixed", "lane_a=reversed"}},
  };
  std::vector<std::string> candidates;
  for (const auto& g : gens) {
    std::vector<std::string> args = {"gen", "--op", "layout_transform", "--shape", g.shape, "--dtype", g.dtype,
                                     "--layout", g.layout, "--tensor", g.tensor, "--block", "256",
                                     "--out", scratch_ / ("gen_" + g.name)};
    for (const auto& s : g.set) {
      args.push_back("--set");
      args.push_back(s);
    }
    const auto r = cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string cu = scratch_ / (g.name + ".cu");
    std::filesystem::copy_file(scratch_ / ("gen_" + g.name + "/cuda/candidate.cu"), cu);
    candidates.push_back(cu);
  }
  std::vector<std::string> args = {"gpu", "run", "--out", scratch_ / "transform", "--cpu-check", "on", "--op",
                                   t + "t_fp32_nchw.json", t + "t_bf16_nhwc.json", t + "t_fp16_ncl.json",
                                   t + "t_fp32_dpw.json", "--candidate"};
  args.insert(args.end(), candidates.begin(), candidates.end());
  const auto r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto result = read_job_result(scratch_ / "transform/result.json");
  // Each candidate passes on the op it was generated for; a shape-generic one may also accept
  // the other op of its dtype and layout class (an NCL weight is an NCHW tensor with one row),
  // and then it must be exact there too. Nothing fails.
  const std::map<std::string, std::string> own_op = {
      {"fp32_nchw", "t_fp32_nchw"}, {"fp32_nchw_direct", "t_fp32_nchw"}, {"bf16_nhwc", "t_bf16_nhwc"},
      {"bf16_nhwc_vec", "t_bf16_nhwc"}, {"fp16_ncl", "t_fp16_ncl"}, {"fp32_dpw", "t_fp32_dpw"}};
  std::set<std::string> passed_own;
  for (const auto& c : result.checks) {
    EXPECT_TRUE(c.status == "passed" || c.status == "unsupported") << c.candidate << " on " << c.op << ": " << c.status;
    if (c.status == "passed") {
      EXPECT_EQ(c.equivalence["exact"], true) << c.candidate << " on " << c.op;
      if (own_op.count(c.candidate) && own_op.at(c.candidate) == c.op) passed_own.insert(c.candidate);
      std::printf("passed: %s on %s\n", c.candidate.c_str(), c.op.c_str());
    }
    if (!c.vendor_vs_cpu.is_null()) {
      EXPECT_EQ(c.vendor_vs_cpu["failed"], 0) << c.op;
    }
  }
  EXPECT_EQ(passed_own.size(), gens.size());
  for (const auto& v : result.vendors) {
    EXPECT_FALSE(v.kernels.empty()) << v.op << ": " << v.kernels_note;
    for (const auto& k : v.kernels) std::printf("vendor kernel for %s: %s\n", v.op.c_str(), k.c_str());
  }

  // A candidate that never writes its first row tile.
  std::string text = testing::read_text(candidates[0]);
  const std::string store = "store_vec(y + col * rows + row, e);";
  const auto at = text.find(store);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, store.size(), "if (row0 != 0) " + store);
  const std::string bad = scratch_ / "skips_first_tile.cu";
  std::ofstream(bad) << text;
  const auto b = cli({"gpu", "run", "--out", scratch_ / "skip", "--op", t + "t_fp32_nchw.json", "--candidate", bad});
  EXPECT_EQ(b.exit_code, 1) << b.output;
  const auto skipped = read_job_result(scratch_ / "skip/result.json");
  ASSERT_EQ(skipped.checks.size(), 1u);
  EXPECT_EQ(skipped.checks[0].equivalence["unwritten"], 3 * 32 * 45);  // 3 transposes x 32 channels x 45 positions
}

}  // namespace

// The red team (docs/gpu.md, "Isolation"): candidates written to cheat, each caught with its
// reason. They run in one batch with an honest candidate, which must still pass: one cheat's
// crash or hang costs only itself.
namespace red {

const std::string kR = kC + "redteam/";

std::map<std::string, std::vector<CheckRecord>> checks_by_candidate(const JobResult& result) {
  std::map<std::string, std::vector<CheckRecord>> m;
  for (const auto& c : result.checks) m[c.candidate].push_back(c);
  return m;
}

}  // namespace red

TEST_F(GpuDevice, RedTeamCandidatesAreCaughtEachWithItsReason) {
  std::filesystem::remove("/tmp/vxsynth-redteam-pwned");
  const auto r = cli({"gpu", "run", "--out", scratch_ / "red", "--timeout", "80", "--op", kSmall + "lin_fp32_small.json",
                      "--candidate", red::kR + "copies_vendor_output.cu", red::kR + "reads_reference_from_disk.cu",
                      red::kR + "starts_a_shell.cu", red::kR + "writes_outside_its_output.cu", red::kR + "runs_forever.cu",
                      red::kR + "cheats_under_the_profiler.cu", kC + "linear_naive.cu"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // What the kernel applied, said in the harness's log (stdout in run mode).
  EXPECT_NE(r.output.find("candidate runner started"), std::string::npos) << r.output;
  std::cout << "containment: " << r.output.substr(r.output.find("candidate runner started"), 300) << "\n";
  auto by = red::checks_by_candidate(read_job_result(scratch_ / "red/result.json"));
  auto one = [&](const std::string& name) -> CheckRecord {
    EXPECT_EQ(by[name].size(), 1u) << name;
    return by[name].empty() ? CheckRecord{} : by[name][0];
  };
  const auto copies = one("copies_vendor_output");
  EXPECT_EQ(copies.status, "failed") << copies.message;  // no vendor output in its process to copy
  const auto reads = one("reads_reference_from_disk");
  EXPECT_EQ(reads.status, "passed") << reads.message;  // it computed honestly after the open failed
  const std::string runner_log = testing::read_text(scratch_ / "red/candidate-runner/runner.log");
  // Either the job file's open was refused (Landlock: -13), or already /proc/PPID/cmdline was.
  const auto line_at = runner_log.find("redteam: raw openat");
  ASSERT_NE(line_at, std::string::npos) << runner_log;
  const std::string line = runner_log.substr(line_at, runner_log.find('\n', line_at) - line_at);
  std::cout << line << "\n";
  EXPECT_NE(line.find("= -"), std::string::npos) << "a raw open succeeded: " << line;
  const auto shell = one("starts_a_shell");
  EXPECT_EQ(shell.status, "error");
  EXPECT_NE(shell.message.find("execve"), std::string::npos) << shell.message;
  EXPECT_FALSE(std::filesystem::exists("/tmp/vxsynth-redteam-pwned"));
  const auto scribbles = one("writes_outside_its_output");
  EXPECT_EQ(scribbles.status, "failed");
  EXPECT_NE(scribbles.message.find("outside its output"), std::string::npos) << scribbles.message;
  const auto forever = one("runs_forever");
  EXPECT_EQ(forever.status, "error");
  EXPECT_NE(forever.message.find("did not finish within 40 s"), std::string::npos) << forever.message;
  EXPECT_EQ(one("cheats_under_the_profiler").status, "passed");  // not profiled here: it behaves
  EXPECT_EQ(one("linear_naive").status, "passed");
  for (const auto& [name, checks] : by) {
    for (const auto& c : checks) std::cout << name << ": " << c.status << " (" << c.message << ")\n";
  }
}

TEST_F(GpuDevice, RedTeamCandidatesThatGameTheProfilerFailTheProfiledLaunchCheck) {
  const auto r = cli({"gpu", "profile", "--out", scratch_ / "redprof", "--repeat", "2", "--op",
                      kSmall + "lin_fp32_small.json", "--candidates", red::kR + "caches_its_output.cu",
                      red::kR + "cheats_under_the_profiler.cu", red::kR + "computes_on_the_host.cu",
                      kC + "linear_naive.cu"});
  EXPECT_EQ(r.exit_code, 1) << r.output;  // failed checks, and the profiles of the others written
  std::cout << r.output << "\n";
  auto by = red::checks_by_candidate(read_job_result(scratch_ / "redprof/result.json"));
  for (const char* cheat : {"caches_its_output", "cheats_under_the_profiler", "computes_on_the_host"}) {
    bool profiled_failed = false;
    for (const auto& c : by[cheat]) {
      std::cout << cheat << ": " << c.status << " " << c.message << "\n";
      EXPECT_TRUE(c.profiled);  // in profile mode the profiled launches are the checks
      profiled_failed |= c.profiled && (c.status == "failed" || c.status == "error");
    }
    EXPECT_TRUE(profiled_failed) << cheat << ": no profiled launch failed its check";
  }
  // The host-side answer is right: what catches it is that ncu saw no kernel of it.
  for (const auto& c : by["computes_on_the_host"]) {
    EXPECT_EQ(c.status, "error");
    EXPECT_NE(c.message.find("ran no kernel"), std::string::npos) << c.message;
  }
  // The honest candidate: both profiled launches checked and passed, and mapped.
  EXPECT_EQ(by["linear_naive"].size(), 2u);
  for (const auto& c : by["linear_naive"]) {
    EXPECT_EQ(c.status, "passed") << c.message;
    EXPECT_TRUE(c.profiled);
  }
  ASSERT_TRUE(std::filesystem::exists(scratch_ / "redprof/signatures/linear_naive@lin_fp32_small.json")) << r.output;
  const Json sig = read_json_file(scratch_ / "redprof/signatures/linear_naive@lin_fp32_small.json");
  EXPECT_EQ(sig["kernels"].size(), 2u);
  const std::string log = testing::read_text(scratch_ / "redprof/harness.log");
  EXPECT_NE(log.find("candidate runner started"), std::string::npos) << log;
  std::cout << log.substr(log.find("candidate runner started"), 400) << "\n";
}

}  // namespace vxsynth::gpu
