// GEMM through WMMA (vx_tensor.h on the simulated tensor unit) for every Vortex 2.x format pair
// and every warp width, at odd multiples of the tile shape: the tensor_gemm example checks each
// result bit for bit against a CPU model of the unit's rounding order and against a float64
// reference within that arithmetic's error bound; here the runs are driven and the PERF tensor
// counters are checked against the GEMM's own operation count.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "host_test_util.h"
#include "vxsim/tensor.h"

using namespace vxrt_test;
namespace tc = vxsynth::vxsim::tensor;

namespace {

struct Format {
  const char* name;
  uint32_t per_word;  // K elements a 32-bit word
  bool fp;
};
const Format kFormats[] = {{"fp16_fp32", 2, true}, {"bf16_fp32", 2, true}, {"fp16_fp16", 2, true},
                           {"bf16_bf16", 2, true}, {"int8", 4, false},     {"uint8", 4, false},
                           {"int4", 8, false},     {"uint4", 8, false}};

struct Multiple {
  uint32_t m, n, k;  // in tiles
};

ProcessResult run_gemm(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {example_dir("tensor_gemm") + "/tensor_gemm", "-f", example_kernel("tensor_gemm")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, env);
}

uint64_t perf_field(const std::string& output, const std::string& name) {
  const std::regex line("PERF: tensor: .*\\b" + name + "=(\\d+)");
  std::smatch m;
  for (const std::string& l : lines_of(output)) {
    if (std::regex_search(l, m, line)) return std::stoull(m[1]);
  }
  ADD_FAILURE() << "no PERF tensor " << name << " in\n" << output;
  return 0;
}

class WmmaGemm : public ::testing::TestWithParam<uint32_t> {};

TEST_P(WmmaGemm, EveryFormatAtOddTileMultiplesIsBitExact) {
  const uint32_t nt = GetParam();
  const tc::Geometry g = tc::geometry(nt);
  const std::vector<Multiple> multiples = {{1, 1, 1}, {3, 5, 7}, {5, 3, 3}};
  for (const Format& f : kFormats) {
    for (size_t i = 0; i < multiples.size(); ++i) {
      const Multiple& t = multiples[i];
      const uint32_t tile_k = g.tile_k * f.per_word;
      const uint32_t M = t.m * g.tile_m, N = t.n * g.tile_n, K = t.k * tile_k;
      const std::string what = std::string(f.name) + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                               std::to_string(K) + " at " + std::to_string(nt) + " threads";
      SCOPED_TRACE(what);
      // Several cores and warps on the larger shape; C accumulated on every other run.
      std::vector<std::string> args = {"-t", f.name, "-m", std::to_string(M), "-n", std::to_string(N),
                                       "-k", std::to_string(K), "-s", std::to_string(nt * 10 + i)};
      if (i % 2 == 1) args.push_back("-c");
      const std::vector<std::string> env = {"VXSIM_THREADS=" + std::to_string(nt), i == 1 ? "VXSIM_CORES=2" : "VXSIM_CORES=1",
                                            i == 1 ? "VXSIM_WARPS=4" : "VXSIM_WARPS=1"};
      const ProcessResult r = run_gemm(args, env);
      ASSERT_EQ(r.status, 0) << r.output;
      ASSERT_EQ(last_line(r.output), "PASSED!") << r.output;
      // No padding: the sizes are exact tile multiples.
      const std::string dims = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
      EXPECT_NE(r.output.find("padded to " + dims), std::string::npos) << r.output;
      // One wmma per tile and K step; its micro-ops (§5.2); 2 operations per multiply-accumulate.
      const uint64_t wmma = uint64_t{t.m} * t.n * t.k;
      EXPECT_EQ(perf_field(r.output, "wmma"), wmma);
      EXPECT_EQ(perf_field(r.output, "uops"), wmma * g.m_steps * g.n_steps * g.k_steps);
      const uint64_t ops = 2ull * M * N * K;
      EXPECT_EQ(perf_field(r.output, "flops"), f.fp ? ops : 0u);
      EXPECT_EQ(perf_field(r.output, "int ops"), f.fp ? 0u : ops);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, WmmaGemm, ::testing::Values(1u, 2u, 4u, 8u, 16u, 32u),
                         [](const ::testing::TestParamInfo<uint32_t>& param_info) {
                           return std::to_string(param_info.param) + "t";
                         });

TEST(WmmaGemmPadding, SizesOffTheTileArePaddedAndStillExact) {
  for (uint32_t nt : {4u, 8u, 32u}) {
    const ProcessResult r = run_gemm({"-m", "13", "-n", "9", "-k", "37", "-c", "-s", "5"}, {"VXSIM_THREADS=" + std::to_string(nt)});
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(last_line(r.output), "PASSED!") << r.output;
  }
}

TEST(WmmaGemmErrors, BadArgumentsAreNamed) {
  const ProcessResult unknown = run_gemm({"-t", "fp32_fp32"}, {});
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.output.find("-t fp32_fp32: unknown format"), std::string::npos) << unknown.output;
  const ProcessResult zero = run_gemm({"-m", "0"}, {});
  EXPECT_NE(zero.status, 0);
  EXPECT_NE(zero.output.find("-m 0: expected a size"), std::string::npos) << zero.output;
}

TEST(WmmaCli, SimRunReportsTheTensorCounters) {
  // tensor_formats at 8 threads: six formats, each an 8 x 8 tile over 2 K tiles = 2 WMMAs of
  // 32 micro-ops; K = 32 (fp16, bf16), 64 (int8, uint8), 128 (int4, uint4) elements.
  const std::string kernel = example_kernel("tensor_formats");
  const ProcessResult perf = run({VXSYNTH_CLI, "sim", "run", kernel, "--threads", "8", "--perf"});
  ASSERT_EQ(perf.status, 0) << perf.output;
  EXPECT_NE(perf.output.find("PERF: tensor: wmma=12, uops=384, flops=8192, int ops=49152, issue share="), std::string::npos)
      << perf.output;
  const ProcessResult json = run_stdout(std::string(VXSYNTH_CLI) + " sim run " + kernel + " --threads 8 --json");
  ASSERT_EQ(json.status, 0) << json.output;
  const vxsynth::Json doc = vxsynth::Json::parse(json.output);
  const vxsynth::Json& tensor = doc["counters"]["total"]["tensor"];
  EXPECT_EQ(tensor["wmma_instructions"].get<uint64_t>(), 12u);
  EXPECT_EQ(tensor["uops"].get<uint64_t>(), 384u);
  EXPECT_EQ(tensor["flops"].get<uint64_t>(), 8192u);
  EXPECT_EQ(tensor["int_ops"].get<uint64_t>(), 49152u);
  const double share = tensor["issue_share"].get<double>();
  EXPECT_GT(share, 0.0);
  EXPECT_DOUBLE_EQ(share, 384.0 / tensor["issue_slots"].get<double>());
}

}  // namespace
