// Divergent regions survive GCC -O3 (`vxsynth sim cc`'s default). -O3's path splitting used to
// copy a loop latch into both arms of `if (c) {...}` together with its vx_join: lanes that ran
// the taken arm then left through the other arm's copy of the join (the IPDOM stack resumes
// after the join that pops it) and skipped the spill reloads the register allocator had put
// after their own copy. First seen as a fault in a generated fp16 tensor-core conv2d (the
// epilogue's guarded store loop), blamed on vx_tensor.h's mma_sync.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "host_test_util.h"

using namespace vxrt_test;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

const std::string kCli = VXSYNTH_CLI;

// A guarded store loop of the generated kernels' shape: a uniform trip count, the bounds test
// computed branch-free for vx_split and again for the if, and a call inside the arm.
const char* const kDivergentLoop = R"src(#include <vx_branchless.h>
#include <vx_intrinsics.h>
#include <vx_print.h>
#include <vx_spawn.h>

static constexpr int kTotal = 1024;
static constexpr int kCols = 37;
struct Params { int rows, cols; const float* in; float* out; float scale[8]; };
static float input[kTotal];
static float output[kTotal];
static Params params;

static __attribute__((noinline)) float finish(const Params& p, int r, int c, float v) {
  float acc = v;
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) acc = acc * p.scale[i] + (float)((r * (i + 3)) ^ (c << i));
  return __builtin_fmaxf(acc, 0.0f);
}

static void body(void*) {
  const Params& p = params;
  for (int e = (int)threadIdx.x; e < kTotal; e += (int)blockDim.x) {
    const int r = e / kCols, c = e % kCols;
    const float v = p.in[e];
    const int sp = vx_split((int)(vxb_lt((uint32_t)r, (uint32_t)p.rows) & vxb_lt((uint32_t)c, (uint32_t)p.cols)));
    if (vxb_lt((uint32_t)r, (uint32_t)p.rows) & vxb_lt((uint32_t)c, (uint32_t)p.cols)) p.out[e] = finish(p, r, c, v);
    vx_join(sp);
  }
}

int main() {
  for (int e = 0; e < kTotal; ++e) { input[e] = (float)((e * 7919) % 613) * 0.01f - 2.0f; output[e] = -1.0f; }
  params.rows = 21; params.cols = 30; params.in = input; params.out = output;
  for (int i = 0; i < 8; ++i) params.scale[i] = 0.5f + 0.125f * (float)i;
  uint32_t grid = 1, block = vx_num_threads() * vx_num_warps();
  if (vx_spawn_threads(1, &grid, &block, body, nullptr) != 0) return 100;
  int wrong = 0;
  for (int e = 0; e < kTotal; ++e) {
    const int r = e / kCols, c = e % kCols;
    float want = -1.0f;
    if (r < params.rows && c < params.cols) want = finish(params, r, c, input[e]);
    if (output[e] != want) ++wrong;
  }
  vx_printf("divergent loop: %d of %d elements wrong\n", wrong, kTotal);
  return wrong > 0 ? 1 : 0;
}
)src";

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vxsim-divergence-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// The mnemonics of one function's listing in an objdump file.
std::vector<std::string> mnemonics_of(const std::string& dump_path, const std::string& symbol) {
  std::ifstream in(dump_path);
  std::vector<std::string> out;
  std::string line;
  bool inside = false;
  static const std::regex insn(R"(^\s*[0-9a-f]+:\s+[0-9a-f]{8}\s+(\S+))");
  while (std::getline(in, line)) {
    if (line.find("<" + symbol + ">:") != std::string::npos) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty()) break;
    std::smatch m;
    if (std::regex_search(line, m, insn)) out.push_back(m[1].str());
  }
  return out;
}

TEST(DivergenceAtO3, EachSplitKeepsOneJoinAndTheLoopRunsCorrectly) {
  const fs::path source = scratch("divergent_loop.cpp");
  std::ofstream(source) << kDivergentLoop;
  const std::string out = scratch("divergent_loop.vxbin").string();
  // GCC's -O3 is the subject (the default clang toolchain adds its own split inside the region).
  const ProcessResult built = run({kCli, "sim", "cc", source.string(), "-O3", "--compiler", "gcc", "-o", out});
  ASSERT_EQ(built.status, 0) << built.output;

  // Both arms must reconverge through the same join instruction; a second copy of the join
  // (GCC tail-duplicating the latch before register allocation) is what corrupted the spills.
  const std::string dump = out.substr(0, out.size() - 6) + ".dump";
  const std::vector<std::string> body = mnemonics_of(dump, "_ZL4bodyPv");
  ASSERT_FALSE(body.empty()) << "no listing of body() in " << dump;
  EXPECT_EQ(std::count(body.begin(), body.end(), "split"), 1);
  EXPECT_EQ(std::count(body.begin(), body.end(), "join"), 1);

  for (const char* threads : {"4", "8", "32"}) {
    const ProcessResult r = run({kCli, "sim", "run", out, "--warps", "2", "--threads", threads, "--plain-console"});
    EXPECT_EQ(r.status, 0) << threads << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("divergent loop: 0 of 1024 elements wrong")) << threads << "\n" << r.output;
  }

  // The same kernel with the default toolchain.
  const std::string clang_out = scratch("divergent_loop_clang.vxbin").string();
  const ProcessResult clang_built = run({kCli, "sim", "cc", source.string(), "-O3", "-o", clang_out});
  ASSERT_EQ(clang_built.status, 0) << clang_built.output;
  for (const char* threads : {"4", "32"}) {
    const ProcessResult r =
        run({kCli, "sim", "run", clang_out, "--warps", "2", "--threads", threads, "--plain-console"});
    EXPECT_THAT(r.output, HasSubstr("divergent loop: 0 of 1024 elements wrong")) << threads << "\n" << r.output;
  }
}

// The reported kernel: fp16 tensor-core conv2d (vx_tensor.h mma_sync, a guarded epilogue loop),
// generated and run on the simulator at the default -O3.
TEST(DivergenceAtO3, GeneratedTensorCoreConv2dPasses) {
  const fs::path dir = scratch("conv2d_tensor");
  const ProcessResult r =
      run({kCli, "gen", "--op", "conv2d", "--shape", "N=1,C=6,H=9,W=11,K=10,R=3,S=3,stride=2,pad=1,groups=2", "--layout",
           "nhwc", "--bias", "--activation", "relu", "--dtype", "fp16", "--engine", "tensor", "--block", "256", "--out",
           dir.string(), "--run-sim"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("vxsim fault"))) << r.output;
  EXPECT_THAT(r.output, HasSubstr("check candidate: PASS")) << r.output;
  EXPECT_THAT(r.output, HasSubstr("run-sim: PASSED")) << r.output;
}

}  // namespace
