// `vxsynth gpu` as a user runs it on a machine without a GPU (CI, development machines).
#include <gtest/gtest.h>

#include "gpu/device_probe.h"
#include "test_util.h"

namespace vxsynth::gpu {
namespace {

using testing::run_cli;
using testing::TempDir;

TEST(CliGpu, HelpWorksForEverySubcommand) {
  TempDir scratch("gpu-cli");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"gpu", "--help"}, {"gpu", "run", "--help"}, {"gpu", "profile", "--help"},
        {"gpu", "build", "--help"}, {"gpu", "inspect", "--help"}, {"gpu", "status", "--help"}}) {
    const auto r = run_cli(args, scratch.path());
    EXPECT_EQ(r.exit_code, 0) << args[1] << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos);
  }
}

TEST(CliGpu, StatusSaysWhetherADeviceIsPresent) {
  TempDir scratch("gpu-cli");
  const auto r = run_cli({"gpu", "status"}, scratch.path());
  EXPECT_EQ(r.exit_code, 0);
  if (probe_cuda_device().present) {
    EXPECT_NE(r.output.find("CUDA device: present"), std::string::npos) << r.output;
  } else {
    EXPECT_NE(r.output.find("no CUDA device is present"), std::string::npos) << r.output;
  }
}

TEST(CliGpu, RunAndProfileSayThereIsNoDevice) {
  if (probe_cuda_device().present) GTEST_SKIP() << "a CUDA device is present: covered by the gpu-labelled tests";
  TempDir scratch("gpu-cli");
  for (const std::string cmd : {"run", "profile"}) {
    std::vector<std::string> args = {"gpu", cmd, "--op", "data/gpu/small/lin_fp32_small.json",
                                     cmd == "run" ? "--candidate" : "--candidates",
                                     "gpu/candidates/linear_naive.cu", "--out", scratch / "out"};
    const auto r = run_cli(args, scratch.path());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("no CUDA device is present"), std::string::npos) << r.output;
  }
}

TEST(CliGpu, MissingOptionsAreUsageErrors) {
  TempDir scratch("gpu-cli");
  EXPECT_EQ(run_cli({"gpu", "run", "--out", scratch / "o"}, scratch.path()).exit_code, 2);
  EXPECT_EQ(run_cli({"gpu"}, scratch.path()).exit_code, 2);
  EXPECT_EQ(run_cli({"gpu", "profile", "--op", "x.json", "--candidates", "a.cu", "--out", scratch / "o", "--repeat", "0"},
                    scratch.path())
                .exit_code,
            2);
}

// --suite names a suite folder; a missing one is bad input, said before any build or device probe.
TEST(CliGpu, ProfileSuiteMustBeAFolder) {
  TempDir scratch("gpu-cli");
  const auto r = run_cli({"gpu", "profile", "--op", "data/gpu/small/lin_fp32_small.json", "--candidates",
                          "gpu/candidates/linear_naive.cu", "--out", scratch / "out", "--suite", scratch / "no-suite"},
                         scratch.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no-suite"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not a folder"), std::string::npos) << r.output;
}

// --pair puts candidate i on op i only; a count mismatch is bad input, said before any build
// or device probe.
TEST(CliGpu, PairNeedsOneOpPerCandidate) {
  TempDir scratch("gpu-cli");
  for (const std::string cmd : {"run", "profile"}) {
    const auto r = run_cli({"gpu", cmd, "--pair", "--op", "data/gpu/small/lin_fp32_small.json",
                            cmd == "run" ? "--candidate" : "--candidates", "gpu/candidates/linear_naive.cu",
                            "gpu/candidates/linear_tiled.cu", "--out", scratch / "out"},
                           scratch.path());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--pair: 2 candidates but 1 ops"), std::string::npos) << r.output;
  }
}

TEST(CliGpu, BuildAndInspectWithoutAGpu) {
  VXSYNTH_REQUIRE_NVCC();
  TempDir scratch("gpu-cli");
  const std::vector<std::string> env = {"VXSYNTH_CACHE_DIR=" + (scratch / "cache")};
  auto good = run_cli({"gpu", "build", "gpu/candidates/linear_tiled.cu"}, scratch.path(), env);
  EXPECT_EQ(good.exit_code, 0) << good.output;
  const auto so = good.output.substr(good.output.find(": ") + 2, good.output.find(".so") + 3 - good.output.find(": ") - 2);
  auto inspect = run_cli({"gpu", "inspect", so}, scratch.path(), env);
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("accepted"), std::string::npos);
  auto again = run_cli({"gpu", "build", "gpu/candidates/linear_tiled.cu"}, scratch.path(), env);
  EXPECT_NE(again.output.find("(cached)"), std::string::npos) << again.output;

  auto bad = run_cli({"gpu", "build", "gpu/candidates/bad/reads_file.cu"}, scratch.path(), env);
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("rejected (file-access): fopen"), std::string::npos) << bad.output;

  auto not_elf = run_cli({"gpu", "inspect", "data/gpu/small/lin_fp32_small.json"}, scratch.path(), env);
  EXPECT_EQ(not_elf.exit_code, 2) << not_elf.output;
}

}  // namespace
}  // namespace vxsynth::gpu
