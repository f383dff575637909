// `vxsynth sim cc` and `vxsynth sim run` as a user runs them: kernels written only against
// the Vortex API names are compiled with the cross toolchain and vortex-rt, then run
// standalone on several machine shapes; exit codes, console, --perf, --json, faults, the
// instruction budget and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "host_test_util.h"

using namespace vxrt_test;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

const std::string kCli = VXSYNTH_CLI;

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class SimCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("vxsim-cli-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string path(const std::string& name) { return (dir_ / name).string(); }
  static std::string write_source(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
    return path(name);
  }
  static ProcessResult cc(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kCli, "sim", "cc"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
  }
  static ProcessResult sim_run(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kCli, "sim", "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
  }
  // Builds once per test suite run.
  static std::string built(const std::string& example) {
    const std::string out = path(example + ".vxbin");
    if (!fs::exists(out)) {
      const ProcessResult r = cc({std::string(VORTEX_RT_SOURCE_DIR) + "/examples/" + example + "/kernel.cpp", "-o", out});
      EXPECT_EQ(r.status, 0) << r.output;
    }
    return out;
  }

  static fs::path dir_;
};
fs::path SimCli::dir_;

TEST_F(SimCli, CcWritesVxbinElfAndAnnotatedDump) {
  const std::string out = built("hello");
  const std::string stem = out.substr(0, out.size() - 6);
  ASSERT_TRUE(fs::exists(stem + ".elf"));
  ASSERT_TRUE(fs::exists(stem + ".dump"));
  // .vxbin header: min_vma = 0x80000000 (STARTUP_ADDR), max_vma past the image.
  std::ifstream in(out, std::ios::binary);
  uint64_t header[2] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  EXPECT_EQ(header[0], 0x80000000u);
  EXPECT_GE(header[1], header[0] + fs::file_size(out) - 16);
  std::ifstream dump_file(stem + ".dump");
  std::string dump((std::istreambuf_iterator<char>(dump_file)), std::istreambuf_iterator<char>());
  EXPECT_THAT(dump, HasSubstr("<_start>:"));
  EXPECT_THAT(dump, HasSubstr("wspawn"));  // Vortex instructions are named, not ".4byte"
  EXPECT_THAT(dump, HasSubstr("tmc"));
  EXPECT_THAT(dump, HasSubstr("<vx_spawn_threads>:"));
}

// The raw image for SimX's standalone runner: the .vxbin without its header, loaded at
// STARTUP_ADDR; a missing output folder is created.
TEST_F(SimCli, CcWritesTheBinImageIntoANewFolder) {
  const std::string out = path("new/deeper/hello.vxbin");
  ASSERT_FALSE(fs::exists(path("new")));
  const ProcessResult r = cc({std::string(VORTEX_RT_SOURCE_DIR) + "/examples/hello/kernel.cpp", "-o", out});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hello.bin"));
  std::ifstream vxbin(out, std::ios::binary), bin(path("new/deeper/hello.bin"), std::ios::binary);
  const std::string v((std::istreambuf_iterator<char>(vxbin)), {}), b((std::istreambuf_iterator<char>(bin)), {});
  ASSERT_GT(v.size(), 16u);
  EXPECT_EQ(b, v.substr(16));
  const ProcessResult run_it = sim_run({out, "--plain-console"});
  EXPECT_EQ(run_it.status, 0) << run_it.output;

  // An output path under an existing file cannot be made.
  std::ofstream(path("plainfile")) << "x";
  const ProcessResult blocked = cc({std::string(VORTEX_RT_SOURCE_DIR) + "/examples/hello/kernel.cpp", "-o",
                                    path("plainfile/hello.vxbin")});
  EXPECT_EQ(blocked.status, 2) << blocked.output;
  EXPECT_THAT(blocked.output, HasSubstr("plainfile"));
}

