// `vxsynth gen` as a user runs it: seeds from op parameters and from a suite reference,
// --run-sim, --list-neighbours, and bad input (exit 2 naming the field or the broken rule).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "codegen_testbed.h"
#include "common/json_io.h"
#include "design/design_point.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int code = -1;
  std::string output;
};

CliRun vxsynth(std::vector<std::string> args) {
  args.insert(args.begin(), VXSYNTH_CLI_PATH);
  CliRun r;
  r.code = run_program(args, &r.output);
  return r;
}

TEST(CliGen, SeedFromOpParametersRunsOnTheSimulator) {
  const auto dir = testbed::scratch_dir("cli-op");
  const CliRun r = vxsynth({"gen", "--op", "conv1d", "--shape", "N=2,C=5,L=13,K=7,R=3,pad=1", "--dtype", "fp16", "--engine",
                         "simt", "--block", "64", "--bias", "--activation", "relu", "--out", dir.string(), "--run-sim"});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("PASSED!"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run-sim: PASSED"), std::string::npos);
  // One PERF block (printed at vx_dev_close; main.cpp used to print a second one).
  const auto perf = r.output.find("PERF: instrs=");
  ASSERT_NE(perf, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("PERF: instrs=", perf + 1), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("PERF: vxsim"), r.output.rfind("PERF: vxsim")) << r.output;
  for (const char* f : {"design.json", "cuda/candidate.cu", "vortex/common.h", "vortex/bench.h", "vortex/kernel.cpp", "vortex/main.cpp",
                        "vortex/CMakeLists.txt", "vortex/Makefile", "vortex/data/expected.vxt", "vortex/data/input.vxt"}) {
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  }
  // The written design reads back and regenerates the same sources.
  const auto again = testbed::scratch_dir("cli-op-again");
  const CliRun r2 = vxsynth({"gen", "--design", (dir / "design.json").string(), "--out", again.string()});
  EXPECT_EQ(r2.code, 0) << r2.output;
  std::ifstream a(dir / "cuda/candidate.cu"), b(again / "cuda/candidate.cu");
  const std::string ta((std::istreambuf_iterator<char>(a)), {}), tb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_EQ(ta, tb);
}

// Timing one design point: --run-sim --timing vortex2 prints its cycles, IPC and each
// vx_spawn_threads region's share, and leaves every counter in OUT/vortex/build/vxsim-run.json.
TEST(CliGen, RunSimTimesADesign) {
  const auto dir = testbed::scratch_dir("cli-timing");
  const CliRun r = vxsynth({"gen", "--op", "linear", "--shape", "M=37,N=53,K=71", "--block", "64", "--set", "split_k=2", "--set",
                            "boundary=padded", "--out", dir.string(), "--run-sim", "--timing", "vortex2"});
  ASSERT_EQ(r.code, 0) << r.output;
  const fs::path run_json = dir / "vortex" / "build" / "vxsim-run.json";
  ASSERT_TRUE(fs::is_regular_file(run_json)) << r.output;
  const Json run = read_json_file(run_json.string());
  ASSERT_GT(run["cycles"].get<double>(), 0.0);
  EXPECT_NE(r.output.find("timing vortex2: " + std::to_string(run["cycles"].get<std::uint64_t>()) + " cycles, IPC"), std::string::npos)
      << r.output;
  // The operand padding, the GEMM and the split-K reduction are vx_spawn_threads regions of their own.
  ASSERT_GE(run["regions"].size(), 3u);
  EXPECT_NE(r.output.find("  region 2: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  outside the regions (start-up, serial code): "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("every counter (timing, per core, per region): " + run_json.string()), std::string::npos) << r.output;
  EXPECT_EQ(vxsynth({"gen", "--op", "linear", "--shape", "M=3,N=5,K=7", "--out", dir.string(), "--run-sim", "--timing", "simx"}).code, 2);
}

// A generated benchmark built with its CMakeLists.txt and run exactly as its header comment
// says, in an environment without VXSIM_* settings: the program asks for the machine its
// design needs (a 128-thread block does not fit the simulator's default 4 warps x 4 threads).
TEST(CliGen, BenchmarkRunsAsItsHeaderSays) {
  const auto dir = testbed::scratch_dir("cli-header");
  CliRun r = vxsynth({"gen", "--op", "linear", "--shape", "M=37,N=53,K=71", "--block", "128", "--bias", "--activation",
                      "gelu", "--out", dir.string()});
  ASSERT_EQ(r.code, 0) << r.output;
  const design::DesignPoint d = design::read_design((dir / "design.json").string());
  std::ifstream in(dir / "vortex/CMakeLists.txt");
  const std::string cmake((std::istreambuf_iterator<char>(in)), {});
  ASSERT_NE(cmake.find("./bench -k kernel.vxbin -d ../data"), std::string::npos) << cmake;
  const fs::path build = dir / "vortex/build";
  const std::string source_dir = fs::absolute("..").string();
  const std::string build_dir = fs::path(VXSYNTH_CLI_PATH).parent_path().string();
  std::string out;
  ASSERT_EQ(run_program({"cmake", "-S", (dir / "vortex").string(), "-B", build.string(),
                                      "-DVXSYNTH_SOURCE_DIR=" + source_dir, "-DVXSYNTH_BUILD_DIR=" + build_dir},
                                     &out),
            0)
      << out;
  ASSERT_EQ(run_program({"cmake", "--build", build.string()}, &out), 0) << out;
  // The header's command, from the build folder, with the VXSIM_* variables removed.
  const std::string command = "cd '" + build.string() +
                              "' && env -u VXSIM_CORES -u VXSIM_WARPS -u VXSIM_THREADS -u VXSIM_LOCAL_MEM "
                              "./bench -k kernel.vxbin -d ../data";
  ASSERT_EQ(run_program({"/bin/sh", "-c", command}, &out), 0) << out;
  EXPECT_NE(out.find("PASSED!"), std::string::npos) << out;
  const std::string machine = std::to_string(d.vortex.warps) + " warps x " + std::to_string(d.vortex.threads) + " threads";
  EXPECT_NE(out.find("device: " + std::to_string(d.vortex.cores) + " cores x " + machine), std::string::npos) << out;
  // An explicit setting still wins, and a machine that cannot hold the block is explained.
  const std::string small = "cd '" + build.string() + "' && VXSIM_WARPS=2 VXSIM_THREADS=4 ./bench -k kernel.vxbin -d ../data";
  EXPECT_NE(run_program({"/bin/sh", "-c", small}, &out), 0);
  EXPECT_NE(out.find("does not fit a core of 2 warps x 4 threads"), std::string::npos) << out;
  EXPECT_NE(out.find("CONFIGS=\"-DNUM_WARPS=" + std::to_string(d.vortex.warps) + " -DNUM_THREADS=" +
                     std::to_string(d.vortex.threads)),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("VXSIM_WARPS=" + std::to_string(d.vortex.warps) + " VXSIM_THREADS=" + std::to_string(d.vortex.threads)),
            std::string::npos)
      << out;
}

TEST(CliGen, SeedFromASuiteReference) {
  const auto dir = testbed::scratch_dir("cli-ref");
  const CliRun r = vxsynth({"gen", "--reference", "../suite/vx-robotics/h200/act-1-linear/reference.json", "--out", dir.string()});
  EXPECT_EQ(r.code, 0) << r.output;
  const design::DesignPoint d = design::read_design((dir / "design.json").string());
  EXPECT_EQ(d.reference, "act-1-linear");
  EXPECT_EQ(d.fixed.block_size, 64);
  EXPECT_EQ(d.fixed.shape.m, 302);
}

TEST(CliGen, SetChangesAxesAndChecksThem) {
  const auto dir = testbed::scratch_dir("cli-set");
  CliRun r = vxsynth({"gen", "--op", "matmul", "--shape", "B=2,M=9,N=13,K=40", "--dtype", "bf16", "--block", "64", "--set",
                      "split_k=3", "--set", "boundary=padded", "--set", "lane_b=reversed", "--set", "tile=16x64x8",
                      "--out", dir.string(), "--run-sim"});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("_sk3_padded_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run-sim: PASSED"), std::string::npos) << r.output;
  r = vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8,K=8", "--set", "split_k=5", "--out", dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("split-k"), std::string::npos) << r.output;
  r = vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8,K=8", "--set", "colour=red", "--out", dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("unknown axis"), std::string::npos) << r.output;
}

TEST(CliGen, ListsNeighbours) {
  const CliRun r = vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8,K=71", "--list-neighbours"});
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* axis : {"shared_staging", "read_once", "prefetch", "boundary", "k_range", "split_k"}) {
    EXPECT_NE(r.output.find(std::string(axis) + "\t"), std::string::npos) << axis;
  }
}

