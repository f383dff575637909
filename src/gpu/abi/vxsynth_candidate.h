/* vxsynth CUDA candidate ABI, version 1 (docs/gpu.md, "Candidate ABI").
 *
 * A candidate is one CUDA C++ source file that the harness compiles into a shared object
 * (nvcc -arch=sm_90 -shared -cudart shared) and calls through exactly one C function:
 *
 *   extern "C" int vxsynth_candidate_launch(const vxsynth_problem* problem,
 *                                           const vxsynth_buffers* buffers,
 *                                           cudaStream_t stream);
 *
 * It must enqueue all its work on `stream` and return without synchronizing; it returns
 * VXSYNTH_LAUNCH_OK, VXSYNTH_LAUNCH_UNSUPPORTED when it cannot handle the problem, or any
 * other non-zero value for an error (the harness then stops with that code). Optionally:
 *
 *   extern "C" size_t vxsynth_candidate_workspace_bytes(const vxsynth_problem* problem);
 *
 * for scratch device memory (e.g. split-K partial sums); the harness allocates it, poisons it
 * and passes it in buffers->workspace.
 *
 * Tensors are dense and row-major in their physical layout (PyTorch's contiguous tensors), on
 * the device, with the element type `problem->dtype` (fp32; bf16 as __nv_bfloat16; fp16 as
 * __half). The struct below says how each op indexes them. For a convolution, with
 * cg = c_in / groups and g = ko / (k_out / groups):
 *   out[i][ko][y][x] = sum_{c < cg, r, s} in[i][g*cg + c][y*stride_h - pad_h + r*dilation_h]
 *                                        [x*stride_w - pad_w + s*dilation_w] * weight[ko][c][r][s]
 * (out-of-range input positions read as zero; channels last stores in[i][y][x][c] and
 * weight[ko][r][s][c]). Accumulate in fp32 (or better) whatever the storage type, add the bias,
 * apply the activation, and round once when storing the output.
 *
 * Sandbox: the shared object may link only the CUDA runtime and the C/C++ runtime libraries,
 * may not call cuBLAS, cuDNN, dlopen, or any file or process function; the harness inspects its
 * needed libraries and undefined symbols and rejects it before loading it.
 */
#ifndef VXSYNTH_CANDIDATE_H
#define VXSYNTH_CANDIDATE_H

#include <stddef.h>
#include <stdint.h>

/* The stream is CUDA's cudaStream_t (struct CUstream_st*), spelled out so that this header
 * needs no CUDA include and host code without the toolkit can use it. */
typedef struct CUstream_st* vxsynth_stream;

#define VXSYNTH_CANDIDATE_ABI_VERSION 1

#define VXSYNTH_LAUNCH_OK 0
#define VXSYNTH_LAUNCH_UNSUPPORTED 1

enum vxsynth_op_kind {
  VXSYNTH_OP_LINEAR = 1,
  VXSYNTH_OP_MATMUL = 2,
  VXSYNTH_OP_CONV1D = 3,
  VXSYNTH_OP_CONV2D = 4,
  VXSYNTH_OP_LAYOUT_TRANSFORM = 5
};

/* Storage type of every tensor (inputs, bias, output). */
enum vxsynth_dtype { VXSYNTH_DTYPE_FP32 = 1, VXSYNTH_DTYPE_BF16 = 2, VXSYNTH_DTYPE_FP16 = 3 };

/* The op's precision path (ops/precision.h): fp32 = IEEE fp32 products and sums; tf32 = fp32
 * tensors whose products may use TF32 tensor cores; bf16 / fp16 = that storage, fp32 sums. */
enum vxsynth_precision {
  VXSYNTH_PRECISION_FP32 = 1,
  VXSYNTH_PRECISION_TF32 = 2,
  VXSYNTH_PRECISION_BF16 = 3,
  VXSYNTH_PRECISION_FP16 = 4
};

