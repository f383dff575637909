// Candidate builds (real nvcc, a private cache), the cache, ELF inspection and the sandbox
// rules. Each nvcc build takes about a second; the set is kept small for CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "gpu/candidate_build.h"
#include "gpu/driver.h"
#include "gpu/elf_inspect.h"
#include "gpu/sandbox.h"
#include "test_util.h"

namespace vxsynth::gpu {
namespace {

using testing::TempDir;

const std::string kCandidates = "gpu/candidates/";

bool has_violation(const SandboxVerdict& v, const std::string& rule, const std::string& item) {
  return std::any_of(v.violations.begin(), v.violations.end(),
                     [&](const SandboxViolation& x) { return x.rule == rule && x.item == item; });
}

class CandidateBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    VXSYNTH_REQUIRE_NVCC();
    options_.cache_dir = cache_.path();
  }
  TempDir cache_{"gpu-cache"};
  BuildOptions options_;
};

TEST_F(CandidateBuild, GoodCandidateIsAcceptedAndCached) {
  const auto first = build_candidate(kCandidates + "linear_naive.cu", options_);
  EXPECT_FALSE(first.cache_hit);
  EXPECT_EQ(first.name, "linear_naive");
  EXPECT_GT(first.seconds, 0.0);
  ASSERT_TRUE(std::filesystem::exists(first.shared_object));
  EXPECT_EQ(std::filesystem::path(first.shared_object).filename().string(), first.key + ".so");

  const auto info = inspect_elf(first.shared_object);
  EXPECT_TRUE(info.exports(kLaunchSymbol));
  EXPECT_TRUE(std::any_of(info.needed.begin(), info.needed.end(),
                          [](const std::string& n) { return n.rfind("libcudart.so", 0) == 0; }));
  const auto verdict = check_sandbox(info);
  EXPECT_TRUE(verdict.ok()) << verdict.describe("linear_naive");

  const auto second = build_candidate(kCandidates + "linear_naive.cu", options_);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.shared_object, first.shared_object);

  // Any change of flags is a different build.
  BuildOptions other = options_;
  other.extra_flags = {"-DVXSYNTH_TEST_FLAG=1"};
  const auto third = build_candidate(kCandidates + "linear_naive.cu", other);
  EXPECT_FALSE(third.cache_hit);
  EXPECT_NE(third.key, first.key);
}

TEST_F(CandidateBuild, AdmittedCandidatesCarryTheOpsTheyRunOn) {
  // The refine loop's pairing reaches the job: candidate i runs on candidate_ops[i] only.
  DriverOptions driver;
  driver.cache_dir = cache_.path();
  driver.jobs = 2;
  Json log;
  const auto admitted = build_and_admit({kCandidates + "linear_naive.cu", kCandidates + "linear_tiled.cu"},
                                        {{"act-1-linear"}, {"act-2-linear"}}, driver, log);
  ASSERT_EQ(admitted.size(), 2u);
  EXPECT_EQ(admitted[0].name, "linear_naive");
  EXPECT_EQ(admitted[0].ops, std::vector<std::string>{"act-1-linear"});
  EXPECT_EQ(admitted[1].name, "linear_tiled");
  EXPECT_EQ(admitted[1].ops, std::vector<std::string>{"act-2-linear"});
  EXPECT_TRUE(build_and_admit({kCandidates + "linear_naive.cu"}, {}, driver, log)[0].ops.empty());
  EXPECT_THROW(build_and_admit({kCandidates + "linear_naive.cu"}, {{"a"}, {"b"}}, driver, log), WorkError);
}

TEST_F(CandidateBuild, CacheKeyCoversSourceAndFlags) {
  const std::vector<std::string> flags = {"-arch=sm_90", "-O3"};
  const std::string k = build_key("a", "nvcc 13.0", flags);
  EXPECT_NE(k, build_key("b", "nvcc 13.0", flags));
  EXPECT_NE(k, build_key("a", "nvcc 13.1", flags));
  EXPECT_NE(k, build_key("a", "nvcc 13.0", {"-arch=sm_90", "-O2"}));
  // Include paths name machine-local folders; the header's content is hashed instead.
  EXPECT_EQ(k, build_key("a", "nvcc 13.0", {"-arch=sm_90", "-O3", "-I/somewhere/else"}));
}