// -D and -I take one value each, separate or attached, so a source after them stays a source.
TEST_F(SimCli, DefineAndIncludeTakeOneValueInEitherForm) {
  fs::create_directories(path("inc"));
  std::ofstream(path("inc/answer.h")) << "#define ANSWER_BASE 40\n";
  const std::string src = write_source(
      "defines.c",
      "#include <answer.h>\n"
      "#ifndef EXTRA\n#error EXTRA is not defined\n#endif\n"
      "int main(void) { return ANSWER_BASE + EXTRA + TWO - 44; }\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-D", "EXTRA=2", "-D", "TWO=2", "-I", path("inc"), src},
           {"-DEXTRA=2", "-DTWO=2", "-I" + path("inc"), src},
           {src, "-D", "TWO=2", "-DEXTRA=2", "-I", path("inc")}}) {
    std::vector<std::string> argv = args;
    argv.insert(argv.end(), {"-o", path("defines.vxbin")});
    const ProcessResult r = cc(argv);
    ASSERT_EQ(r.status, 0) << r.output;
    const ProcessResult ran = sim_run({path("defines.vxbin")});
    EXPECT_EQ(ran.status, 0) << "40 + 2 + 2 - 44: " << ran.output;
  }
  // A flag-only -D NAME followed by the source: the source is not swallowed.
  const std::string plain = write_source("plain.c", "#ifndef FLAG\n#error no FLAG\n#endif\nint main(void){return 0;}\n");
  const ProcessResult r = cc({"-D", "FLAG", plain, "-o", path("plain.vxbin")});
  EXPECT_EQ(r.status, 0) << r.output;
}

// hello uses only vx_spawn.h / vx_print.h names; every task greets once.
TEST_F(SimCli, HelloRunsOnEveryShape) {
  const std::string kernel = built("hello");
  struct Shape {
    int cores, warps, threads;
  };
  for (Shape s : {Shape{1, 4, 4}, Shape{1, 1, 1}, Shape{3, 2, 8}, Shape{2, 8, 32}}) {
    const ProcessResult r = sim_run({kernel, "--cores", std::to_string(s.cores), "--warps", std::to_string(s.warps),
                                     "--threads", std::to_string(s.threads), "--plain-console"});
    const std::string shape = std::to_string(s.cores) + "/" + std::to_string(s.warps) + "/" + std::to_string(s.threads);
    EXPECT_EQ(r.status, 0) << shape << "\n" << r.output;
    EXPECT_EQ(last_line(r.output), "0 of 15 cells wrong") << shape;
    std::set<std::string> greeted;
    static const std::regex greeting(R"(hello from task \((\d+), (\d+)\) on core (\d+), warp (\d+), thread (\d+))");
    for (const std::string& line : lines_of(r.output)) {
      std::smatch m;
      if (!std::regex_match(line, m, greeting)) continue;
      EXPECT_TRUE(greeted.insert(m[1].str() + "," + m[2].str()).second) << line;
      EXPECT_LT(std::stoi(m[3]), s.cores) << line;
    }
    EXPECT_EQ(greeted.size(), 15u) << shape << "\n" << r.output;
  }
}

TEST_F(SimCli, IntrinsicsSelfCheckPasses) {
  const std::string kernel = built("intrinsics");
  for (const char* shape : {"1,4,4", "2,2,8", "1,1,1", "2,4,32", "1,8,2"}) {
    int c = 0, w = 0, t = 0;
    ASSERT_EQ(std::sscanf(shape, "%d,%d,%d", &c, &w, &t), 3);
    const ProcessResult r = sim_run({kernel, "--cores", std::to_string(c), "--warps", std::to_string(w), "--threads",
                                     std::to_string(t)});
    EXPECT_EQ(r.status, 0) << shape << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("intrinsics: 0 of 14 checks failed")) << shape;
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("FAILED")));
  }
}

// vx_spawn_threads' mapping of 3-D grids and blocks, local memory slices and barriers.
TEST_F(SimCli, CtaIndexMappingLocalMemoryAndBarriers) {
  const std::string kernel = built("cta");
  for (const char* shape : {"1,4,4", "2,2,8", "1,1,1", "3,8,2", "2,4,32", "1,16,1", "4,32,4"}) {
    int c = 0, w = 0, t = 0;
    ASSERT_EQ(std::sscanf(shape, "%d,%d,%d", &c, &w, &t), 3);
    const ProcessResult r = sim_run({kernel, "--cores", std::to_string(c), "--warps", std::to_string(w), "--threads",
                                     std::to_string(t), "--plain-console"});
    EXPECT_EQ(r.status, 0) << shape << "\n" << r.output;
    EXPECT_EQ(last_line(r.output), "cta: 0 of 5 launches wrong") << shape << "\n" << r.output;
  }
}

