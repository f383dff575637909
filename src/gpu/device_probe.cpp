#include "gpu/device_probe.h"

#include <dlfcn.h>

#include <array>

#include "common/error.h"

namespace vxsynth::gpu {

DeviceProbe probe_cuda_device() {
  DeviceProbe probe;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    probe.detail = "libcuda.so.1 (the NVIDIA driver) is not installed on this machine";
    return probe;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  if (!init || !count || !get || !name) {
    probe.detail = "libcuda.so.1 lacks cuInit/cuDeviceGetCount";
  } else if (int rc = init(0); rc != 0) {
    probe.detail = "cuInit failed with CUDA driver error " + std::to_string(rc) +
                   (rc == 100 ? " (CUDA_ERROR_NO_DEVICE)" : "");
  } else if (count(&probe.count) != 0 || probe.count == 0) {
    probe.detail = "the NVIDIA driver reports no CUDA device";
  } else {
    probe.present = true;
    int device = 0;
    std::array<char, 256> buffer{};
    if (get(&device, 0) == 0 && name(buffer.data(), static_cast<int>(buffer.size()), device) == 0) {
      probe.detail = buffer.data();
    }
  }
  // The driver stays loaded: unloading it after cuInit is not supported.
  return probe;
}

void require_cuda_device(const std::string& command) {
  const DeviceProbe probe = probe_cuda_device();
  if (!probe.present) {
    throw WorkError(command + ": no CUDA device is present (" + probe.detail +
                    "); run it on the GPU machine (docs/gpu.md)");
  }
}

}  // namespace vxsynth::gpu
