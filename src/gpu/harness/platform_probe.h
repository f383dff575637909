// The platform of the GPU job: the device's properties from the CUDA runtime, the library
// versions it loaded, and the NVIDIA driver's version from NVML when it is there.
#pragma once

#include "signature/platform.h"

namespace vxsynth::gpu {

signature::Platform probe_platform(int device);

}  // namespace vxsynth::gpu