// vx_tensor.h: every format pair with an exactly predictable result, at every warp width.
TEST_F(SimCli, TensorFormatsAtEveryWarpWidth) {
  const std::string kernel = built("tensor_formats");
  for (int threads : {1, 2, 4, 8, 16, 32}) {
    const ProcessResult r = sim_run({kernel, "--threads", std::to_string(threads), "--cores", "2", "--plain-console"});
    EXPECT_EQ(r.status, 0) << threads << "\n" << r.output;
    EXPECT_EQ(last_line(r.output),
              "tensor formats: 0 of 6 failed at " + std::to_string(threads) + " threads a warp") << r.output;
  }
}

// Vortex's "PERF: instrs=" is SimX's MINSTRET, which counts a WMMA as its micro-ops on every
// lane (m_steps * n_steps * k_steps each); our own per-lane count stays in the counters.
TEST_F(SimCli, PerfCountsWmmaAsSimxMicroOps) {
  const std::string kernel = built("tensor_formats");
  // At 4 threads a WMMA is 16 micro-ops: SimX counted 720 more thread-instructions than we did.
  for (int threads : {4, 32}) {
    const std::string shape = " --threads " + std::to_string(threads);
    const ProcessResult json = run_stdout(kCli + " sim run " + kernel + shape + " --perf --json");
    ASSERT_EQ(json.status, 0) << json.output;
    const auto doc = nlohmann::json::parse(json.output);
    const auto& total = doc["counters"]["total"];
    const uint64_t thread_instrs = total["thread_instructions"].get<uint64_t>();
    const uint64_t wmma = total["tensor"]["wmma_instructions"].get<uint64_t>();
    const uint64_t uops = total["tensor"]["uops"].get<uint64_t>();
    ASSERT_GT(wmma, 0u);
    ASSERT_GT(uops, wmma) << "every WMMA at " << threads << " threads is several micro-ops";
    EXPECT_EQ(doc["instrs"].get<uint64_t>(), thread_instrs + threads * (uops - wmma)) << threads;

    const ProcessResult text = sim_run({kernel, "--threads", std::to_string(threads), "--perf"});
    ASSERT_EQ(text.status, 0) << text.output;
    EXPECT_EQ(last_line(text.output), "PERF: instrs=" + std::to_string(doc["instrs"].get<uint64_t>()) +
                                          ", cycles=n/a, IPC=n/a");
    EXPECT_THAT(text.output, HasSubstr("thread-instrs with one per WMMA=" + std::to_string(thread_instrs)));
  }
}

TEST_F(SimCli, PerfEndsWithVortexSummaryOfThreadInstructions) {
  const std::string kernel = built("hello");
  const ProcessResult text = sim_run({kernel, "--perf", "--cores", "2"});
  ASSERT_EQ(text.status, 0) << text.output;
  std::smatch m;
  const std::string last = last_line(text.output);
  ASSERT_TRUE(std::regex_match(last, m, std::regex(R"(PERF: instrs=(\d+), cycles=n/a, IPC=n/a)"))) << last;
  EXPECT_THAT(text.output, HasSubstr("cycles are not modelled"));
  EXPECT_THAT(text.output, HasSubstr("PERF: core1: instrs="));

  const ProcessResult json = run_stdout(kCli + " sim run " + kernel + " --perf --json --cores 2");
  ASSERT_EQ(json.status, 0) << json.output;
  const auto doc = nlohmann::json::parse(json.output);  // console lines went to stderr
  EXPECT_EQ(doc["schema"], "vxsynth.vxsim-run/1");
  EXPECT_EQ(doc["exit_code"], 0);
  EXPECT_TRUE(doc["fault"].is_null());
  EXPECT_TRUE(doc["cycles"].is_null());
  EXPECT_EQ(doc["config"]["cores"], 2);
  EXPECT_EQ(doc["instrs"].get<uint64_t>(), std::stoull(m[1]));  // thread-instructions, as the text
  EXPECT_EQ(doc["counters"]["total"]["thread_instructions"].get<uint64_t>(), std::stoull(m[1]));
  EXPECT_LT(doc["counters"]["total"]["warp_instructions"].get<uint64_t>(), std::stoull(m[1]));
}

