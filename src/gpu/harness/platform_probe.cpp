#include "harness/platform_probe.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>

#include <string>

#include "harness/cuda_check.h"

namespace vxsynth::gpu {
namespace {

// "13.0" from 13000 (the CUDA version encoding: major * 1000 + minor * 10).
std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// "9.14.0" from 91400 (cuDNN 9 and cuBLASLt: major * 10000 + minor * 100 + patch).
std::string library_version(std::size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

// The NVIDIA driver's version through NVML (loaded at run time: absent on some machines).
std::string nvidia_driver() {
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (nvml == nullptr) return "";
  using InitFn = int (*)();
  using VersionFn = int (*)(char*, unsigned);
  auto init = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlInit_v2"));
  auto version = reinterpret_cast<VersionFn>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlShutdown"));
  std::string out;
  if (init != nullptr && version != nullptr && init() == 0) {
    char buffer[96] = {};
    if (version(buffer, sizeof buffer) == 0) out = buffer;
    if (shutdown != nullptr) shutdown();
  }
  dlclose(nvml);
  return out;
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
}

}  // namespace

signature::Platform probe_platform(int device) {
  cudaDeviceProp prop{};
  VX_CUDA(cudaGetDeviceProperties(&prop, device));
  signature::Platform p;
  p.gpu = prop.name;
  p.sm_count = prop.multiProcessorCount;
  p.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  p.memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  p.sm_clock_khz = attribute(cudaDevAttrClockRate, device);
  p.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  p.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  int v = 0;
  p.driver = nvidia_driver();
  if (p.driver.empty() && cudaDriverGetVersion(&v) == cudaSuccess) p.driver = "CUDA driver API " + cuda_version(v);
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) p.cuda_runtime = cuda_version(v);
  p.cublas = library_version(cublasLtGetVersion());
  p.cudnn = library_version(cudnnGetVersion());
  return p;
}

}  // namespace vxsynth::gpu
