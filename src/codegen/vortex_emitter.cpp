// The Vortex backend: a regression-style benchmark (common.h, kernel.cpp, main.cpp) with a
// CMakeLists.txt for the embedded simulator and a Makefile for a Vortex source tree.
#include <sstream>

#include "codegen/components.h"
#include "codegen/emit.h"
#include "codegen/vortex_rt_files.h"
#include "codegen/transform_emitter.h"
#include "design/transform_family.h"
#include "common/error.h"
#include "design/validity.h"

namespace vxsynth::codegen {

using design::DesignPoint;

namespace {

bool is_conv(const DesignPoint& d) { return d.op.kind == ops::OpKind::conv1d || d.op.kind == ops::OpKind::conv2d; }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

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
  s << header_comment(d, false) << "\n#ifndef VXSYNTH_BENCH_COMMON_H\n#define VXSYNTH_BENCH_COMMON_H\n\n#include <stdint.h>\n\n";
  s << "// Kernel arguments (one copy in device memory; the same layout on the host and on RV32).\n";
  s << "typedef struct {\n";
  for (const auto& f : tensor_fields(d)) s << "uint64_t " << f << "_addr;\n";
  s << "uint32_t gemm_grid[3];\nuint32_t block_dim[3];\n";
  for (const Pass p : passes(d)) {
    if (p == Pass::kGemm) continue;
    s << "uint32_t " << pass_function(p) << "_grid[1];\nint32_t " << pass_function(p) << "_total;\n";
  }
  for (const auto& f : param_fields(d)) s << "int32_t " << f << ";\n";
  s << "} kernel_arg_t;\n\n#endif\n";
  return s.str();
}

std::string kernel_cpp(const DesignPoint& d) {
  const auto dialect = make_vortex_dialect();
  const Composer c(d, *dialect);
  std::ostringstream s;
  s << header_comment(d, false) << "\n";
  // vx_branchless.h is vxsynth's, shipped beside kernel.cpp: the quoted include finds it
  // there in any tree (Vortex's Makefiles add no include folder for it).
  s << "#include <vx_intrinsics.h>\n#include <vx_spawn.h>\n\n#include \"vx_branchless.h\"\n";
  if (d.fragment != design::Fragment::kNone) s << "#include <vx_tensor.h>\n";
  s << "\n#include \"common.h\"\n\n";
  s << "typedef kernel_arg_t Params;\n\n" << c.constants() << "\n";
  s << "// Device tensors, from the addresses in the kernel arguments.\nstruct Tensors {\n";
  for (const auto& f : tensor_fields(d)) {
    if (f == "a" || f == "b" || f == "bias") s << "const elem_t* " << f << ";\n";
    else if (f == "partial" || f == "pre") s << "float* " << f << ";\n";
    else s << "elem_t* " << f << ";\n";
  }
  s << "};\n\nstatic inline Tensors tensors_of(const Params& p) {\nTensors t;\n";
  for (const auto& f : tensor_fields(d)) {
    std::string type = (f == "a" || f == "b" || f == "bias") ? "const elem_t*" : (f == "partial" || f == "pre") ? "float*" : "elem_t*";
    s << "t." << f << " = (" << type << ")(uintptr_t)p." << f << "_addr;\n";
  }
  s << "return t;\n}\n\n";
  s << c.scalar_helpers() << "\n" << c.accessors() << c.mainloop_functions();
  for (const Pass pass : passes(d)) {
    const std::string fn = pass_function(pass);
    if (pass == Pass::kGemm) {
      s << "// The GEMM kernel: frame, mainloop, epilogue (one CTA per output tile).\n";
      s << "static void gemm_body(kernel_arg_t* __UNIFORM__ arg) {\nconst Params& p = *arg;\nconst Tensors t = tensors_of(p);\n"
        << c.gemm_body() << "}\n\n";
    } else {
      s << "static void " << fn << "_body(kernel_arg_t* __UNIFORM__ arg) {\nconst Params& p = *arg;\nconst Tensors t = tensors_of(p);\n"
        << "const idx_t idx = (idx_t)(blockIdx.x * kThreads + threadIdx.x);\n"
        << dialect->guarded(dialect->less("idx", "p." + fn + "_total"), c.elementwise_body(pass)) << "}\n\n";
    }
  }
  s << "int main() {\nkernel_arg_t* arg = (kernel_arg_t*)csr_read(VX_CSR_MSCRATCH);\n";
  bool first = true;
  for (const Pass pass : passes(d)) {
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

const char* dtype_name(ops::DType t) {
  switch (t) {
    case ops::DType::bf16: return "bfloat16";
    case ops::DType::f16: return "float16";
    default: return "float32";
  }
}

std::string shape_text(const ops::Shape& s) {
  std::string out = "{";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "}";
}

std::string main_cpp(const DesignPoint& d, const VortexCheck& check) {
  const ops::DType dtype = ops::storage_dtype(d.fixed.precision);
  const ParamValues v = param_values(d);
  const auto inputs = d.op.inputs();
  const auto output = d.op.output();
  const std::vector<std::string> roles = {"a", "b", "bias"};
  std::ostringstream s;
  s << header_comment(d, false);
  s << R"src(//
// Host program (Vortex regression style):
//   ./bench [-k kernel.vxbin] [-d data-folder] [-o output.vxt]
// Loads the seeded inputs and the CPU reference output (vxsynth tensor files written by
// `vxsynth gen`), runs the kernel, checks every output element against the reference with the
// candidate tolerance |y - ref| <= atol + rtol |ref| (ops::tolerance_for, Check::candidate),
// prints PASSED!/FAILED! and the PERF line, and with -o dumps the output tensor for the
// cross-check against the CUDA candidate (`vxsynth check`).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vortex.h>
#include <VX_types.h>

#include "common.h"

#define RT_CHECK(_expr)                                      \
  do {                                                       \
    int _ret = _expr;                                        \
    if (0 == _ret) break;                                    \
    printf("Error: '%s' returned %d!\n", #_expr, (int)_ret); \
    cleanup();                                               \
    exit(-1);                                                \
  } while (false)

)src";
  s << "static const uint32_t kThreads = " << d.fixed.block_size << ";\n";
  s << "static const uint32_t kLocalBytes = " << design::vortex_local_bytes(d) << ";\n";
  s << "static const double kAtol = " << std::hexfloat << check.atol << ", kRtol = " << check.rtol << std::defaultfloat
    << ";  // " << check.atol << ", " << check.rtol << "\n";
  s << "static const char* kDtype = \"" << dtype_name(dtype) << "\";\n";
  s << "static const size_t kElemBytes = " << ops::dtype_size(dtype) << ";\n\n";
  s << "static const char* kernel_file = \"kernel.vxbin\";\nstatic const char* data_dir = \"data\";\n"
       "static const char* dump_file = nullptr;\n\n";
  s << "static vx_device_h device = nullptr;\nstatic vx_buffer_h buffers[16];\nstatic int buffer_count = 0;\n\n";
  s << R"src(static void cleanup() {
  if (device) {
    for (int i = 0; i < buffer_count; ++i) vx_mem_free(buffers[i]);
    vx_dev_close(device);
  }
}

static void show_usage() { printf("Usage: [-k kernel.vxbin] [-d data-folder] [-o output.vxt] [-h]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "k:d:o:h")) != -1) {
    switch (c) {
      case 'k': kernel_file = optarg; break;
      case 'd': data_dir = optarg; break;
      case 'o': dump_file = optarg; break;
      case 'h': show_usage(); exit(0);
      default: show_usage(); exit(-1);
    }
  }
}

// A vxsynth tensor file: "VXTENSOR", uint64 header length, JSON header, raw little-endian data.
// Returns a malloc'ed buffer of `bytes` bytes, or NULL (and says why).
static uint8_t* read_tensor(const char* name, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", data_dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) {
    printf("Error: cannot open %s\n", path);
    return NULL;
  }
  char magic[8], dtype[64];
  uint64_t header = 0;
  bool ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, "VXTENSOR", 8) == 0 && fread(&header, 8, 1, f) == 1 &&
            header < (1u << 20);
  char* json = (char*)calloc(1, ok ? header + 1 : 1);
  ok = ok && fread(json, 1, header, f) == header;
  snprintf(dtype, sizeof(dtype), "\"%s\"", kDtype);
  if (ok && !strstr(json, dtype)) {
    printf("Error: %s: dtype is not %s\n", path, kDtype);
    ok = false;
  }
  free(json);
  uint8_t* data = (uint8_t*)malloc(bytes);
  ok = ok && data != NULL && fread(data, 1, bytes, f) == bytes && fgetc(f) == EOF;
  fclose(f);
  if (!ok) {
    printf("Error: %s is not a %zu-byte %s tensor file\n", path, bytes, kDtype);
    free(data);
    return NULL;
  }
  return data;
}

static bool write_tensor(const char* path, const uint64_t* shape, int rank, const uint8_t* data, size_t bytes) {
  char json[1024];
  int n = snprintf(json, sizeof(json), "{\"schema\": \"vxsynth.tensor/1\", \"name\": \"y\", \"dtype\": \"%s\", \"shape\": [",
                   kDtype);
  for (int i = 0; i < rank; ++i) n += snprintf(json + n, sizeof(json) - n, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
  n += snprintf(json + n, sizeof(json) - n, "], \"byte_order\": \"little\", \"seed\": null}");
  while ((16 + n) % 64 != 0) json[n++] = ' ';
  const uint64_t header = (uint64_t)n;
  FILE* f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite("VXTENSOR", 1, 8, f) == 8 && fwrite(&header, 8, 1, f) == 1 && fwrite(json, 1, n, f) == (size_t)n &&
            fwrite(data, 1, bytes, f) == bytes;
  return fclose(f) == 0 && ok;
}

)src";
  // Element decode for the check.
  s << "static double element(const uint8_t* data, size_t i) {\n";
  switch (dtype) {
    case ops::DType::f32: s << "float v;\nmemcpy(&v, &data[i * 4], 4);\nreturn v;\n"; break;
    case ops::DType::bf16:
      s << "uint16_t h;\nmemcpy(&h, &data[i * 2], 2);\nuint32_t bits = (uint32_t)h << 16;\nfloat v;\nmemcpy(&v, &bits, 4);\nreturn v;\n";
      break;
    case ops::DType::f16:
      s << "uint16_t h;\nmemcpy(&h, &data[i * 2], 2);\nconst int e = (h >> 10) & 0x1F, m = h & 0x3FF;\n"
           "const double sign = (h & 0x8000) ? -1.0 : 1.0;\n"
           "if (e == 0) return sign * ldexp((double)m, -24);\n"
           "if (e == 31) return m ? NAN : sign * INFINITY;\n"
           "return sign * ldexp((double)(1024 + m), e - 25);\n";
      break;
  }
  s << "}\n\n";

