// The kernel toolchain's divergence handling and the split/join verifier (issue 22):
// - the CTA tree reduction (hand-written vx_split/vx_join, and as plain C++) is right at -O3
//   with the default toolchain (clang + the vortex-divergence plugin) on several shapes;
// - GCC -O3 breaks the hand-written regions: `sim cc` refuses the binary, naming the function
//   and the source line, `sim verify` refuses it too, and the unverified binary really computes
//   wrong sums (so the verifier's refusal is not a false alarm);
// - lower GCC levels and a hand-written region that returns before its join.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "host_test_util.h"

using namespace vxrt_test;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

namespace {

const std::string kCli = VXSYNTH_CLI;
const std::string kPrograms = VXSIM_DIVERGENCE_PROGRAMS;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vxsim-divergence-toolchain-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

ProcessResult run_shape(const std::string& kernel, const std::string& cores, const std::string& warps,
                        const std::string& threads) {
  return run({kCli, "sim", "run", kernel, "--cores", cores, "--warps", warps, "--threads", threads, "--plain-console"});
}

TEST(DivergenceToolchain, HandWrittenReductionIsRightAtO3OnEveryShape) {
  const std::string out = scratch("reduce_o3.vxbin").string();
  const ProcessResult built = run({kCli, "sim", "cc", kPrograms + "/cta_reduce.cpp", "-O", "3", "-o", out});
  ASSERT_EQ(built.status, 0) << built.output;
  const std::string elf = out.substr(0, out.size() - 6) + ".elf";
  const ProcessResult verified = run({kCli, "sim", "verify", elf});
  EXPECT_EQ(verified.status, 0) << verified.output;
  EXPECT_THAT(verified.output, HasSubstr("well formed"));
  for (const auto& [c, w, t] : {std::tuple{"1", "8", "8"}, {"1", "4", "16"}, {"1", "2", "32"}, {"1", "16", "4"},
                                {"2", "8", "8"}}) {
    const ProcessResult r = run_shape(out, c, w, t);
    EXPECT_EQ(r.status, 0) << c << "x" << w << "x" << t << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("reduce: 0 of 6 blocks wrong")) << c << "x" << w << "x" << t;
  }
}

TEST(DivergenceToolchain, PlainReductionGetsSplitJoinFromTheToolchain) {
  for (const char* opt : {"0", "3"}) {
    const std::string out = scratch(std::string("reduce_plain_O") + opt + ".vxbin").string();
    const ProcessResult built =
        run({kCli, "sim", "cc", kPrograms + "/cta_reduce.cpp", "-O", opt, "-D", "PLAIN", "-o", out});
    ASSERT_EQ(built.status, 0) << built.output;
    for (const auto& [c, w, t] : {std::tuple{"1", "8", "8"}, {"2", "4", "16"}}) {
      const ProcessResult r = run_shape(out, c, w, t);
      EXPECT_EQ(r.status, 0) << opt << " " << c << "x" << w << "x" << t << "\n" << r.output;
      EXPECT_THAT(r.output, HasSubstr("reduce: 0 of 6 blocks wrong")) << opt;
    }
  }
  // With GCC the plain kernel has unguarded divergent branches: the simulator stops there.
  const std::string gcc_out = scratch("reduce_plain_gcc.vxbin").string();
  ASSERT_EQ(run({kCli, "sim", "cc", kPrograms + "/cta_reduce.cpp", "-D", "PLAIN", "--compiler", "gcc", "-o", gcc_out})
                .status,
            0);
  const ProcessResult r = run_shape(gcc_out, "1", "8", "8");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("divergent branch"));
}

TEST(DivergenceToolchain, VerifierRefusesGccO3Reduction) {
  const std::string out = scratch("reduce_gcc.vxbin").string();
  const ProcessResult built =
      run({kCli, "sim", "cc", kPrograms + "/cta_reduce.cpp", "-O", "3", "--compiler", "gcc", "-o", out});
  EXPECT_NE(built.status, 0) << built.output;
  EXPECT_THAT(built.output, HasSubstr("broken split/join region"));
  EXPECT_THAT(built.output, HasSubstr("SPLIT reaches 2 different JOINs"));
  EXPECT_THAT(built.output, HasSubstr("reduce(void*)"));     // the function
  EXPECT_THAT(built.output, HasSubstr("cta_reduce.cpp:"));   // and the kernel's own line
  EXPECT_FALSE(fs::exists(out)) << "no .vxbin for a refused kernel";
  const std::string elf = out.substr(0, out.size() - 6) + ".elf";
  EXPECT_TRUE(fs::exists(elf)) << "the ELF is kept for inspection";

  const ProcessResult verified = run({kCli, "sim", "verify", elf});
  EXPECT_EQ(verified.status, 1) << verified.output;
  EXPECT_THAT(verified.output, HasSubstr("SPLIT reaches 2 different JOINs"));

  // The refusal is real: built anyway, the kernel loses the block sums.
  const ProcessResult forced = run(
      {kCli, "sim", "cc", kPrograms + "/cta_reduce.cpp", "-O", "3", "--compiler", "gcc", "--no-verify", "-o", out});
  ASSERT_EQ(forced.status, 0) << forced.output;
  const ProcessResult r = run_shape(out, "1", "8", "8");
  EXPECT_THAT(r.output, Not(HasSubstr("reduce: 0 of 6 blocks wrong"))) << r.output;
}

TEST(DivergenceToolchain, VerifierAcceptsGccLowerLevels) {
  for (const char* opt : {"0", "1", "2"}) {
    const std::string out = scratch(std::string("reduce_gcc_O") + opt + ".vxbin").string();
    const ProcessResult built =
        run({kCli, "sim", "cc", kPrograms + "/cta_reduce.cpp", "-O", opt, "--compiler", "gcc", "-o", out});
    EXPECT_EQ(built.status, 0) << opt << "\n" << built.output;
    const ProcessResult r = run_shape(out, "1", "8", "8");
    EXPECT_THAT(r.output, HasSubstr("reduce: 0 of 6 blocks wrong")) << opt << "\n" << r.output;
  }
}

TEST(DivergenceToolchain, VerifierRefusesReturnInsideRegion) {
  const std::string out = scratch("open_region.vxbin").string();
  const ProcessResult built = run({kCli, "sim", "cc", kPrograms + "/open_region.S", "-o", out});
  EXPECT_NE(built.status, 0) << built.output;
  EXPECT_THAT(built.output, HasSubstr("in main"));
  EXPECT_THAT(built.output, HasSubstr("a return inside the divergent region of the SPLIT"));
  EXPECT_THAT(built.output, HasSubstr("open_region.S:"));
}

TEST(DivergenceToolchain, VerifyRejectsMissingAndMalformedFiles) {
  const ProcessResult missing = run({kCli, "sim", "verify", scratch("nope.elf").string()});
  EXPECT_EQ(missing.status, 2) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("not found"));
  const fs::path junk = scratch("junk.elf");
  FILE* f = std::fopen(junk.c_str(), "wb");
  std::fputs("\x7f" "ELF this is not a program", f);
  std::fclose(f);
  const ProcessResult bad = run({kCli, "sim", "verify", junk.string()});
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("junk.elf"));
}

}  // namespace
