// Operator specs: what one hot kernel computes, independent of how (JSON "vxsynth.op/1",
// documented in docs/ops.md).
//
//   linear : y[M,N] = act(x[M,K] . W[N,K]^T + bias[N])                 (torch.nn.functional.linear)
//   matmul : C[*batch,M,N] = op(A)[*batch_a,M,K] . op(B)[*batch_b,K,N]  (torch.matmul; batch dims
//            broadcast numpy-style; transpose_a stores A as [..,K,M], transpose_b stores B as [..,N,K])
//   conv1d / conv2d : y = act(conv(x, W) + bias) with batch, channels, spatial sizes, kernel, stride,
//            padding (zero, symmetric), dilation and groups; layout NCL/NCHW (channels first) or
//            NLC/NHWC (channels last, weight stored [Cout, k..., Cin/groups]).
//   layout_transform : y = x re-laid out between channels first and channels last
//            (NCL <-> NLC, NCHW <-> NHWC) of an activation or a weight: a permute, no arithmetic,
//            so its outputs are compared bit for bit (cuDNN's nchwToNhwcKernel and its inverse).
//
// Every tensor is dense row-major in the order of its *physical* layout: a channels-last input is
// stored with shape [N, H, W, C].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json_fwd.h"
#include "ops/precision.h"
#include "ops/tensor.h"

namespace vxsynth::ops {

inline constexpr const char* kOpSchemaKind = "op";
inline constexpr int kOpSchemaVersion = 1;

enum class OpKind { linear, matmul, conv1d, conv2d, layout_transform };
std::string to_string(OpKind k);
bool parse_op_kind(const std::string& s, OpKind& out);

// Fused epilogue activation, applied in fp64 to (accumulator + bias) before the output rounding.
// gelu = exact erf form, gelu_tanh = tanh approximation (torch approximate="tanh").
enum class Activation { none, relu, gelu, gelu_tanh, silu };
std::string to_string(Activation a);
bool parse_activation(const std::string& s, Activation& out);
double apply_activation(Activation a, double v);

enum class ConvLayout { channels_first, channels_last };
// "NCL"/"NLC" for conv1d, "NCHW"/"NHWC" for conv2d.
std::string layout_name(ConvLayout l, int spatial_dims);

struct LinearParams {
  std::int64_t m = 1, n = 1, k = 1;
  bool bias = false;
  Activation activation = Activation::none;
};

struct MatmulParams {
  Shape batch_a, batch_b;  // leading dims of A and B; may differ in rank, broadcast numpy-style
  std::int64_t m = 1, n = 1, k = 1;
  bool transpose_a = false;  // A stored [*batch_a, K, M]
  bool transpose_b = false;  // B stored [*batch_b, N, K]
  Shape batch_out() const;   // broadcast of batch_a and batch_b
};

struct ConvParams {
  std::int64_t batch = 1, in_channels = 1, out_channels = 1, groups = 1;
  // One entry per spatial dimension (1 for conv1d: length; 2 for conv2d: height, width).
  std::vector<std::int64_t> input_size, kernel, stride, padding, dilation;
  bool bias = false;
  Activation activation = Activation::none;
  ConvLayout layout = ConvLayout::channels_first;
  std::vector<std::int64_t> output_size() const;  // floor((in + 2p - d(k-1) - 1)/s) + 1
};

// A re-layout of one tensor between channels first and channels last. The tensor's logical
// shape is [batch, channels, spatial...]; for a conv weight [Cout, Cin/groups, kernel...] that is
// batch = Cout, channels = Cin/groups, spatial = kernel. Either way it is a batch of
// [channels x positions] <-> [positions x channels] transposes (positions = prod(spatial)).
struct TransformParams {
  std::int64_t batch = 1, channels = 1;
  std::vector<std::int64_t> spatial;  // 1 entry (NCL/NLC) or 2 (NCHW/NHWC)
  ConvLayout from = ConvLayout::channels_first, to = ConvLayout::channels_last;
  std::string tensor = "activation";  // which tensor of the served op: "activation" or "weight"
  std::int64_t positions() const;     // product of spatial
};

// One tensor of an op: its role name ("x", "weight", "bias", "a", "b", "input", "y"), dtype and
// physical shape.
struct TensorDesc {
  std::string name;
  DType dtype = DType::f32;
  Shape shape;
};

// The op seen as (a batch of) GEMMs: out[b][m][n] = sum_k A[b][m][k] * B[b][n][k].
// For a conv, m runs over (image, output position), n over output channels of a group,
// k over (input channel of the group, kernel position), and batch = groups.
struct GemmView {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
};

struct OpSpec {
  std::string name;  // free text, e.g. "pi0.gemma2b.gate_proj"
  OpKind kind = OpKind::linear;
  PrecisionPath precision = PrecisionPath::fp32;         // the CUDA / vendor side
  PrecisionPath vortex_precision = PrecisionPath::fp32;  // the Vortex side (tf32 -> fp16)
  LinearParams linear;
  MatmulParams matmul;
  ConvParams conv;  // conv1d and conv2d
  TransformParams transform;  // layout_transform