  s << "int main(int argc, char* argv[]) {\nparse_args(argc, argv);\n";
  s << "RT_CHECK(vx_dev_open(&device));\n";
  s << "uint64_t num_warps = 0, num_threads = 0, num_cores = 0;\n"
       "RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));\n"
       "RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));\n"
       "RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));\n";
  s << "if (num_warps * num_threads < kThreads) {\n"
       "printf(\"Error: a block of %u threads does not fit a core of %u warps x %u threads\\n\", kThreads, "
       "(unsigned)num_warps, (unsigned)num_threads);\ncleanup();\nreturn -1;\n}\n";
  if (d.fragment != design::Fragment::kNone) {
    s << "if (num_threads != 32) {\nprintf(\"Error: the tensor-core kernel is built for 32-thread warps, the device has %u\\n\", "
         "(unsigned)num_threads);\ncleanup();\nreturn -1;\n}\n";
  }
  s << "uint32_t max_localmem = 0;\nRT_CHECK(vx_check_occupancy(device, kThreads, &max_localmem));\n"
       "if (max_localmem < kLocalBytes) {\nprintf(\"Error: the block needs %u B of local memory, a slot has %u B\\n\", "
       "kLocalBytes, max_localmem);\ncleanup();\nreturn -1;\n}\n";
  s << "printf(\"" << design::procedural_name(d) << "\\n\");\n";
  s << "printf(\"device: %u cores x %u warps x %u threads\\n\", (unsigned)num_cores, (unsigned)num_warps, "
       "(unsigned)num_threads);\n\n";