TEST(CandidateTarget, DeclaredOnItsOwnLineSelectsTheArchSpecificTarget) {
  EXPECT_EQ(declared_target("x.cu", "// vxsynth-target: sm_90a\n#include <cuda.h>\n"), "sm_90a");
  EXPECT_EQ(declared_target("x.cu", "#include <cuda.h>\n// vxsynth-target: sm_90a\n"), "sm_90a");
  EXPECT_EQ(declared_target("x.cu", "#include <cuda.h>\n"), "");
  // only a line of its own counts: a mention inside another comment does not
  EXPECT_EQ(declared_target("x.cu", "/* see // vxsynth-target: sm_90a */\n"), "");
  EXPECT_THROW(declared_target("x.cu", "// vxsynth-target: sm_100a\n"), vxsynth::InputError);
  BuildOptions options;
  const auto plain = nvcc_flags(options, "/inc");
  const auto arch_specific = nvcc_flags(options, "/inc", "sm_90a");
  EXPECT_EQ(plain.front(), "-arch=sm_90");
  EXPECT_EQ(arch_specific.front(), "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_NE(build_key("a", "nvcc 13.0", plain), build_key("a", "nvcc 13.0", arch_specific));
}

TEST_F(CandidateBuild, ArchSpecificCandidateBuildsForItsTargetAndPassesTheSandbox) {
  // TMA + wgmma: wgmma exists only on sm_90a; the tensor-map encoder is reached through the
  // runtime's driver entry point, so the object still links nothing but the CUDA runtime.
  // The source is the suite's locked pi0-2 proxy, written by src/codegen/hopper_emitter.cpp
  // and profiled on the H200 byte for byte.
  const std::string source = "../suite/vx-robotics/h200/pi0-2-linear/cuda/candidate.cu";
  ASSERT_EQ(declared_target(source, testing::read_text(source)), "sm_90a");
  const auto r = build_candidate(source, options_);
  EXPECT_FALSE(r.shared_object.empty());
  const auto verdict = check_sandbox(inspect_elf(r.shared_object));
  EXPECT_TRUE(verdict.ok()) << verdict.describe(source);
}

TEST_F(CandidateBuild, VendorAndFileCallsAreRejected) {
  const auto results = build_candidates({kCandidates + "bad/calls_cublas.cu", kCandidates + "bad/reads_file.cu",
                                         kCandidates + "bad/no_entry_point.cu"},
                                        options_, 2);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) ASSERT_TRUE(r.error.empty()) << r.error;

  const auto cublas = check_sandbox(inspect_elf(results[0].shared_object));
  EXPECT_TRUE(has_violation(cublas, "vendor-symbol", "cublasCreate_v2")) << cublas.describe("calls_cublas");
  EXPECT_TRUE(has_violation(cublas, "vendor-symbol", "cublasSgemm_v2"));

  const auto file = check_sandbox(inspect_elf(results[1].shared_object));
  EXPECT_TRUE(has_violation(file, "file-access", "fopen")) << file.describe("reads_file");
  EXPECT_TRUE(has_violation(file, "file-access", "fread"));

  const auto abi = check_sandbox(inspect_elf(results[2].shared_object));
  EXPECT_TRUE(has_violation(abi, "abi", kLaunchSymbol)) << abi.describe("no_entry_point");

  EXPECT_THROW(enforce_sandbox(results[0].shared_object), WorkError);
}

TEST_F(CandidateBuild, LinkedVendorLibraryIsRejected) {
  // The same good source linked against cuBLAS: the needed-library rule alone must catch it.
  BuildOptions linked = options_;
  linked.extra_flags = {"-Xlinker", "--no-as-needed", "-lcublas"};
  const auto r = build_candidate(kCandidates + "linear_naive.cu", linked);
  const auto info = inspect_elf(r.shared_object);
  const auto verdict = check_sandbox(info);
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.violations.front().rule, "library");
  EXPECT_NE(verdict.violations.front().item.find("libcublas"), std::string::npos);
}

