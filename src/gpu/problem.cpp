#include "gpu/problem.h"

#include "common/error.h"

namespace vxsynth::gpu {
namespace {

int32_t dtype_code(ops::DType t) {
  switch (t) {
    case ops::DType::f32: return VXSYNTH_DTYPE_FP32;
    case ops::DType::bf16: return VXSYNTH_DTYPE_BF16;
    case ops::DType::f16: return VXSYNTH_DTYPE_FP16;
  }
  return 0;
}

int32_t precision_code(ops::PrecisionPath p) {
  switch (p) {
    case ops::PrecisionPath::fp32: return VXSYNTH_PRECISION_FP32;
    case ops::PrecisionPath::tf32: return VXSYNTH_PRECISION_TF32;
    case ops::PrecisionPath::bf16: return VXSYNTH_PRECISION_BF16;
    case ops::PrecisionPath::fp16: return VXSYNTH_PRECISION_FP16;
  }
  return 0;
}

int32_t activation_code(ops::Activation a) {
  switch (a) {
    case ops::Activation::none: return VXSYNTH_ACT_NONE;
    case ops::Activation::relu: return VXSYNTH_ACT_RELU;
    case ops::Activation::gelu: return VXSYNTH_ACT_GELU;
    case ops::Activation::gelu_tanh: return VXSYNTH_ACT_GELU_TANH;
    case ops::Activation::silu: return VXSYNTH_ACT_SILU;
  }
  return 0;
}

// Element strides of one operand's batch dimensions against the output's batch dimensions
// (numpy broadcasting: dimensions aligned on the right; size 1 or missing -> stride 0).
void batch_strides(const ops::Shape& operand, const ops::Shape& out, std::int64_t matrix_elems,
                   int64_t* strides) {
  const std::size_t rank = out.size();
  std::int64_t stride = matrix_elems;
  for (std::size_t i = rank; i-- > 0;) {
    const std::ptrdiff_t j = static_cast<std::ptrdiff_t>(i) -
                             static_cast<std::ptrdiff_t>(rank - operand.size());
    if (j < 0) {
      strides[i] = 0;
      continue;
    }
    const std::int64_t dim = operand[static_cast<std::size_t>(j)];
    strides[i] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
}

}  // namespace

vxsynth_problem make_problem(const ops::OpSpec& spec, const std::string& file) {
  vxsynth_problem p{};
  p.abi_version = VXSYNTH_CANDIDATE_ABI_VERSION;
  p.dtype = dtype_code(ops::storage_dtype(spec.precision));
  p.precision = precision_code(spec.precision);
  p.has_bias = spec.has_bias() ? 1 : 0;
  p.activation = activation_code(spec.activation());
  p.batch_count = 1;
  switch (spec.kind) {
    case ops::OpKind::linear:
      p.op_kind = VXSYNTH_OP_LINEAR;
      p.m = spec.linear.m;
      p.n = spec.linear.n;
      p.k = spec.linear.k;
      break;
    case ops::OpKind::matmul: {
      p.op_kind = VXSYNTH_OP_MATMUL;
      const auto& mm = spec.matmul;
      p.m = mm.m;
      p.n = mm.n;
      p.k = mm.k;
      p.transpose_a = mm.transpose_a ? 1 : 0;
      p.transpose_b = mm.transpose_b ? 1 : 0;
      const ops::Shape out = mm.batch_out();
      if (out.size() > VXSYNTH_MAX_BATCH_RANK) {
        throw InputError(file, "matmul.batch", "more than " + std::to_string(VXSYNTH_MAX_BATCH_RANK) +
                                                   " batch dimensions (candidate ABI v1 limit)");
      }
      p.batch_rank = static_cast<int32_t>(out.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        p.batch[i] = out[i];
        p.batch_count *= out[i];
      }
      batch_strides(mm.batch_a, out, mm.m * mm.k, p.a_batch_stride);
      batch_strides(mm.batch_b, out, mm.k * mm.n, p.b_batch_stride);
      break;
    }
    case ops::OpKind::conv1d:
    case ops::OpKind::conv2d: {
      const auto& c = spec.conv;
      const bool two_d = spec.kind == ops::OpKind::conv2d;
      p.op_kind = two_d ? VXSYNTH_OP_CONV2D : VXSYNTH_OP_CONV1D;
      p.layout = c.layout == ops::ConvLayout::channels_last ? VXSYNTH_LAYOUT_CHANNELS_LAST
                                                            : VXSYNTH_LAYOUT_CHANNELS_FIRST;
      const auto out = c.output_size();
      const std::size_t last = two_d ? 1 : 0;
      p.n_img = c.batch;
      p.c_in = c.in_channels;
      p.k_out = c.out_channels;
      p.groups = c.groups;
      p.h = two_d ? c.input_size[0] : 1;
      p.w = c.input_size[last];
      p.r = two_d ? c.kernel[0] : 1;
      p.s = c.kernel[last];
      p.p = two_d ? out[0] : 1;
      p.q = out[last];
      p.stride_h = two_d ? c.stride[0] : 1;
      p.stride_w = c.stride[last];
      p.pad_h = two_d ? c.padding[0] : 0;
      p.pad_w = c.padding[last];
      p.dilation_h = two_d ? c.dilation[0] : 1;
      p.dilation_w = c.dilation[last];
      break;
    }
    case ops::OpKind::layout_transform: {
      const auto& t = spec.transform;
      p.op_kind = VXSYNTH_OP_LAYOUT_TRANSFORM;
      p.layout = t.from == ops::ConvLayout::channels_last ? VXSYNTH_LAYOUT_CHANNELS_LAST : VXSYNTH_LAYOUT_CHANNELS_FIRST;
      p.n_img = t.batch;
      p.c_in = t.channels;
      p.h = t.spatial.size() == 2 ? t.spatial[0] : 1;
      p.w = t.spatial.back();
      break;
    }
  }
  return p;
}

Json problem_to_json(const vxsynth_problem& p) {
  Json j;
  j["abi_version"] = p.abi_version;
  j["op_kind"] = p.op_kind;
  j["dtype"] = p.dtype;
  j["precision"] = p.precision;
  j["has_bias"] = p.has_bias;
  j["activation"] = p.activation;
  if (p.op_kind == VXSYNTH_OP_LINEAR || p.op_kind == VXSYNTH_OP_MATMUL) {
    j["m"] = p.m;
    j["n"] = p.n;
    j["k"] = p.k;
    if (p.op_kind == VXSYNTH_OP_MATMUL) {
      j["transpose_a"] = p.transpose_a;
      j["transpose_b"] = p.transpose_b;
      Json batch = Json::array(), sa = Json::array(), sb = Json::array();
      for (int i = 0; i < p.batch_rank; ++i) {
        batch.push_back(p.batch[i]);
        sa.push_back(p.a_batch_stride[i]);
        sb.push_back(p.b_batch_stride[i]);
      }
      j["batch"] = batch;
      j["a_batch_stride"] = sa;
      j["b_batch_stride"] = sb;
      j["batch_count"] = p.batch_count;
    }
  } else if (p.op_kind == VXSYNTH_OP_LAYOUT_TRANSFORM) {
    j["layout"] = p.layout;
    j["n_img"] = p.n_img;
    j["c_in"] = p.c_in;
    j["h"] = p.h;
    j["w"] = p.w;
  } else {
    j["layout"] = p.layout;
    for (auto [key, value] : {std::pair{"n_img", p.n_img}, {"c_in", p.c_in}, {"h", p.h}, {"w", p.w},
                              {"k_out", p.k_out}, {"r", p.r}, {"s", p.s}, {"p", p.p}, {"q", p.q},
                              {"stride_h", p.stride_h}, {"stride_w", p.stride_w}, {"pad_h", p.pad_h},
                              {"pad_w", p.pad_w}, {"dilation_h", p.dilation_h},
                              {"dilation_w", p.dilation_w}, {"groups", p.groups}}) {
      j[key] = value;
    }
  }
  return j;
}

}  // namespace vxsynth::gpu
