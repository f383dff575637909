// Generated code, tested through one testbed (codegen_testbed.h): for each op family and
// precision path, a sample of the design space in which every axis value occurs (the seed and
// its single-axis neighbours) plus seeded random designs, on odd shapes that are multiples of
// no tile (design_samples.h). The CUDA side must compile with nvcc -arch=sm_90; the Vortex
// side runs on the embedded simulator in tests/refine (run_on_simulator).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "codegen_testbed.h"
#include "design_samples.h"
#include "common/error.h"
#include "design/sample.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

using design::DesignPoint;
using design::EngineClass;
using ops::PrecisionPath;
namespace tb = testbed;

// Sets `nvcc` for a test that compiles CUDA, or leaves it "" after marking the test skipped or
// failed: nvcc is a dependency of `make test`, so a missing one fails unless explicitly allowed
// (then the skip is listed in make test's closing lines). The caller returns on "".
void find_nvcc_for_test(std::string& nvcc) {
  nvcc = tb::find_nvcc();
  if (!nvcc.empty()) return;
  const char* allow = std::getenv("VXSYNTH_ALLOW_MISSING_NVCC");
  if (allow && std::string(allow) == "1") GTEST_SKIP() << "nvcc not found (VXSYNTH_ALLOW_MISSING_NVCC=1)";
  ADD_FAILURE() << "nvcc not found (set VXSYNTH_NVCC, or VXSYNTH_ALLOW_MISSING_NVCC=1 to skip)";
}

// `designs` compile as one sm_90 translation unit, and nvcc reports no warning (an unused
// variable or a narrowing in generated code shows here).
void expect_compiles_without_warnings(const std::vector<DesignPoint>& designs, const std::string& scratch, const std::string& nvcc) {
  const std::filesystem::path dir = tb::scratch_dir(scratch);
  EXPECT_EQ(tb::compile_cuda_batch(designs, dir, nvcc), "");
  // The batch again, its output kept.
  std::string output;
  run_program({nvcc, "-arch=sm_90", "-std=c++17", "-c", (dir / "batch.cu").string(), "-o", (dir / "batch2.o").string(), "-I",
               VXSYNTH_CANDIDATE_ABI_DIR, "-I", dir.string()},
              &output);
  EXPECT_EQ(output.find("warning"), std::string::npos) << output;
}

// A design's Vortex kernel.cpp without its comment lines (designs that differ only on the CUDA
// side must give the same code).
std::string vortex_kernel_code(const DesignPoint& d) {
  std::string text;
  for (const auto& f : emit_vortex(d, {})) {
    if (f.name != "kernel.cpp") continue;
    std::istringstream in(f.text);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("//", 0) != 0) text += line + "\n";
    }
  }
  return text;
}

TEST(Sample, EveryAxisValueOccursForEachFamily) {
  for (const auto& family : kFamilies) {
    SCOPED_TRACE(family);
    const auto simt = family_sample(family, PrecisionPath::fp32, EngineClass::kSimt, 0);
    const auto seen = axis_values(simt);
    for (const char* axis : {"shared_staging", "read_once", "prefetch", "boundary", "k_range"}) {
      // prefetch: none, registers, double_buffer and cp_async (tma is the Hopper family's).
      EXPECT_EQ(seen.at(axis).size(), axis == std::string("read_once") || axis == std::string("boundary")
                                           ? 3u
                                           : (axis == std::string("k_range") ? 2u : 4u))
          << axis;
    }
    EXPECT_EQ(seen.at("lane_a").size(), 2u);
    EXPECT_EQ(seen.at("lane_b").size(), 2u);
    EXPECT_EQ(seen.at("split_k").size(), 2u);
    EXPECT_GE(seen.at("tile").size(), 3u);
    EXPECT_GE(seen.at("register_tile").size(), 2u);
    EXPECT_GE(seen.at("warps").size(), 2u);
    EXPECT_EQ(seen.at("activation").size(), family == "matmul" ? 1u : 2u);  // a matmul has no activation
    // Tensor-core samples reach every fragment shape of their precision.
    const auto bf16 = axis_values(family_sample(family, PrecisionPath::bf16, EngineClass::kTensorCore, 0));
    EXPECT_EQ(bf16.at("tensor_core"), (std::set<std::string>{"m16n16k16", "m32n8k16", "m8n32k16", "mma_m16n8k16"}));
    const auto tf32 = axis_values(family_sample(family, PrecisionPath::tf32, EngineClass::kTensorCore, 0));
    EXPECT_EQ(tf32.at("tensor_core"), (std::set<std::string>{"m16n16k8", "mma_m16n8k8"}));
  }
}

