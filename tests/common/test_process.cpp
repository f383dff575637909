// The one process runner (common/process.h): exit codes, captured output, output files, extra
// environment that overrides the inherited one, and a timeout that ends the whole group.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/process.h"

namespace vxsynth {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Process, ExitCodesAndOutputFiles) {
  const std::string out = (std::filesystem::temp_directory_path() / ("vxsynth-proc-" + std::to_string(getpid()))).string();
  ProcessOptions to_file;
  to_file.stdout_path = to_file.stderr_path = out;
  const auto ok = run_process({"sh", "-c", "echo hello; echo oops >&2; exit 3"}, to_file);
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_FALSE(ok.timed_out);
  const std::string text = read_text(out);
  std::filesystem::remove(out);
  EXPECT_NE(text.find("hello"), std::string::npos);
  EXPECT_NE(text.find("oops"), std::string::npos);
  EXPECT_THROW(run_process({"/no/such/program"}), WorkError);
  EXPECT_THROW(run_process({}), WorkError);
}

TEST(Process, CapturesStdoutAndStderrTogether) {
  std::string text;
  EXPECT_EQ(run_program({"sh", "-c", "echo one; echo two >&2; echo three"}, &text), 0);
  EXPECT_EQ(text, "one\ntwo\nthree\n");
  // More output than a pipe holds: the runner must drain it while the child runs.
  EXPECT_EQ(run_program({"sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x"}, &text), 0);
  EXPECT_EQ(text, std::string(300000, 'x'));
  EXPECT_EQ(run_program({"sh", "-c", "kill -9 $$"}, &text), 128 + 9);
}

TEST(Process, ExtraEnvironmentReplacesInheritedValues) {
  ::setenv("VX_PROCESS_TEST", "inherited", 1);
  std::string text;
  ProcessOptions o;
  o.capture = &text;
  o.env = {"VX_PROCESS_TEST=set", "VX_OTHER=too"};
  const auto r = run_process({"sh", "-c", "echo \"$VX_PROCESS_TEST $VX_OTHER\""}, o);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(text, "set too\n");
  EXPECT_EQ(run_program({"sh", "-c", "echo $VX_PROCESS_TEST"}, &text), 0);
  EXPECT_EQ(text, "inherited\n");
  ::unsetenv("VX_PROCESS_TEST");
  ProcessOptions bad;
  bad.env = {"NO_EQUALS_SIGN"};
  EXPECT_THROW(run_process({"true"}, bad), WorkError);
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  for (const bool capture : {false, true}) {
    const auto start = std::chrono::steady_clock::now();
    // The child starts a grandchild and waits for it, as ncu waits for the harness; with
    // capture the grandchild also holds the pipe open.
    std::string text;
    ProcessOptions o;
    o.timeout_seconds = 0.3;
    if (capture) o.capture = &text;
    const auto r = run_process({"sh", "-c", "echo started; sleep 30 & wait"}, o);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(r.timed_out) << capture;
    EXPECT_LT(took, 10.0) << capture;
    if (capture) {
      EXPECT_EQ(text, "started\n");
    }
  }
  // A program that finishes in time with a timeout set.
  std::string text;
  ProcessOptions in_time;
  in_time.capture = &text;
  in_time.timeout_seconds = 10;
  const auto quick = run_process({"sh", "-c", "echo done"}, in_time);
  EXPECT_FALSE(quick.timed_out);
  EXPECT_EQ(quick.exit_code, 0);
  EXPECT_EQ(text, "done\n");
}

TEST(Process, RenderCommandQuotesWhatTheShellWouldSplit) {
  EXPECT_EQ(render_command({"ncu", "--metrics", "a,b", "x y", "it's"}), "ncu --metrics a,b 'x y' 'it'\\''s'");
}

}  // namespace
}  // namespace vxsynth
