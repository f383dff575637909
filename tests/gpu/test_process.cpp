#include <gtest/gtest.h>

#include <chrono>

#include "common/error.h"
#include "gpu/process.h"
#include "test_util.h"

namespace vxsynth::gpu {
namespace {

TEST(Process, ExitCodesAndOutputFiles) {
  testing::TempDir dir("gpu-proc");
  const std::string out = dir / "out.txt";
  const auto ok = run_process({"sh", "-c", "echo hello; echo oops >&2; exit 3"}, {out, out, {}});
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_FALSE(ok.timed_out);
  const std::string text = testing::read_text(out);
  EXPECT_NE(text.find("hello"), std::string::npos);
  EXPECT_NE(text.find("oops"), std::string::npos);
  const auto env = run_process({"sh", "-c", "test \"$VX_TEST\" = yes"}, {"", "", {"VX_TEST=yes"}});
  EXPECT_EQ(env.exit_code, 0);
  EXPECT_THROW(run_process({"/no/such/program"}), WorkError);
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  const auto start = std::chrono::steady_clock::now();
  // The child starts a grandchild and waits for it, as ncu waits for the harness.
  ProcessOptions o;
  o.timeout_seconds = 0.3;
  const auto r = run_process({"sh", "-c", "sleep 30 & wait"}, o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 10.0);
}

TEST(Process, RenderCommandQuotesWhatTheShellWouldSplit) {
  EXPECT_EQ(render_command({"ncu", "--metrics", "a,b", "x y", "it's"}), "ncu --metrics a,b 'x y' 'it'\\''s'");
}

}  // namespace
}  // namespace vxsynth::gpu
