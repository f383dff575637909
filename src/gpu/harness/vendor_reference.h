// The vendor operator for an op spec, with the math mode PyTorch uses on that precision path
// (docs/gpu.md, "Vendor reference"):
//   linear with bias   cuBLASLt matmul with the BIAS epilogue (PyTorch's addmm path)
//   linear, matmul     cuBLAS GEMM (strided batched when the batch layout allows)
//   conv1d, conv2d     cuDNN convolution forward, algorithm from cuDNN's heuristics
//   layout_transform   cudnnTransformTensor between the NCHW and NHWC descriptors of one tensor
//                      (alpha = 1, beta = 0), cuDNN's own re-layout; the kernel it launches is
//                      recorded through CUPTI next to the one the workload's conv launched
// fp32: no TF32 (CUBLAS_COMPUTE_32F, CUDNN_FMA_MATH); tf32: TF32 tensor cores allowed
// (CUBLAS_COMPUTE_32F_FAST_TF32, CUDNN_DEFAULT_MATH); bf16/fp16: that storage, fp32 accumulate.
// A convolution's bias is added inside cuDNN's call (beta = 1 over a bias-filled output: one
// rounding; PyTorch's eager path adds it in a separate kernel and rounds twice). Activations,
// which PyTorch runs as separate elementwise kernels, are applied on the host to the
// downloaded output by finish_on_host(), with PyTorch's intermediate rounding.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "common/json_io.h"
#include "gpu/abi/vxsynth_candidate.h"
#include "ops/op_spec.h"
#include "ops/tensor.h"

namespace vxsynth::gpu {

// Library handles, created once per process (cuDNN's creation is slow).
class VendorHandles {
 public:
  VendorHandles();
  ~VendorHandles();
  VendorHandles(const VendorHandles&) = delete;
  VendorHandles& operator=(const VendorHandles&) = delete;

  cublasHandle_t cublas();
  cublasLtHandle_t cublas_lt();
  cudnnHandle_t cudnn();
  void* workspace() const { return workspace_; }
  std::size_t workspace_bytes() const { return workspace_bytes_; }

 private:
  cublasHandle_t cublas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

class VendorReference {
 public:
  VendorReference(const ops::OpSpec& spec, const vxsynth_problem& problem, VendorHandles& handles);
  ~VendorReference();
  VendorReference(const VendorReference&) = delete;
  VendorReference& operator=(const VendorReference&) = delete;

  // What the output buffer must hold before run(): poison, or for a convolution with bias the
  // bias broadcast over the output (cuDNN adds it in its epilogue through beta = 1, so the sum
  // is rounded once, as a fused candidate rounds it).
  ops::Tensor initial_output(const ops::Tensor* bias) const;

  // Enqueues the vendor call on `stream`.
  void run(const void* a, const void* b, const void* bias, void* out, cudaStream_t stream);

  // Activations, as PyTorch's separate kernel would (the GEMM/conv output is already rounded
  // to the storage type).
  void finish_on_host(ops::Tensor& out) const;

  const std::string& library() const { return library_; }
  const std::string& math() const { return math_; }
  Json details() const { return details_; }

 private:
  void plan_gemm();
  void plan_conv();
  void plan_transform();

  const ops::OpSpec& spec_;
  vxsynth_problem problem_;
  VendorHandles& handles_;
  std::string library_;
  std::string math_;
  Json details_;
  bool conv_bias_ = false;
  bool transform_ = false;  // layout_transform: cudnnTransformTensor

  // cuBLASLt plan (linear with bias)
  cublasLtMatmulDesc_t lt_op_ = nullptr;
  cublasLtMatrixLayout_t lt_a_ = nullptr, lt_b_ = nullptr, lt_c_ = nullptr;
  cublasLtMatmulAlgo_t lt_algo_{};

  // cuDNN plan
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t conv_algo_{};
  void* conv_workspace_ = nullptr;
  std::size_t conv_workspace_bytes_ = 0;
};

}  // namespace vxsynth::gpu
