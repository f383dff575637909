// The Vortex backend: a regression-style benchmark (common.h, kernel.cpp, and the host program
// main.cpp, which is vortex_host/main.cpp as it is, with the design's bench.h) with a
// CMakeLists.txt for the embedded simulator and a Makefile for a Vortex source tree.
#include <sstream>

#include "codegen/compose.h"
#include "codegen/emit.h"
#include "codegen/generator.h"
#include "codegen/layout.h"
#include "codegen/vortex_rt_files.h"
#include "codegen/transform_emitter.h"
#include "design/hopper_family.h"
#include "design/transform_family.h"
#include "common/error.h"
#include "design/validity.h"

namespace vxsynth::codegen {

using design::DesignPoint;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// vortex_host/main.cpp, embedded by CMake.
const std::string& vortex_host_main() {
  static const std::string text =
#include "vortex_host_main.inc"
      ;
  return text;
}

// Concrete values of the parameter block for this benchmark's fixed shape.
struct ParamValues {
  std::vector<std::pair<std::string, std::int64_t>> scalars;
  std::vector<std::int64_t> batch_dim, a_stride, b_stride;
};

ParamValues param_values(const DesignPoint& d) {
  ParamValues v;
  const ops::GemmView g = d.op.gemm_view();
  v.scalars = {{"M", g.m}, {"N", g.n}, {"K", g.k}, {"batch", g.batch}};
  if (d.split_k > 1) v.scalars.push_back({"k_chunk", ceil_div(ceil_div(g.k, d.tile.k), d.split_k) * d.tile.k});
  if (d.boundary == design::Boundary::kPadded) {
    v.scalars.push_back({"Mp", ceil_div(g.m, d.tile.m) * d.tile.m});
    v.scalars.push_back({"Np", ceil_div(g.n, d.tile.n) * d.tile.n});
    v.scalars.push_back({"Kp", ceil_div(g.k, d.tile.k) * d.tile.k});
  }
  if (d.op.kind == ops::OpKind::matmul && !d.op.matmul.batch_out().empty()) {
    const ops::Shape out = d.op.matmul.batch_out();
    const auto& mm = d.op.matmul;
    auto strides = [&](const ops::Shape& dims, std::int64_t matrix) {
      std::vector<std::int64_t> s(4, 0);
      const std::size_t r = out.size(), ra = dims.size();
      for (std::size_t i = 0; i < r; ++i) {
        if (i + ra < r) continue;
        const std::size_t ia = i + ra - r;
        if (dims[ia] == 1) continue;
        std::int64_t stride = matrix;
        for (std::size_t j = ia + 1; j < ra; ++j) stride *= dims[j];
        s[i] = stride;
      }
      return s;
    };
    v.batch_dim.assign(4, 1);
    for (std::size_t i = 0; i < out.size(); ++i) v.batch_dim[i] = out[i];
    v.a_stride = strides(mm.batch_a, mm.m * mm.k);
    v.b_stride = strides(mm.batch_b, mm.k * mm.n);
  }
  if (is_conv(d)) {
    const auto& c = d.op.conv;
    const auto out = c.output_size();
    const bool two = d.op.kind == ops::OpKind::conv2d;
    const std::size_t x = two ? 1 : 0;
    v.scalars.insert(v.scalars.end(),
                     {{"c_in", c.in_channels},
                      {"cg", c.in_channels / c.groups},
                      {"h", two ? c.input_size[0] : 1},
                      {"w", c.input_size[x]},
                      {"k_out", c.out_channels},
                      {"r", two ? c.kernel[0] : 1},
                      {"s", c.kernel[x]},
                      {"p", two ? out[0] : 1},
                      {"q", out[x]},
                      {"stride_h", two ? c.stride[0] : 1},
                      {"stride_w", c.stride[x]},
                      {"pad_h", two ? c.padding[0] : 0},
                      {"pad_w", c.padding[x]},
                      {"dilation_h", two ? c.dilation[0] : 1},
                      {"dilation_w", c.dilation[x]}});
  }
  return v;
}

std::int64_t pass_total(const DesignPoint& d, Pass pass, const ParamValues& v) {
  auto get = [&v](const std::string& name) {
    for (const auto& [n, value] : v.scalars)
      if (n == name) return value;
    return std::int64_t{0};
  };
  switch (pass) {
    case Pass::kPadA: return get("batch") * get("Mp") * get("Kp");
    case Pass::kPadB: return get("batch") * get("Np") * get("Kp");
    default: break;
  }
  (void)d;
  return get("batch") * get("M") * get("N");
}

std::string common_h(const DesignPoint& d) {
  std::ostringstream s;
  s << header_comment(d, Backend::kVortex) << "\n#ifndef VXSYNTH_BENCH_COMMON_H\n#define VXSYNTH_BENCH_COMMON_H\n\n#include <stdint.h>\n\n";
  s << "// Kernel arguments (one copy in device memory; the same layout on the host and on RV32).\n";
  s << "typedef struct {\n";
  for (const auto& f : tensor_fields(d, Backend::kVortex)) s << "uint64_t " << f << "_addr;\n";
  s << "uint32_t gemm_grid[3];\nuint32_t block_dim[3];\n";
  for (const Pass p : passes(d, Backend::kVortex)) {
    if (p == Pass::kGemm) continue;
    s << "uint32_t " << pass_function(p) << "_grid[1];\nint32_t " << pass_function(p) << "_total;\n";
  }
  for (const auto& f : param_fields(d)) s << "int32_t " << f << ";\n";
  s << "} kernel_arg_t;\n\n#endif\n";
  return s.str();
}

std::string kernel_cpp(const DesignPoint& d) {
  const Composer c(d, Backend::kVortex);
  const Dialect& x = c.dialect();
  std::ostringstream s;
  s << header_comment(d, Backend::kVortex) << "\n";
  // vx_branchless.h is vxsynth's, shipped beside kernel.cpp: the quoted include finds it
  // there in any tree (Vortex's Makefiles add no include folder for it).
  s << "#include <vx_intrinsics.h>\n#include <vx_spawn.h>\n" << c.includes();
  s << "\n#include \"common.h\"\n#include \"vx_branchless.h\"\n\n";
  s << "typedef kernel_arg_t Params;\n\n" << c.constants() << "\n";
  s << "// Device tensors, from the addresses in the kernel arguments.\nstruct Tensors {\n";
  for (const auto& f : tensor_fields(d, Backend::kVortex)) {
    if (f == "a" || f == "b" || f == "bias") s << "const elem_t* " << f << ";\n";
    else if (f == "partial" || f == "pre") s << "float* " << f << ";\n";
    else s << "elem_t* " << f << ";\n";
  }
  s << "};\n\nstatic inline Tensors tensors_of(const Params& p) {\nTensors t;\n";
  for (const auto& f : tensor_fields(d, Backend::kVortex)) {
    std::string type = (f == "a" || f == "b" || f == "bias") ? "const elem_t*" : (f == "partial" || f == "pre") ? "float*" : "elem_t*";
    s << "t." << f << " = (" << type << ")(uintptr_t)p." << f << "_addr;\n";
  }
  s << "return t;\n}\n\n";
  s << c.scalar_helpers() << "\n" << c.accessors() << c.mainloop_functions();
  for (const Pass pass : passes(d, Backend::kVortex)) {
    const std::string fn = pass_function(pass);
    if (pass == Pass::kGemm) {
      s << "// The GEMM kernel: frame, mainloop, epilogue (one CTA per output tile).\n";
      s << "static void gemm_body(kernel_arg_t* __UNIFORM__ arg) {\nconst Params& p = *arg;\nconst Tensors t = tensors_of(p);\n"
        << c.gemm_body() << "}\n\n";
    } else {
      s << "static void " << fn << "_body(kernel_arg_t* __UNIFORM__ arg) {\nconst Params& p = *arg;\nconst Tensors t = tensors_of(p);\n"
        << "const idx_t idx = (idx_t)(blockIdx.x * kThreads + threadIdx.x);\n"
        << x.guarded(x.less("idx", "p." + fn + "_total"), c.elementwise_body(pass)) << "}\n\n";
    }
  }
  s << "int main() {\nkernel_arg_t* arg = (kernel_arg_t*)csr_read(VX_CSR_MSCRATCH);\n";
  bool first = true;
  for (const Pass pass : passes(d, Backend::kVortex)) {
    const std::string fn = pass_function(pass);
    if (!first) s << "vx_barrier(0x80000000, vx_num_cores());  // every core finished the previous pass\n";
    first = false;
    if (pass == Pass::kGemm) {
      s << "if (vx_spawn_threads(3, arg->gemm_grid, arg->block_dim, (vx_kernel_func_cb)gemm_body, arg) != 0) return 1;\n";
    } else {
      s << "if (vx_spawn_threads(1, arg->" << fn << "_grid, arg->block_dim, (vx_kernel_func_cb)" << fn
        << "_body, arg) != 0) return 1;\n";
    }
  }
  s << "return 0;\n}\n";
  return s.str();
}

const char* dtype_enum(ops::DType t) {
  switch (t) {
    case ops::DType::bf16: return "vxsynth::ops::DType::bf16";
    case ops::DType::f16: return "vxsynth::ops::DType::f16";
    default: return "vxsynth::ops::DType::f32";
  }
}

std::string shape_text(const ops::Shape& s) {
  std::string out = "{";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "}";
}

// The GEMM families' facts for bench.h.
BenchFacts gemm_bench_facts(const DesignPoint& d) {
  const ops::DType dtype = ops::storage_dtype(d.fixed.precision);
  const ParamValues v = param_values(d);
  const auto inputs = d.op.inputs();
  const std::vector<std::string> roles = {"a", "b", "bias"};
  const ops::GemmView g = d.op.gemm_view();
  BenchFacts f;
  f.header = header_comment(d, Backend::kVortex);
  f.local_bytes = design::vortex_local_bytes(d);
  f.tensor_core = d.fragment != design::Fragment::kNone;
  for (std::size_t i = 0; i < inputs.size() && i < roles.size(); ++i) {
    f.inputs.push_back({inputs[i].name + ".vxt", inputs[i].shape, roles[i]});
  }
  auto get = [&v](const std::string& name) {
    for (const auto& [n, value] : v.scalars)
      if (n == name) return value;
    return std::int64_t{0};
  };
  for (const auto& field : tensor_fields(d, Backend::kVortex)) {
    std::int64_t bytes = 0;
    if (field == "partial") bytes = 4 * std::int64_t(d.split_k) * g.batch * g.m * g.n;
    else if (field == "pre") bytes = 4 * g.batch * g.m * g.n;
    else if (field == "a_pad") bytes = ops::dtype_size(dtype) * g.batch * get("Mp") * get("Kp");
    else if (field == "b_pad") bytes = ops::dtype_size(dtype) * g.batch * get("Np") * get("Kp");
    else continue;
    f.workspaces.push_back({bytes, field});
  }
  auto& a = f.arguments;
  for (const auto& [name, value] : v.scalars) a.push_back(name + " = " + std::to_string(value));
  if (!v.batch_dim.empty()) {
    for (int i = 0; i < 4; ++i) {
      const std::string at = "[" + std::to_string(i) + "] = ";
      a.push_back("batch_dim" + at + std::to_string(v.batch_dim[i]));
      a.push_back("a_stride" + at + std::to_string(v.a_stride[i]));
      a.push_back("b_stride" + at + std::to_string(v.b_stride[i]));
    }
  }
  a.push_back("gemm_grid[0] = " + std::to_string(ceil_div(g.n, d.tile.n)));
  a.push_back("gemm_grid[1] = " + std::to_string(ceil_div(g.m, d.tile.m)));
  a.push_back("gemm_grid[2] = " + std::to_string(g.batch * d.split_k));
  for (const Pass p : passes(d, Backend::kVortex)) {
    if (p == Pass::kGemm) continue;
    const std::int64_t total = pass_total(d, p, v);
    a.push_back(pass_function(p) + "_total = " + std::to_string(total));
    a.push_back(pass_function(p) + "_grid[0] = " + std::to_string(ceil_div(total, d.fixed.block_size)));
  }
  return f;
}

// The design-specific half of the host program (vortex_host/main.cpp is the other).
std::string bench_h(const DesignPoint& d, const VortexCheck& check, const BenchFacts& f) {
  std::ostringstream s;
  s << f.header;
  s << "//\n// What the host program (main.cpp, the same for every benchmark) needs to know of this design.\n";
  s << "#ifndef VXSYNTH_BENCH_H\n#define VXSYNTH_BENCH_H\n\n#include <cstdint>\n#include <vector>\n\n#include \"common.h\"\n"
       "#include \"ops/tensor.h\"\n\nnamespace bench {\n\n";
  s << "inline const char* const kDesign = \"" << design::procedural_name(d) << "\";\n";
  s << "constexpr uint32_t kThreads = " << d.fixed.block_size << ";  // one block\n";
  s << "constexpr uint32_t kLocalBytes = " << f.local_bytes << ";  // local memory of one block\n";
  s << "constexpr bool kTensorCore = " << (f.tensor_core ? "true" : "false") << ";  // built for 32-thread warps\n";
  s << "// The Vortex machine the design is written for (design.json \"vortex\").\n";
  s << "constexpr uint32_t kCores = " << d.vortex.cores << ", kWarps = " << d.vortex.warps << ", kWarpThreads = "
    << d.vortex.threads << ", kLocalMem = " << d.vortex.local_mem_bytes << ";\n";
  if (f.exact) {
    s << "// Exact check: every bit of every element (ops::exact_tolerance: a re-layout has no arithmetic).\n";
    s << "constexpr bool kExact = true;\nconstexpr double kAtol = 0.0, kRtol = 0.0;\n";
  } else {
    s << "// Candidate tolerance |y - ref| <= atol + rtol |ref| (ops::tolerance_for, Check::candidate).\n";
    s << "constexpr bool kExact = false;\n";
    s << "constexpr double kAtol = " << std::hexfloat << check.atol << ", kRtol = " << check.rtol << std::defaultfloat
      << ";  // " << check.atol << ", " << check.rtol << "\n";
  }
  s << "constexpr vxsynth::ops::DType kDtype = " << dtype_enum(ops::storage_dtype(d.fixed.precision)) << ";\n\n";
  s << "// Inputs in the data folder and where their device addresses go.\n";
  s << "struct Input {\nconst char* file;\nvxsynth::ops::Shape shape;\nuint64_t kernel_arg_t::*address;\n};\n";
  s << "inline const std::vector<Input> kInputs = {\n";
  for (const auto& in : f.inputs) {
    s << "{\"" << in.file << "\", " << shape_text(in.shape) << ", &kernel_arg_t::" << in.field << "_addr},\n";
  }
  s << "};\n";
  s << "inline const vxsynth::ops::Shape kOutputShape = " << shape_text(d.op.output().shape) << ";\n\n";
  s << "// Device workspaces of the passes.\n";
  s << "struct Workspace {\nuint64_t bytes;\nuint64_t kernel_arg_t::*address;\n};\n";
  s << "inline const std::vector<Workspace> kWorkspaces = {\n";
  for (const auto& w : f.workspaces) s << "{" << w.bytes << ", &kernel_arg_t::" << w.field << "_addr},  // " << w.field << "\n";
  s << "};\n\n";
  s << "// The kernel arguments besides the buffer addresses: sizes, grids, pass totals.\n";
  s << "inline void set_arguments(kernel_arg_t& arg) {\n";
  for (const auto& line : f.arguments) s << "arg." << line << ";\n";
  s << "arg.block_dim[0] = kThreads;\narg.block_dim[1] = 1;\narg.block_dim[2] = 1;\n";
  s << "}\n\n}  // namespace bench\n\n#endif\n";
  return s.str();
}

std::string cmake_lists(const DesignPoint& d) {
  std::ostringstream s;
  s << "# Generated by vxsynth's generator " << kGeneratorVersion << " (" << design::procedural_name(d) << "): builds this benchmark against the\n"
       "# embedded Vortex simulator of a vxsynth build.\n"
       "#   cmake -S . -B build -DVXSYNTH_SOURCE_DIR=<vxsynth checkout> -DVXSYNTH_BUILD_DIR=<its build folder>\n"
       "#   cmake --build build && (cd build && ./bench -k kernel.vxbin -d ../data)\n"
       "# The program configures the simulated machine the design is written for (bench.h).\n";
  s << R"src(cmake_minimum_required(VERSION 3.20)
project(vxsynth_benchmark CXX)
set(VXSYNTH_SOURCE_DIR "" CACHE PATH "vxsynth checkout")
set(VXSYNTH_BUILD_DIR "" CACHE PATH "vxsynth build folder (holds vxsynth and the vxsim libraries)")
if(NOT VXSYNTH_SOURCE_DIR OR NOT VXSYNTH_BUILD_DIR)
  message(FATAL_ERROR "set VXSYNTH_SOURCE_DIR and VXSYNTH_BUILD_DIR")
endif()
find_package(Threads REQUIRED)
set(VXSYNTH_KERNEL_OPT "" CACHE STRING "extra `vxsynth sim cc` options for the kernel")
add_executable(bench main.cpp)
target_compile_features(bench PRIVATE cxx_std_20)
target_compile_definitions(bench PRIVATE VXSYNTH_EMBEDDED_SIM)
target_include_directories(bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${VXSYNTH_SOURCE_DIR}/src
  ${VXSYNTH_SOURCE_DIR}/src/vxsim/host/include ${VXSYNTH_SOURCE_DIR}/vortex-rt/include)
# The host runtime over the simulator, and vxsynth's tensor files and output check (ops).
target_link_libraries(bench PRIVATE
  ${VXSYNTH_BUILD_DIR}/src/vxsim/host/libvxsynth_vxsim_host.a
  ${VXSYNTH_BUILD_DIR}/src/vxsim/libvxsynth_vxsim.a
  ${VXSYNTH_BUILD_DIR}/src/ops/libvxsynth_ops.a
  ${VXSYNTH_BUILD_DIR}/src/common/libvxsynth_common.a
  Threads::Threads)
# The kernel, compiled by `vxsynth sim cc` (Debian's clang 14 with the vortex-divergence pass,
# picolibc and vortex-rt).
add_custom_command(OUTPUT kernel.vxbin
  COMMAND ${VXSYNTH_BUILD_DIR}/vxsynth sim cc ${CMAKE_CURRENT_SOURCE_DIR}/kernel.cpp ${VXSYNTH_KERNEL_OPT}
          -I ${CMAKE_CURRENT_SOURCE_DIR} -o ${CMAKE_CURRENT_BINARY_DIR}/kernel.vxbin
  DEPENDS kernel.cpp common.h VERBATIM)
add_custom_target(kernel ALL DEPENDS kernel.vxbin)
)src";
  return s.str();
}