/* Applied to (sum + bias) before the single output rounding. */
enum vxsynth_activation {
  VXSYNTH_ACT_NONE = 0,
  VXSYNTH_ACT_RELU = 1,
  VXSYNTH_ACT_GELU = 2,      /* exact: 0.5 x (1 + erf(x / sqrt 2)) */
  VXSYNTH_ACT_GELU_TANH = 3, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  VXSYNTH_ACT_SILU = 4       /* x / (1 + exp(-x)) */
};

/* Convolution memory layout: channels first (NCL / NCHW, weight [k_out][c_in/g][r][s]) or
 * channels last (NLC / NHWC, weight [k_out][r][s][c_in/g]). */
enum vxsynth_layout { VXSYNTH_LAYOUT_CHANNELS_FIRST = 0, VXSYNTH_LAYOUT_CHANNELS_LAST = 1 };

#define VXSYNTH_MAX_BATCH_RANK 4

typedef struct vxsynth_problem {
  int32_t abi_version; /* VXSYNTH_CANDIDATE_ABI_VERSION */
  int32_t op_kind;     /* enum vxsynth_op_kind */
  int32_t dtype;       /* enum vxsynth_dtype */
  int32_t precision;   /* enum vxsynth_precision */
  int32_t has_bias;    /* 1: buffers->bias holds n (linear) or k_out (conv) values */
  int32_t activation;  /* enum vxsynth_activation */
  int32_t layout;      /* enum vxsynth_layout (convolutions) */
  int32_t reserved0;

  /* linear and matmul: out[z][m][n] = sum_k A(z, m, k) * B(z, k, n)
   *   linear: no batch (batch_rank 0), A = a[m][k], B(k, n) = b[n][k] (weight [n][k]).
   *   matmul: A(z, m, k) = a[off_a(z) + m*k_dim + k], or a[off_a(z) + k*m_dim + m] when
   *           transpose_a; B(z, k, n) = b[off_b(z) + k*n_dim + n], or b[off_b(z) + n*k_dim + k]
   *           when transpose_b. The output batch index z runs row-major over batch[0..rank);
   *           off_a(z) = sum_i index_i(z) * a_batch_stride[i] (0 for a broadcast dimension),
   *           likewise off_b; out[z] starts at z * m * n. */
  int64_t m, n, k;
  int32_t transpose_a, transpose_b;
  int32_t batch_rank; /* 0..VXSYNTH_MAX_BATCH_RANK */
  int32_t reserved1;
  int64_t batch[VXSYNTH_MAX_BATCH_RANK];
  int64_t a_batch_stride[VXSYNTH_MAX_BATCH_RANK];
  int64_t b_batch_stride[VXSYNTH_MAX_BATCH_RANK];
  int64_t batch_count; /* product of batch[] (1 for linear) */

  /* conv1d and conv2d (conv1d: h = r = p = 1, stride_h = dilation_h = 1, pad_h = 0).
   * layout_transform: a re-layout of one tensor of logical shape [n_img][c_in][h][w] (one
   * spatial dimension: h = 1) between channels first and channels last; `layout` is the INPUT's
   * layout (buffers->a) and the output (buffers->out) has the other one:
   *   CHANNELS_FIRST: out[i][y][x][c] = a[i][c][y][x]    CHANNELS_LAST: out[i][c][y][x] = a[i][y][x][c]
   * Every output element is one input element: the result is checked bit for bit. */
  int64_t n_img, c_in, h, w, k_out, r, s, p, q;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups;
} vxsynth_problem;

typedef struct vxsynth_buffers {
  const void* a;          /* linear: input x; matmul: A; conv: input; layout_transform: x */
  const void* b;          /* linear: weight; matmul: B; conv: weight */
  const void* bias;       /* NULL when has_bias == 0 */
  void* out;              /* poisoned (NaN with a marker payload) before every launch */
  void* workspace;        /* NULL when no workspace was asked for */
  size_t workspace_bytes;
} vxsynth_buffers;

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*vxsynth_candidate_launch_fn)(const vxsynth_problem* problem,
                                           const vxsynth_buffers* buffers, vxsynth_stream stream);
typedef size_t (*vxsynth_candidate_workspace_fn)(const vxsynth_problem* problem);

#ifdef __cplusplus
}
#endif

#endif /* VXSYNTH_CANDIDATE_H */
