// The host program of every generated Vortex benchmark (Vortex regression style), copied
// unchanged into <benchmark>/vortex/main.cpp; what differs per design is in the generated
// bench.h beside it (the machine, the tolerance, the kernel arguments, the tensors).
//
//   ./bench [-k kernel.vxbin] [-d data-folder] [-o output.vxt]
//
// Loads the seeded inputs and the CPU reference output (vxsynth tensor files, read and written
// with src/ops/tensor_file), runs the kernel, checks every output element against the
// reference with the candidate tolerance, or bit for bit for a layout transform
// (ops::compare_outputs, Check::candidate), prints
// PASSED!/FAILED! and the device's PERF lines (at vx_dev_close), and with -o writes the output
// tensor for the cross-check against the CUDA candidate (`vxsynth check`).
//
// On the embedded simulator (built with VXSYNTH_EMBEDDED_SIM) the program asks for the machine
// its design is written for; VXSIM_CORES/WARPS/THREADS/LOCAL_MEM in the environment override
// it. On a real Vortex the machine is fixed when Vortex is built, and a machine the block does
// not fit is reported with the CONFIGS to build it with.
#include <unistd.h>
#include <VX_types.h>
#include <vortex.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "bench.h"
#include "ops/equivalence.h"
#include "ops/tensor_file.h"

#ifdef VXSYNTH_EMBEDDED_SIM
#include <vortex_vxsim.h>
#endif

namespace {

const char* kernel_file = "kernel.vxbin";
const char* data_dir = "data";
const char* dump_file = nullptr;

vx_device_h device = nullptr;
std::vector<vx_buffer_h> buffers;

void cleanup() {
  if (device != nullptr) {
    for (vx_buffer_h b : buffers) vx_mem_free(b);
    buffers.clear();
    vx_dev_close(device);  // prints the PERF lines
    device = nullptr;
  }
}

#define RT_CHECK(_expr)                                        \
  do {                                                         \
    int _ret = _expr;                                          \
    if (0 == _ret) break;                                      \
    std::printf("Error: '%s' returned %d!\n", #_expr, _ret);   \
    cleanup();                                                 \
    std::exit(-1);                                             \
  } while (false)

[[noreturn]] void fail(const std::string& message) {
  std::printf("Error: %s\n", message.c_str());
  cleanup();
  std::exit(-1);
}

void show_usage() { std::printf("Usage: [-k kernel.vxbin] [-d data-folder] [-o output.vxt] [-h]\n"); }

void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "k:d:o:h")) != -1) {
    switch (c) {
      case 'k': kernel_file = optarg; break;
      case 'd': data_dir = optarg; break;
      case 'o': dump_file = optarg; break;
      case 'h': show_usage(); std::exit(0);
      default: show_usage(); std::exit(-1);
    }
  }
}

#ifdef VXSYNTH_EMBEDDED_SIM
// The design's machine, each field overridable from the environment.
void configure_embedded_device() {
  vxsim_device_config_t config;
  if (vxsim_default_device_config(&config) != 0) std::exit(-1);  // an invalid VXSIM_* variable
  const struct {
    const char* variable;
    uint32_t* field;
    uint32_t design_value;
  } fields[] = {{"VXSIM_CORES", &config.cores, bench::kCores},
                {"VXSIM_WARPS", &config.warps, bench::kWarps},
                {"VXSIM_THREADS", &config.threads, bench::kWarpThreads},
                {"VXSIM_LOCAL_MEM", &config.local_mem_size, bench::kLocalMem}};
  for (const auto& f : fields) {
    const char* set = std::getenv(f.variable);
    if (set == nullptr || *set == '\0') *f.field = f.design_value;
  }
  if (vxsim_set_device_config(&config) != 0) std::exit(-1);
}
#endif

int log2_ceil(uint32_t v) {
  int l = 0;
  while ((1u << l) < v) ++l;
  return l;
}

// The block must fit one core; otherwise say which Vortex build (or simulator setting) fits it.
void check_machine() {
  uint64_t num_warps = 0, num_threads = 0, num_cores = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_CORES, &num_cores));
  const std::string wanted = "this benchmark is written for a core of " + std::to_string(bench::kWarps) + " warps x " +
                             std::to_string(bench::kWarpThreads) + " threads with " + std::to_string(bench::kLocalMem) +
                             " B of local memory: build Vortex with CONFIGS=\"-DNUM_WARPS=" + std::to_string(bench::kWarps) +
                             " -DNUM_THREADS=" + std::to_string(bench::kWarpThreads) + " -DLMEM_LOG_SIZE=" +
                             std::to_string(log2_ceil(bench::kLocalMem)) + "\" (embedded simulator: VXSIM_WARPS=" +
                             std::to_string(bench::kWarps) + " VXSIM_THREADS=" + std::to_string(bench::kWarpThreads) +
                             " VXSIM_LOCAL_MEM=" + std::to_string(bench::kLocalMem) + ")";
  if (num_warps * num_threads < bench::kThreads) {
    fail("a block of " + std::to_string(bench::kThreads) + " threads does not fit a core of " + std::to_string(num_warps) +
         " warps x " + std::to_string(num_threads) + " threads; " + wanted);
  }
  if (bench::kTensorCore && num_threads != 32) {
    fail("the tensor-core kernel is built for 32-thread warps, the device has " + std::to_string(num_threads) + "; " + wanted);
  }
  uint32_t max_localmem = 0;
  RT_CHECK(vx_check_occupancy(device, bench::kThreads, &max_localmem));
  if (max_localmem < bench::kLocalBytes) {
    fail("the block needs " + std::to_string(bench::kLocalBytes) + " B of local memory, a slot has " +
         std::to_string(max_localmem) + " B; " + wanted);
  }
  std::printf("%s\n", bench::kDesign);
  std::printf("device: %u cores x %u warps x %u threads\n", (unsigned)num_cores, (unsigned)num_warps, (unsigned)num_threads);
}