// The divergence-related flags of `vxsynth sim cc` (src/vxsim/host/kernel_build.cpp), for a
// Vortex tree built with GCC: keep GCC from copying a vx_join (-fno-split-paths), from turning
// sqrtf into an errno branch and from calling memset/memcpy for loops.
std::string gcc_kernel_flags() { return "-fno-split-paths -fno-math-errno -fno-tree-loop-distribute-patterns"; }

std::string makefile(const DesignPoint& d) {
  std::ostringstream s;
  s << "# Generated by vxsynth's generator " << kGeneratorVersion << " (" << design::procedural_name(d) << ").\n"
       "# For a Vortex source tree: copy this folder (with data/) to tests/regression/<name> and run make there.\n"
       "# The host program reads and checks vxsynth tensor files with vxsynth's ops library: set VXSYNTH_HOME to\n"
       "# a vxsynth checkout and VXSYNTH_BUILD to its build folder.\n";
  s << R"src(ROOT_DIR := $(realpath ../../..)
include $(ROOT_DIR)/config.mk

PROJECT := $(notdir $(CURDIR))

SRC_DIR := $(VORTEX_HOME)/tests/regression/$(PROJECT)

SRCS := $(SRC_DIR)/main.cpp

VXSYNTH_BUILD ?= $(VXSYNTH_HOME)/build
CXXFLAGS += -std=c++20 -I$(VXSYNTH_HOME)/src
LDFLAGS += $(VXSYNTH_BUILD)/src/ops/libvxsynth_ops.a $(VXSYNTH_BUILD)/src/common/libvxsynth_common.a

VX_SRCS := $(SRC_DIR)/kernel.cpp

# With Vortex's GCC toolchain instead of its LLVM (make VX_CXX=.../riscv64-unknown-elf-g++ ...),
# keep GCC from duplicating split/join regions, as `vxsynth sim cc` does.
ifneq ($(filter %-gcc %-g++ gcc g++,$(notdir $(firstword $(VX_CXX)))),)
VX_CFLAGS += )src"
    << gcc_kernel_flags() << R"src(
