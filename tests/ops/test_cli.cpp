// vxsynth ref / check as a user runs them: files written, reports printed, exit codes.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include <sys/wait.h>

#include "temp_dir.h"
#include "ops/op_spec.h"
#include "ops/tensor_file.h"

using namespace vxsynth::ops;

namespace {

struct CliRun {
  int code;
  std::string out;
};

CliRun run(const std::string& args) {
  const std::string cmd = std::string(VXSYNTH_CLI_PATH) + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// A private folder per call, removed when the test process exits (fixed /tmp names collided
// between concurrent runs on one host).
std::string temp_dir(const std::string& name) {
  static std::vector<std::unique_ptr<test_support::TempDir>> dirs;
  dirs.push_back(std::make_unique<test_support::TempDir>("ops-cli-" + name));
  return dirs.back()->path();
}

}  // namespace

TEST(Cli, RefWritesInputsReferenceAndPoisonThenCheckPassesAndFails) {
  const std::string dir = temp_dir("ref");
  const std::string op = "data/ops/small_linear.json";
  CliRun r = run("ref --op " + op + " --seed 5 --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"x.tensor", "weight.tensor", "bias.tensor", "y_ref.tensor", "y_poison.tensor", "ref.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  }
  const Tensor x = read_tensor_file(dir + "/x.tensor");
  EXPECT_EQ(x.shape(), (Shape{37, 301}));
  EXPECT_EQ(*x.seed(), 5u);
  // Same seed, same bytes.
  const std::string dir2 = temp_dir("ref2");
  ASSERT_EQ(run("ref --op " + op + " --seed 5 --out " + dir2).code, 0);
  const Tensor y1 = read_tensor_file(dir + "/y_ref.tensor"), y2 = read_tensor_file(dir2 + "/y_ref.tensor");
  for (std::int64_t i = 0; i < y1.numel(); ++i) ASSERT_EQ(y1.bits(i), y2.bits(i));

  const std::string y = dir + "/y_ref.tensor";
  r = run("check --op " + op + " --expected " + y + " --actual " + y);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos);

  r = run("check --op " + op + " --expected " + y + " --actual " + dir + "/y_poison.tensor --check candidate");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("unwritten      1073"), std::string::npos) << r.out;
  // What failed leads, before the error maxima (which are over the finite pairs only).
  const auto lead = r.out.find("\n  failed         1073 of 1073 elements: 1073 unwritten (still poison)\n");
  EXPECT_NE(lead, std::string::npos) << r.out;
  EXPECT_LT(lead, r.out.find("max abs error")) << r.out;
  EXPECT_NE(r.out.find("(over the 0 finite pairs only)"), std::string::npos) << r.out;

  Tensor bad = y1;
  bad.set(40, bad.get(40) + 0.5f);
  write_tensor_file(dir + "/bad.tensor", bad);
  r = run("check --op " + op + " --expected " + y + " --actual " + dir + "/bad.tensor --json " + dir + "/report.json");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("1 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("failed         1 of 1073 elements: 1 finite beyond tolerance\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#40 [1, 11]"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/report.json"));
}

TEST(Cli, Tf32OpWritesTheVortexReferenceToo) {
  const std::string dir = temp_dir("tf32");
  OpSpec s = make_conv("c", PrecisionPath::tf32, 1, 3, 4, {6, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true,
                       ConvLayout::channels_last);
  write_op_spec(dir + "/op.json", s);
  const CliRun r = run("ref --op " + dir + "/op.json --seed 1 --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  ASSERT_TRUE(std::filesystem::exists(dir + "/y_ref_vortex.tensor"));
  const CliRun c = run("check --op " + dir + "/op.json --expected " + dir + "/y_ref.tensor --actual " + dir +
                    "/y_ref_vortex.tensor --check candidate");
  EXPECT_EQ(c.code, 0) << c.out;
}

TEST(Cli, BadInputExitsTwoWithTheFileAndField) {
  const std::string dir = temp_dir("bad");
  CliRun r = run("ref --op data/ops/bad_groups.json --seed 1 --out " + dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("conv.groups"), std::string::npos) << r.out;
  ASSERT_EQ(run("ref --op data/ops/small_linear.json --seed 1 --out " + dir).code, 0);
  // Output of another op: shape mismatch is bad input, not a failed check.
  r = run("check --op data/ops/pi0_gate_proj.json --expected " + dir + "/y_ref.tensor --actual " + dir +
          "/y_ref.tensor");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("shape"), std::string::npos) << r.out;
  r = run("check --op data/ops/small_linear.json --expected " + dir + "/missing.tensor --actual " + dir +
          "/y_ref.tensor");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("missing.tensor"), std::string::npos) << r.out;
  r = run("check --op data/ops/small_linear.json --expected " + dir + "/y_ref.tensor --actual " + dir +
          "/y_ref.tensor --check sideways");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(run("check --help").code, 0);
  EXPECT_EQ(run("ref --help").code, 0);
}

TEST(Cli, LayoutTransformRefAndExactCheck) {
  const std::string dir = temp_dir("transform");
  const std::string op = "data/ops/small_transform_bf16.json";
  CliRun r = run("ref --op " + op + " --seed 7 --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/y_ref_vortex.tensor"));  // one path: no arithmetic
  EXPECT_EQ(read_tensor_file(dir + "/x.tensor").shape(), (Shape{3, 5, 7, 37}));
  const std::string y = dir + "/y_ref.tensor";
  r = run("check --op " + op + " --expected " + y + " --actual " + y + " --check candidate");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("NHWC -> NCHW"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact"), std::string::npos) << r.out;

  Tensor bad = read_tensor_file(y);
  bad.set_bits(100, bad.bits(100) ^ 1u);  // one bf16 ulp
  write_tensor_file(dir + "/bad.tensor", bad);
  r = run("check --op " + op + " --expected " + y + " --actual " + dir + "/bad.tensor");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("bit mismatches 1"), std::string::npos) << r.out;
  r = run("check --op " + op + " --expected " + y + " --actual " + dir + "/y_poison.tensor");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("unwritten      3885"), std::string::npos) << r.out;
  // There is no tolerance to loosen.
  r = run("check --op " + op + " --expected " + y + " --actual " + dir + "/bad.tensor --atol 1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("bit for bit"), std::string::npos) << r.out;
  r = run("ref --op data/ops/bad_transform_tf32.json --seed 1 --out " + dir);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("precision"), std::string::npos) << r.out;
}
