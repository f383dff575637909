// Is there a CUDA device here? Asked through the driver library (dlopen of libcuda.so.1), so
// the answer needs no CUDA toolkit and works on CI machines that have none.
#pragma once

#include <string>

namespace vxsynth::gpu {

struct DeviceProbe {
  bool present = false;
  int count = 0;
  std::string detail;  // why not present ("libcuda.so.1 not found: no NVIDIA driver", ...), or the device name
};

DeviceProbe probe_cuda_device();

// WorkError with a clear "no CUDA device is present" message (and the reason) when absent.
void require_cuda_device(const std::string& command);

}  // namespace vxsynth::gpu