// A tensor file of the data folder, checked against the dtype and shape the kernel expects.
vxsynth::ops::Tensor read_input(const char* file, const vxsynth::ops::Shape& shape) {
  const std::string path = std::string(data_dir) + "/" + file;
  vxsynth::ops::Tensor t;
  try {
    t = vxsynth::ops::read_tensor_file(path);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (t.dtype() != bench::kDtype || t.shape() != shape) {
    fail(path + ": expected a " + vxsynth::ops::to_string(bench::kDtype) + " tensor of shape " +
         vxsynth::ops::shape_to_string(shape) + ", found " + vxsynth::ops::to_string(t.dtype()) + " " +
         vxsynth::ops::shape_to_string(t.shape()));
  }
  return t;
}

uint64_t device_buffer(uint64_t bytes, int flags) {
  vx_buffer_h buffer = nullptr;
  RT_CHECK(vx_mem_alloc(device, bytes, flags, &buffer));
  buffers.push_back(buffer);
  uint64_t address = 0;
  RT_CHECK(vx_mem_address(buffer, &address));
  return address;
}

}  // namespace

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
#ifdef VXSYNTH_EMBEDDED_SIM
  configure_embedded_device();
#endif
  RT_CHECK(vx_dev_open(&device));
  check_machine();

  kernel_arg_t arg;
  std::memset(&arg, 0, sizeof(arg));
  bench::set_arguments(arg);

  // Inputs, output (poisoned, so an element the kernel never writes cannot pass), workspaces.
  for (const bench::Input& in : bench::kInputs) {
    const vxsynth::ops::Tensor t = read_input(in.file, in.shape);
    arg.*in.address = device_buffer(t.byte_size(), VX_MEM_READ);
    vx_buffer_h buffer = buffers.back();
    RT_CHECK(vx_copy_to_dev(buffer, t.data(), 0, t.byte_size()));
  }
  const vxsynth::ops::Tensor expected = read_input("expected.vxt", bench::kOutputShape);
  vxsynth::ops::Tensor actual(bench::kDtype, bench::kOutputShape, "y");
  actual.fill_poison();
  arg.out_addr = device_buffer(actual.byte_size(), VX_MEM_READ_WRITE);
  vx_buffer_h out_buffer = buffers.back();
  RT_CHECK(vx_copy_to_dev(out_buffer, actual.data(), 0, actual.byte_size()));
  for (const bench::Workspace& w : bench::kWorkspaces) arg.*w.address = device_buffer(w.bytes, VX_MEM_READ_WRITE);

  vx_buffer_h kernel_buffer = nullptr, args_buffer = nullptr;
  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &kernel_buffer));
  buffers.push_back(kernel_buffer);
  RT_CHECK(vx_upload_bytes(device, &arg, sizeof(arg), &args_buffer));
  buffers.push_back(args_buffer);
  RT_CHECK(vx_start(device, kernel_buffer, args_buffer));
  // A failed kernel, reported the same way on Vortex and on vxsynth's simulator: Vortex's
  // vx_ready_wait returns 0 whatever the kernel did, vxsynth's returns non-zero on a fault or a
  // non-zero exit code; on both, the exit code is slot 1 of core 0's counter block, stored by
  // the kernel's exit path (VX_CSR_MPM_RESERVED).
  {
    const int wait_status = vx_ready_wait(device, VX_MAX_TIMEOUT);
    uint64_t exit_slot = 0;
    RT_CHECK(vx_mpm_query(device, VX_CSR_MPM_RESERVED, 0, &exit_slot));
    const int32_t exit_code = static_cast<int32_t>(static_cast<uint32_t>(exit_slot));
    if (wait_status != 0 || exit_code != 0) {
      std::printf("Error: the kernel failed (vx_ready_wait returned %d, kernel exit code %d)\n", wait_status,
                  static_cast<int>(exit_code));
      cleanup();
      std::printf("FAILED!\n");
      return 1;
    }
  }
  RT_CHECK(vx_copy_from_dev(actual.data(), out_buffer, 0, actual.byte_size()));

  // Candidate check against the CPU reference: with the candidate tolerance, or bit for bit
  // (layout transforms), elements never written reported apart.
  vxsynth::ops::Tolerance tolerance;
  tolerance.atol = bench::kAtol;
  tolerance.rtol = bench::kRtol;
  tolerance.exact = bench::kExact;
  const vxsynth::ops::EquivalenceReport report =
      vxsynth::ops::compare_outputs(expected, actual, tolerance, vxsynth::ops::Check::candidate);
  std::printf("%s\n", report.text().c_str());
  if (dump_file != nullptr) {
    try {
      vxsynth::ops::write_tensor_file(dump_file, actual);
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  cleanup();
  if (!report.passed()) {
    std::printf("FAILED!\n");
    return 1;
  }
  std::printf("PASSED!\n");
  return 0;
}
