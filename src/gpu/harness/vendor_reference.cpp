#include "harness/vendor_reference.h"

#include <cmath>
#include <vector>

#include "harness/cuda_check.h"
#include "ops/inputs.h"

namespace vxsynth::gpu {
namespace {

// PyTorch's default cuBLAS workspace on Hopper (CUBLAS_WORKSPACE_CONFIG :4096:8).
constexpr std::size_t kWorkspaceBytes = 32u << 20;

cudaDataType_t cuda_type(int32_t dtype) {
  switch (dtype) {
    case VXSYNTH_DTYPE_BF16: return CUDA_R_16BF;
    case VXSYNTH_DTYPE_FP16: return CUDA_R_16F;
    default: return CUDA_R_32F;
  }
}

cudnnDataType_t cudnn_type(int32_t dtype) {
  switch (dtype) {
    case VXSYNTH_DTYPE_BF16: return CUDNN_DATA_BFLOAT16;
    case VXSYNTH_DTYPE_FP16: return CUDNN_DATA_HALF;
    default: return CUDNN_DATA_FLOAT;
  }
}

cublasComputeType_t compute_type(int32_t precision) {
  return precision == VXSYNTH_PRECISION_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

std::string compute_words(int32_t precision) {
  switch (precision) {
    case VXSYNTH_PRECISION_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores allowed)";
    case VXSYNTH_PRECISION_BF16: return "bf16 operands, CUBLAS_COMPUTE_32F (fp32 accumulation)";
    case VXSYNTH_PRECISION_FP16: return "fp16 operands, CUBLAS_COMPUTE_32F (fp32 accumulation)";
    default: return "CUBLAS_COMPUTE_32F, no TF32 (PyTorch's default for fp32 matmul)";
  }
}

// The flat batch stride when one stride walks every output batch entry, or -1.
long long uniform_stride(const vxsynth_problem& p, const int64_t* strides, long long matrix_elems) {
  bool all_zero = true, contiguous = true;
  long long expect = matrix_elems;
  for (int i = p.batch_rank - 1; i >= 0; --i) {
    if (strides[i] != 0) all_zero = false;
    if (p.batch[i] != 1 && strides[i] != expect) contiguous = false;
    expect *= p.batch[i];
  }
  if (all_zero) return 0;
  if (contiguous) return matrix_elems;
  return -1;
}

long long batch_offset(const vxsynth_problem& p, const int64_t* strides, long long z) {
  long long off = 0;
  for (int i = p.batch_rank - 1; i >= 0; --i) {
    off += (z % p.batch[i]) * strides[i];
    z /= p.batch[i];
  }
  return off;
}

}  // namespace

VendorHandles::VendorHandles() {
  VX_CUDA(cudaMalloc(&workspace_, kWorkspaceBytes));
  workspace_bytes_ = kWorkspaceBytes;
}

VendorHandles::~VendorHandles() {
  if (cudnn_) cudnnDestroy(cudnn_);
  if (lt_) cublasLtDestroy(lt_);
  if (cublas_) cublasDestroy(cublas_);
  if (workspace_) cudaFree(workspace_);
}

cublasHandle_t VendorHandles::cublas() {
  if (!cublas_) {
    VX_CUBLAS(cublasCreate(&cublas_));
    VX_CUBLAS(cublasSetWorkspace(cublas_, workspace_, workspace_bytes_));
  }
  return cublas_;
}

cublasLtHandle_t VendorHandles::cublas_lt() {
  if (!lt_) VX_CUBLAS(cublasLtCreate(&lt_));
  return lt_;
}

cudnnHandle_t VendorHandles::cudnn() {
  if (!cudnn_) VX_CUDNN(cudnnCreate(&cudnn_));
  return cudnn_;
}

VendorReference::VendorReference(const ops::OpSpec& spec, const vxsynth_problem& problem,
                                 VendorHandles& handles)
    : spec_(spec), problem_(problem), handles_(handles) {
  if (problem.op_kind == VXSYNTH_OP_CONV1D || problem.op_kind == VXSYNTH_OP_CONV2D) {
    plan_conv();
  } else if (problem.op_kind == VXSYNTH_OP_LAYOUT_TRANSFORM) {
    plan_transform();
  } else {
    plan_gemm();
  }
}

VendorReference::~VendorReference() {
  if (lt_op_) cublasLtMatmulDescDestroy(lt_op_);
  if (lt_a_) cublasLtMatrixLayoutDestroy(lt_a_);
  if (lt_b_) cublasLtMatrixLayoutDestroy(lt_b_);
  if (lt_c_) cublasLtMatrixLayoutDestroy(lt_c_);
  if (x_desc_) cudnnDestroyTensorDescriptor(x_desc_);
  if (y_desc_) cudnnDestroyTensorDescriptor(y_desc_);
  if (w_desc_) cudnnDestroyFilterDescriptor(w_desc_);
  if (conv_desc_) cudnnDestroyConvolutionDescriptor(conv_desc_);
  if (conv_workspace_) cudaFree(conv_workspace_);
}

void VendorReference::plan_gemm() {
  const auto& p = problem_;
  math_ = compute_words(p.precision);
  details_["compute_type"] = static_cast<int>(compute_type(p.precision));
  if (p.op_kind == VXSYNTH_OP_LINEAR && p.has_bias) {
    // y^T (N x M, column-major) = W^T(op T on the K x N column-major view of W) * x^T, plus
    // the bias broadcast along M: exactly cuBLASLt's BIAS epilogue.
    library_ = "cuBLASLt";
    const cudaDataType_t t = cuda_type(p.dtype);
    VX_CUBLAS(cublasLtMatmulDescCreate(&lt_op_, compute_type(p.precision), CUDA_R_32F));
    const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    VX_CUBLAS(cublasLtMatmulDescSetAttribute(lt_op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof(op_t)));
    VX_CUBLAS(cublasLtMatmulDescSetAttribute(lt_op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof(op_n)));
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    VX_CUBLAS(cublasLtMatmulDescSetAttribute(lt_op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    VX_CUBLAS(cublasLtMatrixLayoutCreate(&lt_a_, t, static_cast<uint64_t>(p.k), static_cast<uint64_t>(p.n), p.k));
    VX_CUBLAS(cublasLtMatrixLayoutCreate(&lt_b_, t, static_cast<uint64_t>(p.k), static_cast<uint64_t>(p.m), p.k));
    VX_CUBLAS(cublasLtMatrixLayoutCreate(&lt_c_, t, static_cast<uint64_t>(p.n), static_cast<uint64_t>(p.m), p.n));
    cublasLtMatmulPreference_t pref = nullptr;
    VX_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = handles_.workspace_bytes();
    VX_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    cublasLtMatmulHeuristicResult_t heuristic{};
    int returned = 0;
    const cublasStatus_t rc = cublasLtMatmulAlgoGetHeuristic(handles_.cublas_lt(), lt_op_, lt_a_, lt_b_, lt_c_,
                                                             lt_c_, pref, 1, &heuristic, &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    VX_CUBLAS(rc);
    if (returned == 0) throw WorkError("cuBLASLt found no algorithm for " + spec_.name);
    lt_algo_ = heuristic.algo;
    details_["epilogue"] = "CUBLASLT_EPILOGUE_BIAS";
    details_["workspace_bytes"] = heuristic.workspaceSize;
    return;
  }
  library_ = "cuBLAS";
  details_["api"] = p.op_kind == VXSYNTH_OP_MATMUL && p.batch_count > 1 ? "cublasGemmStridedBatchedEx"
                                                                          : "cublasGemmEx";
}

void VendorReference::plan_conv() {
  const auto& p = problem_;
  library_ = "cuDNN";
  const cudnnDataType_t t = cudnn_type(p.dtype);
  const cudnnTensorFormat_t format =
      p.layout == VXSYNTH_LAYOUT_CHANNELS_LAST ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  VX_CUDNN(cudnnCreateTensorDescriptor(&x_desc_));
  VX_CUDNN(cudnnCreateTensorDescriptor(&y_desc_));
  VX_CUDNN(cudnnCreateFilterDescriptor(&w_desc_));
  VX_CUDNN(cudnnCreateConvolutionDescriptor(&conv_desc_));
  auto narrow = [&](long long v, const char* what) {
    if (v > 0x7fffffff) throw WorkError(std::string("cuDNN descriptor: ") + what + " exceeds int range");
    return static_cast<int>(v);
  };
  VX_CUDNN(cudnnSetTensor4dDescriptor(x_desc_, format, t, narrow(p.n_img, "n"), narrow(p.c_in, "c"),
                                      narrow(p.h, "h"), narrow(p.w, "w")));
  VX_CUDNN(cudnnSetFilter4dDescriptor(w_desc_, t, format, narrow(p.k_out, "k"), narrow(p.c_in / p.groups, "c/g"),
                                      narrow(p.r, "r"), narrow(p.s, "s")));
  VX_CUDNN(cudnnSetConvolution2dDescriptor(conv_desc_, narrow(p.pad_h, "pad"), narrow(p.pad_w, "pad"),
                                           narrow(p.stride_h, "stride"), narrow(p.stride_w, "stride"),
                                           narrow(p.dilation_h, "dilation"), narrow(p.dilation_w, "dilation"),
                                           CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  VX_CUDNN(cudnnSetConvolutionGroupCount(conv_desc_, narrow(p.groups, "groups")));
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  switch (p.precision) {
    case VXSYNTH_PRECISION_FP32:
      math = CUDNN_FMA_MATH;
      math_ = "CUDNN_FMA_MATH (no TF32)";
      break;
    case VXSYNTH_PRECISION_TF32:
      math = CUDNN_DEFAULT_MATH;
      math_ = "CUDNN_DEFAULT_MATH (TF32 allowed: PyTorch's default for fp32 convolutions)";
      break;
    default:
      math = CUDNN_TENSOR_OP_MATH;
      math_ = std::string(p.dtype == VXSYNTH_DTYPE_BF16 ? "bf16" : "fp16") +
              " operands, fp32 compute, CUDNN_TENSOR_OP_MATH";
  }
  VX_CUDNN(cudnnSetConvolutionMathType(conv_desc_, math));
  int n = 0, c = 0, h = 0, w = 0;
  VX_CUDNN(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_, w_desc_, &n, &c, &h, &w));
  if (n != p.n_img || c != p.k_out || h != p.p || w != p.q) {
    throw WorkError("cuDNN output shape [" + std::to_string(n) + "," + std::to_string(c) + "," + std::to_string(h) +
                    "," + std::to_string(w) + "] differs from the op spec's");
  }
  VX_CUDNN(cudnnSetTensor4dDescriptor(y_desc_, format, t, n, c, h, w));
  // cuDNN's heuristics, as PyTorch uses them when cudnn.benchmark is off: the first algorithm
  // that is supported and keeps the math mode (fp32 must not come back as TF32 tensor ops).
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int returned = 0;
  VX_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handles_.cudnn(), x_desc_, w_desc_, conv_desc_, y_desc_,
                                                  static_cast<int>(perf.size()), &returned, perf.data()));
  bool found = false;
  for (int i = 0; i < returned && !found; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (p.precision == VXSYNTH_PRECISION_FP32 && perf[i].mathType == CUDNN_TENSOR_OP_MATH) continue;
    conv_algo_ = perf[i].algo;
    if (p.precision != VXSYNTH_PRECISION_FP32) VX_CUDNN(cudnnSetConvolutionMathType(conv_desc_, perf[i].mathType));
    details_["algo"] = static_cast<int>(perf[i].algo);
    details_["algo_math_type"] = static_cast<int>(perf[i].mathType);
    found = true;
  }
  if (!found) throw WorkError("cuDNN heuristics returned no usable forward algorithm for " + spec_.name);
  VX_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(handles_.cudnn(), x_desc_, w_desc_, conv_desc_, y_desc_,
                                                   conv_algo_, &conv_workspace_bytes_));
  if (conv_workspace_bytes_ > 0) VX_CUDA(cudaMalloc(&conv_workspace_, conv_workspace_bytes_));
  details_["workspace_bytes"] = conv_workspace_bytes_;
  conv_bias_ = p.has_bias != 0;
  details_["bias"] = p.has_bias ? "cuDNN epilogue: beta = 1 over the bias broadcast into the output" : "none";
}

void VendorReference::plan_transform() {
  // One tensor, two descriptors: the same logical [n][c][h][w] in the input's format and in the
  // other one. cuDNN copies between them (y = alpha x + beta y, here alpha = 1, beta = 0).
  const auto& p = problem_;
  library_ = "cuDNN";
  transform_ = true;
  const cudnnDataType_t t = cudnn_type(p.dtype);
  const bool from_last = p.layout == VXSYNTH_LAYOUT_CHANNELS_LAST;
  auto narrow = [&](long long v, const char* what) {
    if (v > 0x7fffffff) throw WorkError(std::string("cuDNN descriptor: ") + what + " exceeds int range");
    return static_cast<int>(v);
  };
  VX_CUDNN(cudnnCreateTensorDescriptor(&x_desc_));
  VX_CUDNN(cudnnCreateTensorDescriptor(&y_desc_));
  VX_CUDNN(cudnnSetTensor4dDescriptor(x_desc_, from_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, t,
                                      narrow(p.n_img, "n"), narrow(p.c_in, "c"), narrow(p.h, "h"), narrow(p.w, "w")));
  VX_CUDNN(cudnnSetTensor4dDescriptor(y_desc_, from_last ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, t,
                                      narrow(p.n_img, "n"), narrow(p.c_in, "c"), narrow(p.h, "h"), narrow(p.w, "w")));
  math_ = std::string("cudnnTransformTensor ") + (from_last ? "NHWC -> NCHW" : "NCHW -> NHWC") +
          ", alpha = 1, beta = 0 (a re-layout: checked bit for bit)";
  details_["api"] = "cudnnTransformTensor";
  details_["direction"] = from_last ? "NHWC -> NCHW" : "NCHW -> NHWC";
  details_["workload_kernel"] =
      "cuDNN's engines launch cudnn::engines_precompiled::nchwToNhwcKernel for the same re-layout inside "
      "cudnnConvolutionForward; compare the kernel names CUPTI recorded here";
}

void VendorReference::run(const void* a, const void* b, const void* bias, void* out, cudaStream_t stream) {
  const auto& p = problem_;
  const float one = 1.f, zero = 0.f;
  if (transform_) {
    VX_CUDNN(cudnnSetStream(handles_.cudnn(), stream));
    VX_CUDNN(cudnnTransformTensor(handles_.cudnn(), &one, x_desc_, a, &zero, y_desc_, out));
    return;
  }
  if (library_ == "cuDNN") {
    VX_CUDNN(cudnnSetStream(handles_.cudnn(), stream));
    VX_CUDNN(cudnnConvolutionForward(handles_.cudnn(), &one, x_desc_, a, w_desc_, b, conv_desc_, conv_algo_,
                                     conv_workspace_, conv_workspace_bytes_, conv_bias_ ? &one : &zero, y_desc_,
                                     out));
    return;
  }
  if (library_ == "cuBLASLt") {
    VX_CUBLAS(cublasLtMatmulDescSetAttribute(lt_op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    VX_CUBLAS(cublasLtMatmul(handles_.cublas_lt(), lt_op_, &one, b, lt_a_, a, lt_b_, &zero, out, lt_c_, out, lt_c_,
                             &lt_algo_, handles_.workspace(), handles_.workspace_bytes(), stream));
    return;
  }
  cublasHandle_t h = handles_.cublas();
  VX_CUBLAS(cublasSetStream(h, stream));
  const cudaDataType_t t = cuda_type(p.dtype);
  const cublasComputeType_t ct = compute_type(p.precision);
  const cublasGemmAlgo_t algo = p.dtype == VXSYNTH_DTYPE_FP32 ? CUBLAS_GEMM_DEFAULT : CUBLAS_GEMM_DEFAULT_TENSOR_OP;
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  if (p.op_kind == VXSYNTH_OP_LINEAR) {
    // y^T (N x M) = op_T(W as K x N) * x^T (K x M): "tn" in cuBLAS terms.
    VX_CUBLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, t, k, a, t, k, &zero, out, t, n, ct, algo));
    return;
  }
  // C^T (N x M) = op(B)^T * op(A)^T with B as the first cuBLAS operand.
  const cublasOperation_t op_b = p.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = p.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ld_b = p.transpose_b ? k : n;
  const int ld_a = p.transpose_a ? m : k;
  const long long stride_a = uniform_stride(p, p.a_batch_stride, p.m * p.k);
  const long long stride_b = uniform_stride(p, p.b_batch_stride, p.k * p.n);
  const int elem = p.dtype == VXSYNTH_DTYPE_FP32 ? 4 : 2;
  if (p.batch_count == 1) {
    VX_CUBLAS(cublasGemmEx(h, op_b, op_a, n, m, k, &one, b, t, ld_b, a, t, ld_a, &zero, out, t, n, ct, algo));
  } else if (stride_a >= 0 && stride_b >= 0) {
    VX_CUBLAS(cublasGemmStridedBatchedEx(h, op_b, op_a, n, m, k, &one, b, t, ld_b, stride_b, a, t, ld_a, stride_a,
                                         &zero, out, t, n, p.m * p.n, static_cast<int>(p.batch_count), ct, algo));
  } else {
    // Broadcast patterns one stride cannot express: one GEMM per output batch entry.
    for (long long z = 0; z < p.batch_count; ++z) {
      const auto* az = static_cast<const char*>(a) + batch_offset(p, p.a_batch_stride, z) * elem;
      const auto* bz = static_cast<const char*>(b) + batch_offset(p, p.b_batch_stride, z) * elem;
      auto* cz = static_cast<char*>(out) + z * p.m * p.n * elem;
      VX_CUBLAS(cublasGemmEx(h, op_b, op_a, n, m, k, &one, bz, t, ld_b, az, t, ld_a, &zero, cz, t, n, ct, algo));
    }
  }
}

ops::Tensor VendorReference::initial_output(const ops::Tensor* bias) const {
  ops::Tensor out = ops::make_poisoned_output(spec_);
  if (!conv_bias_) return out;
  if (!bias) throw WorkError("op " + spec_.name + " has a bias but no bias tensor was generated");
  const auto& p = problem_;
  const bool channels_last = p.layout == VXSYNTH_LAYOUT_CHANNELS_LAST;
  const long long spatial = p.p * p.q;
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    const long long channel = channels_last ? i % p.k_out : (i / spatial) % p.k_out;
    out.set_bits(i, bias->bits(channel));
  }
  return out;
}

void VendorReference::finish_on_host(ops::Tensor& out) const {
  const ops::Activation act = spec_.activation();
  if (act == ops::Activation::none) return;
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    out.set_from_double(i, ops::apply_activation(act, static_cast<double>(out.get(i))));
  }
}

}  // namespace vxsynth::gpu