TEST(Cuda, SampleOfEveryFamilyAndPrecisionCompilesForSm90) {
  std::string nvcc;
  find_nvcc_for_test(nvcc);
  if (nvcc.empty()) return;
  // Full axis coverage for one family per engine path, seeds and random designs for the rest:
  // every family x precision path occurs, every axis value occurs.
  std::vector<DesignPoint> designs;
  const std::vector<std::tuple<std::string, PrecisionPath, EngineClass, bool, int>> plan = {
      {"linear", PrecisionPath::fp32, EngineClass::kSimt, true, 3},
      {"conv2d", PrecisionPath::bf16, EngineClass::kTensorCore, true, 2},
      {"conv1d", PrecisionPath::tf32, EngineClass::kTensorCore, true, 2},
      {"matmul", PrecisionPath::fp16, EngineClass::kTensorCore, false, 2},
      {"matmul", PrecisionPath::fp32, EngineClass::kSimt, false, 2},
      {"conv1d", PrecisionPath::fp16, EngineClass::kSimt, false, 1},
      {"conv2d", PrecisionPath::tf32, EngineClass::kSimt, false, 1},
      {"linear", PrecisionPath::bf16, EngineClass::kSimt, false, 1},
      {"linear", PrecisionPath::fp16, EngineClass::kTensorCore, false, 1},
      {"linear", PrecisionPath::tf32, EngineClass::kTensorCore, false, 1},
      {"matmul", PrecisionPath::bf16, EngineClass::kTensorCore, false, 1},
      {"conv2d", PrecisionPath::fp32, EngineClass::kSimt, false, 1},
  };
  for (const auto& [family, p, e, full, random] : plan) {
    for (auto& d : family_sample(family, p, e, random, full)) designs.push_back(std::move(d));
  }
  // Two translation units, compiled one after the other (nvcc is the slow part of CI).
  const auto start = std::chrono::steady_clock::now();
  const std::size_t half = designs.size() / 2;
  const std::vector<DesignPoint> first(designs.begin(), designs.begin() + half), second(designs.begin() + half, designs.end());
  EXPECT_EQ(tb::compile_cuda_batch(first, tb::scratch_dir("cuda-1"), nvcc), "");
  EXPECT_EQ(tb::compile_cuda_batch(second, tb::scratch_dir("cuda-2"), nvcc), "");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("nvcc: %zu designs compiled for sm_90 in %.1f s\n", designs.size(), seconds);
}

// prefetch cp_async: the CUDA side's cp.async ring compiles for sm_90 on every boundary, split-K,
// staging, lane mapping, SIMT later axis, tensor shape and element size of the sample, and
// nvcc reports no warning (an unused variable or a narrowing in the ring would show here).
TEST(Cuda, CpAsyncDesignsCompileForSm90WithoutWarnings) {
  std::string nvcc;
  find_nvcc_for_test(nvcc);
  if (nvcc.empty()) return;
  const auto designs = cp_async_sample();
  ASSERT_GE(designs.size(), 20u);
  std::set<std::string> seen;
  for (const auto& d : designs) {
    ASSERT_EQ(d.prefetch, design::Prefetch::kCpAsync);
    const std::string cuda = emit_cuda(d);
    const bool vector = cuda.find("cp.async.cg.shared.global [%0], [%1], 16") != std::string::npos;
    EXPECT_TRUE(vector || cuda.find("cp.async.ca.shared.global [%0], [%1], 4") != std::string::npos) << design::procedural_name(d);
    seen.insert(vector ? "16-byte" : "4-byte");
    EXPECT_NE(cuda.find("cp_async_wait<kStages - 2>()"), std::string::npos);
    EXPECT_EQ(cuda.find("float a_regs["), std::string::npos);  // no register round trip on CUDA
    seen.insert(design::to_string(d.fragment) + "/" + design::to_string(d.boundary));
  }
  EXPECT_GE(seen.size(), 10u);
  EXPECT_TRUE(seen.count("16-byte") && seen.count("4-byte"));
  expect_compiles_without_warnings(designs, "cuda-cp-async", nvcc);
}