// Issue 18: counters per vx_spawn_threads call. Two calls of different sizes; a 16 KiB .bss
// array whose clearing at start-up (and main's serial code) must stay outside both regions.
TEST_F(SimCli, CountersPerSpawnRegion) {
  const std::string source = write_source("regions.cpp",
                                          "#include <vx_spawn.h>\n"
                                          "static uint32_t big[4096];\n"
                                          "static void small_job(void*) { big[blockIdx.x] = blockIdx.x + 1; }\n"
                                          "static void large_job(void*) { big[blockIdx.x] += 2; }\n"
                                          "int main() {\n"
                                          "  const uint32_t n1 = 100, n2 = 1000;\n"
                                          "  vx_spawn_threads(1, &n1, nullptr, small_job, nullptr);\n"
                                          "  vx_spawn_threads(1, &n2, nullptr, large_job, nullptr);\n"
                                          "  return (big[7] != 10) + (big[500] != 2);\n"
                                          "}\n");
  ASSERT_EQ(cc({source, "-o", path("regions.vxbin")}).status, 0);
  for (const std::string cores : {"1", "2"}) {
    SCOPED_TRACE("cores " + cores);
    const ProcessResult json =
        run_stdout(kCli + " sim run " + path("regions.vxbin") + " --json --timing vortex2 --cores " + cores);
    ASSERT_EQ(json.status, 0) << json.output;
    const auto doc = nlohmann::json::parse(json.output);
    ASSERT_TRUE(doc.contains("regions")) << "no per-region counters";
    const auto& regions = doc["regions"];
    ASSERT_EQ(regions.size(), 2u);
    auto count = [](const nlohmann::json& c, const char* key) { return c[key].get<uint64_t>(); };
    auto written = [](const nlohmann::json& c) { return c["memory"]["global_bytes_written"].get<uint64_t>(); };
    const auto& r0 = regions[0]["counters"];
    const auto& r1 = regions[1]["counters"];
    const auto& out = doc["outside_regions"];
    const auto& total = doc["counters"]["total"];
    EXPECT_EQ(regions[0]["cores"].get<uint32_t>(), std::stoul(cores));
    EXPECT_TRUE(regions[1]["closed"].get<bool>());
    // Ten times the tasks: several times the work (the spawn itself costs the same).
    EXPECT_GT(count(r1, "thread_instructions"), 4 * count(r0, "thread_instructions"));
    // Everything is in exactly one place.
    for (const char* key : {"warp_instructions", "thread_instructions"}) {
      EXPECT_EQ(count(r0, key) + count(r1, key) + count(out, key), count(total, key)) << key;
    }
    EXPECT_EQ(written(r0) + written(r1) + written(out), written(total));
    // The .bss clearing (16 KiB) is outside; the small job writes far less.
    EXPECT_GE(written(out), 4096u * 4);
    EXPECT_LT(written(r0), 4096u * 4);
    // Cycles per region, within the run's.
    const uint64_t c0 = regions[0]["cycles"].get<uint64_t>(), c1 = regions[1]["cycles"].get<uint64_t>();
    EXPECT_GT(c0, 0u);
    EXPECT_GT(c1, c0);
    EXPECT_LT(c0 + c1, doc["cycles"].get<uint64_t>());
  }
  const ProcessResult text = sim_run({path("regions.vxbin"), "--perf"});
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("PERF: region 0 (vx_spawn_threads on 1 core, "));
  EXPECT_THAT(text.output, HasSubstr("PERF: region 1 (vx_spawn_threads on 1 core, "));
  EXPECT_THAT(text.output, HasSubstr("PERF: outside regions (start-up incl. .bss clearing, serial code): warp instrs="));
  EXPECT_THAT(last_line(text.output), HasSubstr("PERF: instrs="));
  const ProcessResult timed = sim_run({path("regions.vxbin"), "--perf", "--timing", "vortex2"});
  ASSERT_EQ(timed.status, 0) << timed.output;
  EXPECT_TRUE(std::regex_search(timed.output, std::regex(R"(PERF: region 1 \(vx_spawn_threads on 1 core, 4 warps\): warp instrs=\d+, instrs=\d+, warp loads=\d+, warp stores=\d+, cycles=\d+, IPC=)")))
      << timed.output;
}