  s << "kernel_arg_t arg;\nmemset(&arg, 0, sizeof(arg));\n";
  for (const auto& [name, value] : v.scalars) s << "arg." << name << " = " << value << ";\n";
  if (!v.batch_dim.empty()) {
    for (int i = 0; i < 4; ++i) {
      s << "arg.batch_dim[" << i << "] = " << v.batch_dim[i] << ";\narg.a_stride[" << i << "] = " << v.a_stride[i]
        << ";\narg.b_stride[" << i << "] = " << v.b_stride[i] << ";\n";
    }
  }
  const ops::GemmView g = d.op.gemm_view();
  s << "arg.gemm_grid[0] = " << ceil_div(g.n, d.tile.n) << ";\narg.gemm_grid[1] = " << ceil_div(g.m, d.tile.m)
    << ";\narg.gemm_grid[2] = " << g.batch * d.split_k << ";\n";
  s << "arg.block_dim[0] = kThreads;\narg.block_dim[1] = 1;\narg.block_dim[2] = 1;\n";
  for (const Pass p : passes(d)) {
    if (p == Pass::kGemm) continue;
    const std::int64_t total = pass_total(d, p, v);
    s << "arg." << pass_function(p) << "_total = " << total << ";\narg." << pass_function(p) << "_grid[0] = "
      << ceil_div(total, d.fixed.block_size) << ";\n";
  }
  s << "\n// Inputs and the reference output.\nvx_buffer_h buffer = nullptr;\n";
  for (std::size_t i = 0; i < inputs.size() && i < roles.size(); ++i) {
    const std::int64_t bytes = ops::shape_numel(inputs[i].shape) * ops::dtype_size(inputs[i].dtype);
    s << "{\nuint8_t* host = read_tensor(\"" << inputs[i].name << ".vxt\", " << bytes << ");\nif (!host) {\ncleanup();\nreturn -1;\n}\n";
    s << "RT_CHECK(vx_mem_alloc(device, " << bytes << ", VX_MEM_READ, &buffer));\nbuffers[buffer_count++] = buffer;\n"
      << "RT_CHECK(vx_mem_address(buffer, &arg." << roles[i] << "_addr));\n"
      << "RT_CHECK(vx_copy_to_dev(buffer, host, 0, " << bytes << "));\nfree(host);\n}\n";
  }
  const std::int64_t out_elems = ops::shape_numel(output.shape);
  s << "const size_t out_elems = " << out_elems << ", out_bytes = out_elems * kElemBytes;\n"
    << "uint8_t* expected = read_tensor(\"expected.vxt\", out_bytes);\nif (!expected) {\ncleanup();\nreturn -1;\n}\n";
  s << "vx_buffer_h out_buffer = nullptr;\nRT_CHECK(vx_mem_alloc(device, out_bytes, VX_MEM_READ_WRITE, &out_buffer));\n"
       "buffers[buffer_count++] = out_buffer;\nRT_CHECK(vx_mem_address(out_buffer, &arg.out_addr));\n";
  s << "// Poison the output so an element the kernel never writes cannot pass.\n"
       "uint8_t* actual = (uint8_t*)malloc(out_bytes);\nmemset(actual, 0xFF, out_bytes);\n"
       "RT_CHECK(vx_copy_to_dev(out_buffer, actual, 0, out_bytes));\n";
  // Workspace.
  for (const auto& f : tensor_fields(d)) {
    std::int64_t bytes = 0;
    auto get = [&v](const std::string& name) {
      for (const auto& [n, value] : v.scalars)
        if (n == name) return value;
      return std::int64_t{0};
    };
    if (f == "partial") bytes = 4 * std::int64_t(d.split_k) * g.batch * g.m * g.n;
    else if (f == "pre") bytes = 4 * g.batch * g.m * g.n;
    else if (f == "a_pad") bytes = ops::dtype_size(dtype) * g.batch * get("Mp") * get("Kp");
    else if (f == "b_pad") bytes = ops::dtype_size(dtype) * g.batch * get("Np") * get("Kp");
    else continue;
    s << "// Workspace: " << f << "\nRT_CHECK(vx_mem_alloc(device, " << bytes << ", VX_MEM_READ_WRITE, &buffer));\n"
      << "buffers[buffer_count++] = buffer;\nRT_CHECK(vx_mem_address(buffer, &arg." << f << "_addr));\n";
  }
  s << R"src(
vx_buffer_h kernel_buffer = nullptr, args_buffer = nullptr;
RT_CHECK(vx_upload_kernel_file(device, kernel_file, &kernel_buffer));
buffers[buffer_count++] = kernel_buffer;
RT_CHECK(vx_upload_bytes(device, &arg, sizeof(arg), &args_buffer));
buffers[buffer_count++] = args_buffer;
RT_CHECK(vx_start(device, kernel_buffer, args_buffer));
// A failed kernel, reported the same way on Vortex and on vxsynth's simulator: Vortex's
// vx_ready_wait returns 0 whatever the kernel did, vxsynth's returns non-zero on a fault or a
// non-zero exit code; on both, the exit code is slot 1 of core 0's counter block, stored by
// the kernel's exit path (VX_CSR_MPM_RESERVED).
{
  const int wait_status = vx_ready_wait(device, VX_MAX_TIMEOUT);
  uint64_t exit_slot = 0;
  RT_CHECK(vx_mpm_query(device, VX_CSR_MPM_RESERVED, 0, &exit_slot));
  const int32_t exit_code = (int32_t)(uint32_t)exit_slot;
  if (wait_status != 0 || exit_code != 0) {
    printf("Error: the kernel failed (vx_ready_wait returned %d, kernel exit code %d)\n", wait_status, (int)exit_code);
    cleanup();
    printf("FAILED!\n");
    return 1;
  }
}
RT_CHECK(vx_copy_from_dev(actual, out_buffer, 0, out_bytes));

// Candidate check against the CPU reference.
size_t failed = 0;
double max_abs = 0.0;
for (size_t i = 0; i < out_elems; ++i) {
  const double y = element(actual, i), ref = element(expected, i);
  const double diff = fabs(y - ref);
  if (isfinite(diff) && diff > max_abs) max_abs = diff;
  if (!(isfinite(y) && diff <= kAtol + kRtol * fabs(ref))) {
    if (failed < 10) printf("*** error: [%zu] expected=%.9g, actual=%.9g\n", i, ref, y);
    ++failed;
  }
}
printf("check: %zu of %zu elements outside |y - ref| <= %.3g + %.3g |ref|, max |y - ref| = %.3g\n", failed, out_elems,
       kAtol, kRtol, max_abs);
)src";
  s << "static const uint64_t out_shape[] = " << shape_text(output.shape) << ";\n";
  s << "if (dump_file != NULL && !write_tensor(dump_file, out_shape, " << output.shape.size() << ", actual, out_bytes)) {\n"
    << "printf(\"Error: cannot write %s\\n\", dump_file);\ncleanup();\nreturn -1;\n}\n";
  s << R"src(free(actual);