TEST(CliGen, BadInputExitsTwoAndSaysWhy) {
  const auto dir = testbed::scratch_dir("cli-bad");
  CliRun r = vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8", "--out", dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("K"), std::string::npos) << r.output;
  r = vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8,K=8,Q=1", "--out", dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("Q"), std::string::npos) << r.output;
  r = vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8,K=8", "--dtype", "fp32", "--engine", "tensor", "--out",
               dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("tensor"), std::string::npos) << r.output;
  // A design that breaks a rule names the rule.
  const auto seed_dir = testbed::scratch_dir("cli-bad-seed");
  ASSERT_EQ(vxsynth({"gen", "--op", "linear", "--shape", "M=8,N=8,K=8", "--out", seed_dir.string()}).code, 0);
  Json j = read_json_file((seed_dir / "design.json").string());
  j["axes"]["split_k"] = 9;
  write_json_file((dir / "split.json").string(), j);
  r = vxsynth({"gen", "--design", (dir / "split.json").string(), "--out", (dir / "o").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("split-k"), std::string::npos) << r.output;
  j["axes"]["boundary"] = "padding";
  write_json_file((dir / "enum.json").string(), j);
  r = vxsynth({"gen", "--design", (dir / "enum.json").string(), "--out", (dir / "o").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("axes.boundary"), std::string::npos) << r.output;
  EXPECT_EQ(vxsynth({"gen", "--help"}).code, 0);
}

}  // namespace
}  // namespace vxsynth::codegen