// split_reduce serial: the CUDA side adds the K slices in the GEMM kernel (no reduce_split_k
// kernel, a flag per tile zeroed before the launch, acquire/release turns, the running sums read
// past L1), one running sum per output instead of one per slice; it compiles for sm_90 without
// warnings. The Vortex side is the separate design's, comments aside.
TEST(Cuda, SerialSplitKDesignsCompileForSm90WithoutWarnings) {
  const auto designs = split_reduce_sample();
  ASSERT_GE(designs.size(), 10u);
  std::set<std::string> seen;
  for (const auto& d : designs) {
    const std::string name = design::procedural_name(d);
    ASSERT_EQ(d.split_reduce, design::SplitReduce::kSerial) << name;
    ASSERT_GT(d.split_k, 1) << name;
    const std::string cuda = emit_cuda(d);
    EXPECT_EQ(cuda.find("reduce_split_k"), std::string::npos) << name;
    EXPECT_NE(cuda.find("ld.acquire.gpu.global.b32"), std::string::npos) << name;
    EXPECT_NE(cuda.find("st.release.gpu.global.b32"), std::string::npos) << name;
    EXPECT_NE(cuda.find("cudaMemsetAsync(t.flags, 0"), std::string::npos) << name;
    EXPECT_NE(cuda.find("__ldcg(t.partial + at)"), std::string::npos) << name;
    EXPECT_NE(cuda.find("w.partial = take(sizeof(float) * p.batch * p.M * p.N)"), std::string::npos) << name;
    EXPECT_EQ(cuda.find("atomicAdd"), std::string::npos) << name;
    EXPECT_EQ(cuda.find("atom."), std::string::npos) << name;
    // The flag is read before the epilogue's first store and released after its last.
    const auto wait = cuda.find("ld.acquire"), store = cuda.find("t.partial[at] = sum"), release = cuda.find("st.release");
    EXPECT_LT(wait, store) << name;
    EXPECT_LT(store, release) << name;

    DesignPoint separate = d;
    separate.split_reduce = design::SplitReduce::kSeparate;
    EXPECT_NE(emit_cuda(separate).find("reduce_split_k<<<"), std::string::npos) << name;
    const std::string vortex = vortex_kernel_code(d);
    EXPECT_NE(vortex.find("reduce_split_k"), std::string::npos) << name;
    EXPECT_EQ(vortex, vortex_kernel_code(separate)) << name;
    seen.insert(design::to_string(d.fragment) + "/" + design::to_string(d.boundary) + "/" + design::to_string(d.prefetch));
  }
  EXPECT_GE(seen.size(), 8u);
  std::string nvcc;
  find_nvcc_for_test(nvcc);
  if (nvcc.empty()) return;
  expect_compiles_without_warnings(designs, "cuda-split-reduce", nvcc);
}

// split_reduce serial_vector4: the serial fix-up a run of four outputs at a time (one 16-byte
// __ldcg and one float4 store per run, rows of the running sums padded to a multiple of four; a
// partial last run finishes only the outputs inside N). Only the epilogue differs from serial;
// the Vortex side is the separate design's. It compiles for sm_90 without warnings.
TEST(Cuda, SerialVector4SplitKDesignsCompileForSm90WithoutWarnings) {
  const auto designs = split_reduce_vector4_sample();
  ASSERT_GE(designs.size(), 8u);
  bool partial_run = false;
  for (const auto& d : designs) {
    const std::string name = design::procedural_name(d);
    ASSERT_EQ(d.split_reduce, design::SplitReduce::kSerialVector4) << name;
    ASSERT_EQ(d.fragment_load, design::FragmentLoad::kVector4) << name;
    const std::string cuda = emit_cuda(d);
    EXPECT_EQ(cuda.find("reduce_split_k"), std::string::npos) << name;
    EXPECT_NE(cuda.find("__ldcg(reinterpret_cast<const float4*>(t.partial + at))"), std::string::npos) << name;
    EXPECT_NE(cuda.find("*reinterpret_cast<float4*>(t.partial + at) = sum;"), std::string::npos) << name;
    EXPECT_NE(cuda.find("const idx_t at = (z * p.M + m) * ((p.N + 3) / 4 * 4) + n;"), std::string::npos) << name;
    EXPECT_NE(cuda.find("w.partial = take(sizeof(float) * p.batch * p.M * ((p.N + 3) / 4 * 4))"), std::string::npos) << name;
    EXPECT_EQ(cuda.find("__ldcg(t.partial + at)"), std::string::npos) << name;  // no scalar fix-up load
    EXPECT_EQ(cuda.find("atomicAdd"), std::string::npos) << name;
    partial_run |= cuda.find("if (n + 3 < p.N) finish(") != std::string::npos;
    const auto wait = cuda.find("ld.acquire"), store = cuda.find("reinterpret_cast<float4*>(t.partial + at) = sum"),
               release = cuda.find("st.release");
    EXPECT_LT(wait, store) << name;
    EXPECT_LT(store, release) << name;

    DesignPoint serial = d;
    serial.split_reduce = design::SplitReduce::kSerial;
    EXPECT_NE(emit_cuda(serial).find("__ldcg(t.partial + at)"), std::string::npos) << name;
    DesignPoint separate = d;
    separate.split_reduce = design::SplitReduce::kSeparate;
    EXPECT_EQ(vortex_kernel_code(d), vortex_kernel_code(separate)) << name;
  }
  EXPECT_TRUE(partial_run) << "no design stores a run that N cuts";
  std::string nvcc;
  find_nvcc_for_test(nvcc);
  if (nvcc.empty()) return;
  expect_compiles_without_warnings(designs, "cuda-split-reduce-vector4", nvcc);
}

