// The platform a profile ran on: which GPU (name, SM count, memory, clocks) and which software
// (driver, CUDA runtime, cuBLAS, cuDNN). Profiles of two GPU models are two platforms: a
// candidate profiled on one is compared only with references of the same model
// (docs/signature.md, "Platforms").
//
// References carry the capture's block (reference.json "platform": id, gpu, sm_count, driver,
// cuda, cudnn, ...); GPU jobs, evaluations and signature files carry this one.
#pragma once

#include <string>

#include "common/json_fwd.h"

namespace vxsynth::signature {

struct Platform {
  std::string gpu;                 // the device name the CUDA runtime reports ("NVIDIA H100 80GB HBM3"); "" unknown
  int sm_count = 0;                // 0 unknown
  std::string compute_capability;  // "9.0"
  long long memory_bytes = 0;
  int sm_clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;  // peak
  std::string driver;              // the NVIDIA driver ("580.159.04"), else the CUDA driver API version
  std::string cuda_runtime, cublas, cudnn;

  bool known() const { return !gpu.empty(); }
  // The suite folder's name for this GPU ("h200", "h100"; platform_id).
  std::string id() const;
};

// A GPU name's platform id: "h200" for any NVIDIA H200, "h100" for any H100, "jetson-agx-orin"
// for Orin; else the name lower-cased without "NVIDIA", spaces as '-'. The capture
// (python/vxsynth/reference.py, PLATFORMS) uses the same table.
std::string platform_id(const std::string& gpu_name);

// Whether two profiles ran on the same GPU model: the same device name and, when both know it,
// the same SM count.
bool same_gpu(const Platform& a, const Platform& b);

// "NVIDIA H200 (132 SMs)".
std::string describe(const Platform& p);

Json platform_to_json(const Platform& p);
// A "platform" object: gpu (string) required, the rest optional with their types checked
// (InputError naming file and field). Reads the capture's reference block too (its cuda and
// cudnn fields, numeric or text).
Platform platform_from_json(const Json& j, const std::string& file, const std::string& where);

// The platform of a legacy GPU origin ("NVIDIA H200 (sm_90, 132 SMs), runs/x"), the form the
// harness's device line took before platforms were recorded; unknown when it is not one.
Platform platform_from_origin(const std::string& origin);

}  // namespace vxsynth::signature