TEST_F(SimCli, ExitCodeIsTheKernels) {
  const std::string source = write_source("exit7.c",
                                          "#include <vx_intrinsics.h>\n"
                                          "int main(void) { return vx_num_warps() + 3; }\n");
  ASSERT_EQ(cc({source, "-o", path("exit7.vxbin")}).status, 0);
  const auto seven = sim_run({path("exit7.vxbin")});
  EXPECT_EQ(seven.status, 7);
  // Said, not only returned: a non-zero exit is the kernel's, and the run says so.
  EXPECT_THAT(seven.output, HasSubstr("the kernel exited with code 7"));
  EXPECT_EQ(sim_run({path("exit7.vxbin"), "--warps", "8"}).status, 11);
  EXPECT_EQ(sim_run({path("exit7.elf"), "--warps", "2"}).status, 5);  // the ELF runs too
}

TEST_F(SimCli, FaultPrintsTheReportAndExitsOne) {
  const std::string source = write_source("diverge.cpp",
                                          "#include <vx_spawn.h>\n"
                                          "int out[64];  // visible: the stores must stay\n"
                                          "static void body(void*) {\n"
                                          "  if (threadIdx.x + blockIdx.x * blockDim.x < 3) {  // lanes disagree\n"
                                          "    out[blockIdx.x] = 1;\n"
                                          "  }\n"
                                          "}\n"
                                          "int main() {\n"
                                          "  uint32_t grid = 2, block = 4;\n"
                                          "  return vx_spawn_threads(1, &grid, &block, body, nullptr);\n"
                                          "}\n");
  // GCC inserts no split/join (the default clang toolchain would handle this branch).
  ASSERT_EQ(cc({source, "-O", "2", "--compiler", "gcc", "-o", path("diverge.vxbin")}).status, 0);
  const ProcessResult r = sim_run({path("diverge.vxbin")});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("divergent_branch"));
  EXPECT_THAT(r.output, HasSubstr("diverge.cpp:4"));  // line info from the .elf beside the .vxbin

  const std::string spin = write_source("spin.c",
                                        "volatile int forever = 1;\n"
                                        "int main(void) { while (forever) {} return 0; }\n");
  ASSERT_EQ(cc({spin, "-o", path("spin.vxbin")}).status, 0);
  const ProcessResult budget = sim_run({path("spin.vxbin"), "--max-instrs", "20000"});
  EXPECT_EQ(budget.status, 1);
  EXPECT_THAT(budget.output, HasSubstr("budget"));

  const ProcessResult json = run_stdout(kCli + " sim run " + path("diverge.vxbin") + " --json");
  EXPECT_EQ(json.status, 1);
  const auto doc = nlohmann::json::parse(json.output);
  EXPECT_EQ(doc["fault"]["kind"], "divergent_branch");
  EXPECT_TRUE(doc["exit_code"].is_null());
}