// Vortex computes a tf32 op as fp16 (ops::vortex_path_for), also on SIMT designs: without the
// rounding, diffusion_policy-1 (K = 10240) missed the candidate tolerance by 1.1x.
TEST(Emit, VortexRoundsTf32OperandsToFp16) {
  const DesignPoint tf32 = design::seed_design(family_op("conv1d", PrecisionPath::tf32), EngineClass::kSimt, 128);
  const DesignPoint fp32 = design::seed_design(family_op("conv1d", PrecisionPath::fp32), EngineClass::kSimt, 128);
  auto kernel = [](const DesignPoint& d) {
    for (const auto& f : emit_vortex(d, {}))
      if (f.name == "kernel.cpp") return f.text;
    return std::string();
  };
  EXPECT_NE(kernel(tf32).find("fp16_to_float(float_to_fp16("), std::string::npos);
  EXPECT_EQ(kernel(fp32).find("float_to_fp16"), std::string::npos);
  EXPECT_EQ(emit_cuda(tf32).find("float_to_fp16"), std::string::npos);  // the CUDA side keeps fp32 FMA
}

TEST(Emit, InvalidDesignsAreRejectedWithTheRuleTheyBreak) {
  DesignPoint d = design::seed_design(family_op("linear", PrecisionPath::fp32), EngineClass::kSimt, 128);
  d.split_k = 1000;
  for (int side = 0; side < 2; ++side) {
    try {
      if (side == 0) emit_cuda(d);
      else emit_vortex(d, {});
      ADD_FAILURE() << "emitted an invalid design";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("split-k"), std::string::npos) << e.what();
    }
  }
}

TEST(Emit, GeneratedCodeNamesItsDesignAndHasNoCodeForAxesNotTaken) {
  const DesignPoint seed = design::seed_design(family_op("linear", PrecisionPath::fp32), EngineClass::kSimt, 128);
  const std::string cuda = emit_cuda(seed);
  EXPECT_NE(cuda.find(design::procedural_name(seed)), std::string::npos);
  EXPECT_NE(cuda.find("vxsynth_candidate_launch"), std::string::npos);
  EXPECT_EQ(cuda.find("partial"), std::string::npos);  // no split-K
  EXPECT_EQ(cuda.find("a_pad"), std::string::npos);    // not padded
  EXPECT_EQ(cuda.find("wmma"), std::string::npos);     // SIMT
  EXPECT_EQ(cuda.find("__ldcs"), std::string::npos);
  DesignPoint split = seed;
  split.split_k = 3;
  split.read_once = design::ReadOnce::kStreaming;
  const std::string s = emit_cuda(split);
  EXPECT_NE(s.find("reduce_split_k"), std::string::npos);
  EXPECT_NE(s.find("__ldcs"), std::string::npos);
  EXPECT_EQ(s.find("atomicAdd"), std::string::npos);  // split-K without atomics
  const auto vortex = emit_vortex(seed, {});
  ASSERT_EQ(vortex.size(), 7u);  // common.h, kernel.cpp, vx_branchless.h, bench.h, main.cpp, CMakeLists.txt, Makefile
  for (const auto& f : vortex) {
    // The kernel's project-only header travels with it, so a Vortex tree needs no vxsynth folder.
    std::string wanted;
    if (f.name == "kernel.cpp") wanted = "#include \"vx_branchless.h\"";
    if (f.name == "vx_branchless.h") wanted = "vxb_select";
    if (f.name == "Makefile") wanted = "-fno-split-paths";
    if (f.name == "main.cpp") wanted = "VX_CSR_MPM_RESERVED";
    if (!wanted.empty()) {
      EXPECT_NE(f.text.find(wanted), std::string::npos) << f.name;
    }
  }
  for (const auto& f : vortex) {
    if (f.name == "kernel.cpp" || f.name == "bench.h" || f.name == "common.h") {
      EXPECT_NE(f.text.find(design::procedural_name(seed)), std::string::npos) << f.name;
    }
  }
  // The host program is one source for every design; what differs is in bench.h.
  const auto other = emit_vortex(split, {});
  auto text_of = [](const std::vector<SourceFile>& files, const std::string& name) {
    for (const auto& f : files)
      if (f.name == name) return f.text;
    return std::string();
  };
  EXPECT_EQ(text_of(vortex, "main.cpp"), text_of(other, "main.cpp"));
  EXPECT_NE(text_of(vortex, "main.cpp").find("ops::read_tensor_file"), std::string::npos);
  EXPECT_NE(text_of(vortex, "bench.h"), text_of(other, "bench.h"));
}

}  // namespace
}  // namespace vxsynth::codegen