free(expected);
vx_dump_perf(device, stdout);
cleanup();
if (failed != 0) {
  printf("FAILED!\n");
  return 1;
}
printf("PASSED!\n");
return 0;
}
)src";
  return s.str();
}

std::string cmake_lists(const DesignPoint& d) {
  std::ostringstream s;
  s << "# Generated by `vxsynth gen` (" << design::procedural_name(d) << "): builds this benchmark against the\n"
       "# embedded Vortex simulator of a vxsynth build.\n"
       "#   cmake -S . -B build -DVXSYNTH_SOURCE_DIR=<vxsynth checkout> -DVXSYNTH_BUILD_DIR=<its build folder>\n"
       "#   cmake --build build && (cd build && ./bench -k kernel.vxbin -d ../data)\n";
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
target_compile_features(bench PRIVATE cxx_std_17)
target_include_directories(bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
  ${VXSYNTH_SOURCE_DIR}/src/vxsim/host/include ${VXSYNTH_SOURCE_DIR}/vortex-rt/include)
target_link_libraries(bench PRIVATE
  ${VXSYNTH_BUILD_DIR}/src/vxsim/host/libvxsynth_vxsim_host.a
  ${VXSYNTH_BUILD_DIR}/src/vxsim/libvxsynth_vxsim.a
  ${VXSYNTH_BUILD_DIR}/src/common/libvxsynth_common.a
  Threads::Threads)
# The kernel, cross-compiled with Debian's riscv64-unknown-elf-gcc and vortex-rt.
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
  s << "# Generated by `vxsynth gen` (" << design::procedural_name(d) << ").\n"
       "# For a Vortex source tree: copy this folder (with data/) to tests/regression/<name> and run make there\n"
       "# (make run-simx). vx_branchless.h, vxsynth's, is beside kernel.cpp.\n";
  s << R"src(ROOT_DIR := $(realpath ../../..)
include $(ROOT_DIR)/config.mk

PROJECT := $(notdir $(CURDIR))

SRC_DIR := $(VORTEX_HOME)/tests/regression/$(PROJECT)

SRCS := $(SRC_DIR)/main.cpp

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
  if (design::is_transform(d)) return emit_transform_vortex(d, check);
  design::require_valid(d, "design " + design::procedural_name(d));
  std::string why;
  if (!vortex_supported(d, &why)) throw WorkError(why);
  return {{"common.h", common_h(d)},
          {"kernel.cpp", kernel_cpp(d)},
          {"vx_branchless.h", kVxBranchlessHeader},
          {"main.cpp", main_cpp(d, check)},
          {"CMakeLists.txt", cmake_lists(d)},
          {"Makefile", makefile(d)}};
}

}  // namespace vxsynth::codegen