// Access control of the loaded image: code is never writable; initialised data is writable when
// the ELF is loaded (its own segment), read-only from a .vxbin (Vortex marks the file image so).
TEST_F(SimCli, ImageAccessControl) {
  const std::string data_source = write_source("data.c",
                                               "int counter = 5;  // .data\n"
                                               "int main(void) { counter += 1; return counter; }\n");
  ASSERT_EQ(cc({data_source, "-o", path("data.vxbin")}).status, 0);
  EXPECT_EQ(sim_run({path("data.elf")}).status, 6);
  const ProcessResult vxbin = sim_run({path("data.vxbin")});
  EXPECT_EQ(vxbin.status, 1);
  EXPECT_THAT(vxbin.output, HasSubstr("acl_violation"));

  const std::string code_source = write_source("selfmod.c",
                                               "#include <stdint.h>\n"
                                               "int main(void) {\n"
                                               "  *(volatile uint32_t*)(uintptr_t)&main = 0;  // overwrite own code\n"
                                               "  return 0;\n"
                                               "}\n");
  // Built by GCC, whose line table puts the faulting store on selfmod.c:3 (clang's attributes
  // the inlined store differently; the ACL check itself is the subject here).
  ASSERT_EQ(cc({code_source, "--compiler", "gcc", "-o", path("selfmod.vxbin")}).status, 0);
  for (const char* ext : {".elf", ".vxbin"}) {
    const ProcessResult r = sim_run({path(std::string("selfmod") + ext)});
    EXPECT_EQ(r.status, 1) << ext;
    EXPECT_THAT(r.output, HasSubstr("acl_violation")) << ext;
    EXPECT_THAT(r.output, HasSubstr("selfmod.c:3")) << ext;
  }
}

// A kernel written for a host program, run alone: its argument pointer (MSCRATCH) is 0. The
// run says so instead of ending with a bare exit code (or a bare fault).
TEST_F(SimCli, KernelThatNeedsHostArgumentsSaysItsArgumentPointerIsNull) {
  const std::string source = write_source("needs_args.c",
                                          "#include <vx_spawn.h>\n"
                                          "typedef struct { uint32_t grid[1]; uint32_t block[1]; } kernel_arg_t;\n"
                                          "static void body(void* arg) { (void)arg; }\n"
                                          "int main(void) {\n"
                                          "  kernel_arg_t* arg = (kernel_arg_t*)csr_read(VX_CSR_MSCRATCH);\n"
                                          "  // A null grid makes vx_spawn_threads return -1: exit 255.\n"
                                          "  return vx_spawn_threads(1, arg ? arg->grid : 0, 0, body, arg);\n"
                                          "}\n");
  ASSERT_EQ(cc({source, "-o", path("needs_args.vxbin")}).status, 0);
  const ProcessResult r = sim_run({path("needs_args.vxbin")});
  EXPECT_EQ(r.status, 255) << r.output;
  EXPECT_THAT(r.output, HasSubstr("vxsynth: note: the kernel read its argument pointer (MSCRATCH) and got 0"));
  EXPECT_THAT(r.output, HasSubstr("probably needs a host program"));
  EXPECT_THAT(r.output, HasSubstr("(exit code -1)"));
  const ProcessResult json = run_stdout(kCli + " sim run " + path("needs_args.vxbin") + " --json");
  const auto doc = nlohmann::json::parse(json.output);
  EXPECT_EQ(doc["exit_code"], -1);
  EXPECT_EQ(doc["argument_pointer_null"], true);
  EXPECT_THAT(doc["argument_note"].get<std::string>(), HasSubstr("needs a host program"));

  // The saxpy example reads its arguments through the null pointer: a fault, and the same note.
  const ProcessResult saxpy = sim_run({built("saxpy")});
  EXPECT_EQ(saxpy.status, 1) << saxpy.output;
  EXPECT_THAT(saxpy.output, HasSubstr("argument pointer (MSCRATCH) and got 0"));

  // No note for a kernel that succeeds, nor for one that passes no arguments (hello: vx_spawn_threads
  // borrows MSCRATCH, which is not a read of an argument pointer).
  const ProcessResult hello = sim_run({built("hello")});
  EXPECT_EQ(hello.status, 0);
  EXPECT_THAT(hello.output, ::testing::Not(HasSubstr("argument pointer")));
  const std::string checks = write_source("checks_args.c",
                                          "#include <vx_intrinsics.h>\n"
                                          "int main(void) { return csr_read(VX_CSR_MSCRATCH) ? 0 : 0; }\n");
  ASSERT_EQ(cc({checks, "-o", path("checks_args.vxbin")}).status, 0);
  const ProcessResult ok = sim_run({path("checks_args.vxbin")});
  EXPECT_EQ(ok.status, 0);
  EXPECT_THAT(ok.output, ::testing::Not(HasSubstr("argument pointer")));
}