endif

OPTS ?= -d $(SRC_DIR)/data

include ../common.mk
)src";
  return s.str();
}

}  // namespace

std::vector<SourceFile> emit_vortex(const DesignPoint& d, const VortexCheck& check) {
  VortexSources v;
  if (design::is_transform(d)) {
    v = transform_vortex_sources(d);
  } else if (design::is_hopper(d)) {
    // Vortex has no TMA, wgmma or clusters: the counterpart's WMMA kernel with a software prefetch.
    design::require_valid(d, "design " + design::procedural_name(d));
    const DesignPoint c = design::vortex_counterpart(d);
    const std::string note = "// The Vortex side of the Hopper design " + design::procedural_name(d) +
                             ": Vortex 2.x has no bulk\n// tensor copies, warpgroup MMA or clusters, so this is the "
                             "counterpart below (design::vortex_counterpart):\n// the tensor unit's tiles of the block tile nearest " +
                             std::to_string(d.tile.m) + "x" + std::to_string(d.tile.n) + ", prefetched " +
                             (c.prefetch == design::Prefetch::kDoubleBuffer ? "one k-tile ahead (double buffer)" : "without overlap") +
                             " instead of " + std::to_string(d.stages) + " TMA stages.\n";
    v = {note + common_h(c), note + kernel_cpp(c), gemm_bench_facts(c)};
  } else {
    design::require_valid(d, "design " + design::procedural_name(d));
    v = {common_h(d), kernel_cpp(d), gemm_bench_facts(d)};
  }
  return {{"common.h", lay_out(v.common_h)},
          {"kernel.cpp", lay_out(v.kernel_cpp)},
          {"vx_branchless.h", kVxBranchlessHeader},
          {"bench.h", lay_out(bench_h(d, check, v.bench))},
          {"main.cpp", vortex_host_main()},
          {"CMakeLists.txt", cmake_lists(d)},
          {"Makefile", makefile(d)}};
}

}  // namespace vxsynth::codegen