TEST_F(CandidateBuild, CompileErrorNamesTheSourceAndQuotesNvcc) {
  TempDir src("gpu-src");
  const std::string path = src / "broken.cu";
  testing::write_text(path, "#include \"vxsynth_candidate.h\"\nextern \"C\" int vxsynth_candidate_launch(\n");
  try {
    build_candidate(path, options_);
    FAIL() << "a broken source built";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find("nvcc failed"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("broken.cu"), std::string::npos);
  }
  // In a parallel build the failure is reported per candidate, the others still build.
  const auto results = build_candidates({path, kCandidates + "linear_naive.cu"}, options_, 2);
  EXPECT_FALSE(results[0].error.empty());
  EXPECT_TRUE(results[1].error.empty());
}

TEST(ElfInspect, RejectsWhatIsNotASharedObject) {
  EXPECT_THROW(inspect_elf_bytes("", "empty"), InputError);
  EXPECT_THROW(inspect_elf_bytes(std::string(64, 'x'), "text"), InputError);
  std::string fake(64, '\0');
  fake.replace(0, 4, "\x7f" "ELF");
  fake[4] = 1;  // 32-bit
  fake[5] = 1;
  EXPECT_THROW(inspect_elf_bytes(fake, "elf32"), InputError);
  fake[4] = 2;
  fake[16] = 2;  // ET_EXEC
  EXPECT_THROW(inspect_elf_bytes(fake, "exec"), InputError);
  EXPECT_THROW(inspect_elf("gpu/no-such-file.so"), InputError);
}

TEST(ElfInspect, TruncatedObjectIsAnInputErrorNotACrash) {
  VXSYNTH_REQUIRE_NVCC();
  TempDir cache("gpu-cache");
  BuildOptions o;
  o.cache_dir = cache.path();
  const auto r = build_candidate(kCandidates + "linear_naive.cu", o);
  const std::string bytes = testing::read_text(r.shared_object);
  for (std::size_t cut : {std::size_t{100}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 10}) {
    EXPECT_THROW(inspect_elf_bytes(bytes.substr(0, cut), "truncated"), InputError) << "cut at " << cut;
  }
  EXPECT_NO_THROW(inspect_elf_bytes(bytes, "whole"));
}

TEST(Sandbox, RulesOnSyntheticSymbolTables) {
  ElfDynamicInfo ok;
  ok.needed = {"libcudart.so.13", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6"};
  ok.undefined = {{"__cudaLaunchKernel", false, true}, {"cudaGetLastError", false, true}, {"expf", false, true}};
  ok.defined = {{kLaunchSymbol, false, true}};
  EXPECT_TRUE(check_sandbox(ok).ok());

  auto with = [&](auto change) {
    ElfDynamicInfo info = ok;
    change(info);
    return check_sandbox(info);
  };
  EXPECT_TRUE(has_violation(with([](auto& i) { i.needed.push_back("libcudnn.so.9"); }), "library", "libcudnn.so.9"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.needed.push_back("libz.so.1"); }), "library", "libz.so.1"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.undefined.push_back({"cudnnConvolutionForward", false, true}); }),
                            "vendor-symbol", "cudnnConvolutionForward"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.undefined.push_back({"open64", false, true}); }), "file-access", "open64"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.undefined.push_back({"dlopen", false, true}); }), "dynamic-loading", "dlopen"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.undefined.push_back({"cuGetProcAddress_v2", false, true}); }),
                            "dynamic-loading", "cuGetProcAddress_v2"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.undefined.push_back({"popen", false, true}); }), "process", "popen"));
  EXPECT_TRUE(has_violation(
      with([](auto& i) { i.undefined.push_back({"_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", false, true}); }),
      "file-access", "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode"));
  EXPECT_TRUE(has_violation(with([](auto& i) { i.defined.clear(); }), "abi", kLaunchSymbol));
  // Names that merely contain a forbidden word are not flagged.
  EXPECT_TRUE(with([](auto& i) { i.undefined.push_back({"opendir_like_helper", false, true}); }).ok());
}

}  // namespace
}  // namespace vxsynth::gpu