// With several cores every core has its own 64 console slots, so a slot number alone does not
// say who printed: lines read "#CORE.SLOT: ". Every core runs main(); with 32-thread warps
// (4 warps, 128 harts per core) core 1's first hart is 128, slot 0 like core 0's: both lines
// used to read "#0: ".
TEST_F(SimCli, ConsoleLinesNameTheCoreWhenThereAreSeveral) {
  // vx_core_id() is declared by vx_intrinsics.h (as in Vortex), not by vx_print.h.
  const std::string source = write_source("per_core.c",
                                          "#include <vx_intrinsics.h>\n"
                                          "#include <vx_print.h>\n"
                                          "int main(void) {\n"
                                          "  vx_printf(\"main on core %d\\n\", vx_core_id());\n"
                                          "  return 0;\n"
                                          "}\n");
  const ProcessResult built_per_core = cc({source, "-o", path("per_core.vxbin")});
  ASSERT_EQ(built_per_core.status, 0) << built_per_core.output;
  ProcessResult r = sim_run({path("per_core.vxbin"), "--cores", "2", "--threads", "32"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("#0.0: main on core 0\n"));
  EXPECT_THAT(r.output, HasSubstr("#1.0: main on core 1\n"));
  // The slot is still the hart id modulo 64: hello's tasks spread over 2 cores of 2 x 4 lanes.
  r = sim_run({built("hello"), "--cores", "2", "--warps", "2", "--threads", "4"});
  ASSERT_EQ(r.status, 0) << r.output;
  static const std::regex greeting(
      R"(#(\d+)\.(\d+): hello from task \((\d+), (\d+)\) on core (\d+), warp (\d+), thread (\d+))");
  int seen = 0;
  std::set<std::string> cores;
  for (const std::string& line : lines_of(r.output)) {
    std::smatch m;
    if (line.find("hello from") == std::string::npos) continue;
    ASSERT_TRUE(std::regex_match(line, m, greeting)) << line;
    EXPECT_EQ(m[1].str(), m[5].str()) << line;  // the label's core
    EXPECT_EQ(std::stoi(m[2]), ((std::stoi(m[5]) * 2 + std::stoi(m[6])) * 4 + std::stoi(m[7])) % 64) << line;
    cores.insert(m[1].str());
    ++seen;
  }
  EXPECT_EQ(seen, 15);
  EXPECT_EQ(cores, (std::set<std::string>{"0", "1"})) << r.output;
  // One core keeps Vortex's own "#SLOT: ".
  const ProcessResult one = sim_run({path("per_core.vxbin")});
  EXPECT_THAT(one.output, HasSubstr("#0: main on core 0\n"));
}

// --trace writes one line per executed warp instruction; --pc-profile ranks the PCs and names
// their source lines (from the .elf beside the .vxbin).
// Every source line must be the right file's: clang's assembler once gave vx_start.S line rows
// that linker relaxation had shifted onto main's loop (sim cc now assembles with GNU as).
TEST_F(SimCli, TraceAndPcProfile) {
  const std::string source = write_source("hot_loop.c",
                                          "volatile int sink;\n"
                                          "int main(void) {\n"
                                          "  int acc = 0;\n"
                                          "  for (int i = 0; i < 3000; ++i) acc += i * (acc | 3);\n"
                                          "  sink = acc;\n"
                                          "  return 0;\n"
                                          "}\n");
  ASSERT_EQ(cc({source, "-O", "1", "-o", path("hot_loop.vxbin")}).status, 0);
  const std::string trace = path("hot_loop.trace");
  const ProcessResult json = run_stdout(kCli + " sim run " + path("hot_loop.vxbin") + " --json --pc-profile --pc-top 5 --trace " + trace);
  ASSERT_EQ(json.status, 0) << json.output;
  const auto doc = nlohmann::json::parse(json.output);
  // The trace: every warp instruction, the first at the start-up address.
  const auto trace_lines = lines_of(read_file(trace));
  EXPECT_EQ(trace_lines.size(), doc["counters"]["total"]["warp_instructions"].get<uint64_t>());
  ASSERT_FALSE(trace_lines.empty());
  EXPECT_THAT(trace_lines.front(), ::testing::StartsWith("c0 w0 80000000 m00000001  "));
  // The profile: five PCs, hottest first, all in the loop on line 4, each run 3000 times.
  const auto& hot = doc["pc_profile"]["hottest"];
  ASSERT_EQ(hot.size(), 5u);
  EXPECT_GT(doc["pc_profile"]["pcs"].get<uint64_t>(), 5u);
  for (std::size_t i = 0; i < hot.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(hot[i]["thread_instructions"].get<uint64_t>(), hot[i - 1]["thread_instructions"].get<uint64_t>());
    }
    EXPECT_THAT(hot[i]["source"].get<std::string>(), ::testing::EndsWith("hot_loop.c:4")) << hot[i].dump();
    EXPECT_EQ(hot[i]["warp_instructions"].get<uint64_t>(), 3000u) << hot[i].dump();
  }
  // Text: the table after the run; a trace limit stops the file early and says so.
  const ProcessResult text = sim_run({path("hot_loop.vxbin"), "--pc-profile", "--pc-top", "3", "--trace", trace,
                                      "--trace-limit", "10"});
  EXPECT_EQ(text.status, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("PC profile: the 3 hottest of"));
  EXPECT_THAT(text.output, HasSubstr("hot_loop.c:4"));
  EXPECT_THAT(text.output, HasSubstr("trace: 10 warp instructions written to " + trace + " (stopped at --trace-limit;"));
  EXPECT_EQ(lines_of(read_file(trace)).size(), 10u);
  EXPECT_EQ(sim_run({path("hot_loop.vxbin"), "--trace", path("no/such/dir/t.trace")}).status, 2);
}