  int spatial_dims() const;  // 1 for conv1d, 2 for conv2d, 0 otherwise (a transform: see transform)
  bool is_transform() const { return kind == OpKind::layout_transform; }
  // Accumulation length K of one output element (Cin/groups * prod(kernel) for a conv; 1 for a
  // transform, whose output element is one input element).
  std::int64_t reduction_length() const;
  // A transform's view is batch x channels x positions with K = 1 (no reduction).
  GemmView gemm_view() const;
  double flops() const;  // 2*M*N*K*batch; 0 for a transform
  bool has_bias() const;
  Activation activation() const;

  std::vector<TensorDesc> inputs() const;  // in argument order
  TensorDesc output() const;               // named "y"

  // InputError(file, field, what) for a spec that cannot be computed (non-positive sizes,
  // groups not dividing channels, empty output, unsupported vortex path, ...).
  void validate(const std::string& file = "<op spec>") const;
};

// JSON <-> spec. from_json checks the schema, every field and validate(); unknown fields are
// rejected so a typo does not silently fall back to a default.
OpSpec op_spec_from_json(const Json& j, const std::string& file = "<op spec>");
Json op_spec_to_json(const OpSpec& spec);
OpSpec read_op_spec(const std::string& path);
void write_op_spec(const std::string& path, const OpSpec& spec);

// Convenience constructors (validated). Vortex path defaults to vortex_path_for(precision).
OpSpec make_linear(std::string name, PrecisionPath p, std::int64_t m, std::int64_t n,
                   std::int64_t k, bool bias = false, Activation act = Activation::none);
OpSpec make_matmul(std::string name, PrecisionPath p, Shape batch_a, Shape batch_b,
                   std::int64_t m, std::int64_t n, std::int64_t k, bool transpose_a = false,
                   bool transpose_b = false);
// conv1d when input_size has one entry, conv2d with two; kernel/stride/padding/dilation must have
// the same count.
OpSpec make_conv(std::string name, PrecisionPath p, std::int64_t batch, std::int64_t in_channels,
                 std::int64_t out_channels, std::vector<std::int64_t> input_size,
                 std::vector<std::int64_t> kernel, std::vector<std::int64_t> stride,
                 std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
                 std::int64_t groups = 1, bool bias = false,
                 ConvLayout layout = ConvLayout::channels_first,
                 Activation act = Activation::none);

// Physical shape of a transform's tensor in `layout` ([batch, channels, spatial...] or
// [batch, spatial..., channels]).
Shape transform_shape(const TransformParams& p, ConvLayout layout);

// A layout transform (validated): x [batch, channels, spatial...] in `from` -> `to`.
OpSpec make_transform(std::string name, PrecisionPath p, std::int64_t batch, std::int64_t channels,
                      std::vector<std::int64_t> spatial, ConvLayout from, ConvLayout to,
                      std::string tensor = "activation");

// The path Vortex computes a CUDA path with: tf32 -> fp16, every other path unchanged.
PrecisionPath vortex_path_for(PrecisionPath cuda_path);

}  // namespace vxsynth::ops
