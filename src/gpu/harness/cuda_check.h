// Every CUDA, cuBLAS and cuDNN call in the harness goes through one of these: a failure is a
// WorkError naming the call, the file and line, and the library's own message.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "common/error.h"

namespace vxsynth::gpu {

inline void check_cuda(cudaError_t rc, const char* call, const char* file, int line) {
  if (rc != cudaSuccess) {
    throw WorkError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(rc) + " (" + cudaGetErrorString(rc) + ")");
  }
}
inline void check_cublas(cublasStatus_t rc, const char* call, const char* file, int line) {
  if (rc != CUBLAS_STATUS_SUCCESS) {
    throw WorkError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cublasGetStatusName(rc) + " (" + cublasGetStatusString(rc) + ")");
  }
}
inline void check_cudnn(cudnnStatus_t rc, const char* call, const char* file, int line) {
  if (rc != CUDNN_STATUS_SUCCESS) {
    throw WorkError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudnnGetErrorString(rc));
  }
}

}  // namespace vxsynth::gpu

#define VX_CUDA(call) ::vxsynth::gpu::check_cuda((call), #call, __FILE__, __LINE__)
#define VX_CUBLAS(call) ::vxsynth::gpu::check_cublas((call), #call, __FILE__, __LINE__)
#define VX_CUDNN(call) ::vxsynth::gpu::check_cudnn((call), #call, __FILE__, __LINE__)