TEST_F(SimCli, BadInputIsExitTwoWithAClearMessage) {
  const ProcessResult missing = sim_run({path("nothing.vxbin")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.output, HasSubstr("nothing.vxbin"));

  std::ofstream(path("garbage.vxbin"), std::ios::binary) << "not a kernel at all, just text";
  const ProcessResult garbage = sim_run({path("garbage.vxbin")});
  EXPECT_EQ(garbage.status, 2) << garbage.output;
  EXPECT_THAT(garbage.output, HasSubstr("garbage.vxbin"));

  const ProcessResult shape = sim_run({built("hello"), "--warps", "3"});
  EXPECT_EQ(shape.status, 2);
  EXPECT_THAT(shape.output, HasSubstr("warps"));

  const ProcessResult no_source = cc({path("absent.c"), "-o", path("x.vxbin")});
  EXPECT_EQ(no_source.status, 2);
  EXPECT_THAT(no_source.output, HasSubstr("absent.c"));

  const std::string ok = write_source("ok.c", "int main(void) { return 0; }\n");
  const ProcessResult bad_out = cc({ok, "-o", path("x.bin")});
  EXPECT_EQ(bad_out.status, 2);
  EXPECT_THAT(bad_out.output, HasSubstr(".vxbin"));

  const std::string broken = write_source("broken.c", "int main(void) { return undeclared_name; }\n");
  const ProcessResult compile = cc({broken, "-o", path("broken.vxbin")});
  EXPECT_EQ(compile.status, 1);
  EXPECT_THAT(compile.output, HasSubstr("undeclared_name"));  // the compiler's own diagnostic
  EXPECT_FALSE(fs::exists(path("broken.vxbin")));

  EXPECT_EQ(run({kCli, "sim", "run", "--help"}).status, 0);
  EXPECT_EQ(run({kCli, "sim", "cc", "--help"}).status, 0);
  EXPECT_EQ(run({kCli, "sim"}).status, 2);
}

}  // namespace
