#include "ops/reference.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <thread>

#include "common/error.h"
#include "ops/gemm_kernel.h"
#include "ops/parallel.h"

namespace vxsynth::ops {

namespace {

PrecisionPath compute_path(const OpSpec& spec, Side side) {
  return side == Side::cuda ? spec.precision : spec.vortex_precision;
}

// Stored values as the multiply unit sees them (exact in fp32 for every path).
std::vector<float> rounded_values(const Tensor& t, PrecisionPath path) {
  std::vector<float> v = t.to_floats();
  if (path == PrecisionPath::tf32 || path == PrecisionPath::fp16 ||
      (path == PrecisionPath::bf16 && t.dtype() != DType::bf16)) {
    for (float& x : v) x = round_compute_input(x, path);
  }
  return v;
}

// Output coordinate helpers for a conv: gemm row m = (image, output position) in row-major order.
struct ConvGeometry {
  int nd = 2;
  std::int64_t in[2] = {1, 1}, out[2] = {1, 1}, ker[2] = {1, 1}, str[2] = {1, 1}, pad[2] = {0, 0},
               dil[2] = {1, 1};
  std::int64_t cin = 1, cout = 1, cin_g = 1, cout_g = 1, positions = 1, kpos = 1;
  bool channels_last = false;

  explicit ConvGeometry(const OpSpec& s) {
    nd = s.spatial_dims();
    const auto o = s.conv.output_size();
    for (int d = 0; d < nd; ++d) {
      // conv1d is stored as a conv2d of height 1 (index 0 unused).
      const int at = nd == 1 ? 1 : d;
      in[at] = s.conv.input_size[static_cast<std::size_t>(d)];
      out[at] = o[static_cast<std::size_t>(d)];
      ker[at] = s.conv.kernel[static_cast<std::size_t>(d)];
      str[at] = s.conv.stride[static_cast<std::size_t>(d)];
      pad[at] = s.conv.padding[static_cast<std::size_t>(d)];
      dil[at] = s.conv.dilation[static_cast<std::size_t>(d)];
    }
    cin = s.conv.in_channels;
    cout = s.conv.out_channels;
    cin_g = cin / s.conv.groups;
    cout_g = cout / s.conv.groups;
    positions = out[0] * out[1];
    kpos = ker[0] * ker[1];
    channels_last = s.conv.layout == ConvLayout::channels_last;
  }

  std::int64_t input_index(std::int64_t img, std::int64_t c, std::int64_t h, std::int64_t w) const {
    return channels_last ? ((img * in[0] + h) * in[1] + w) * cin + c : ((img * cin + c) * in[0] + h) * in[1] + w;
  }
  std::int64_t output_index(std::int64_t img, std::int64_t co, std::int64_t pos) const {
    return channels_last ? (img * positions + pos) * cout + co : (img * cout + co) * positions + pos;
  }
  // Row of the gemm view (K values, in the weight's order) for image img, position pos, group g.
  void gather(const std::vector<float>& x, std::int64_t img, std::int64_t pos, std::int64_t g, float* row) const {
    const std::int64_t oh = pos / out[1], ow = pos % out[1];
    for (std::int64_t kh = 0; kh < ker[0]; ++kh) {
      const std::int64_t ih = oh * str[0] - pad[0] + kh * dil[0];
      for (std::int64_t kw = 0; kw < ker[1]; ++kw) {
        const std::int64_t iw = ow * str[1] - pad[1] + kw * dil[1];
        const bool inside = ih >= 0 && ih < in[0] && iw >= 0 && iw < in[1];
        const std::int64_t kp = kh * ker[1] + kw;
        for (std::int64_t ci = 0; ci < cin_g; ++ci) {
          const float v = inside ? x[static_cast<std::size_t>(input_index(img, g * cin_g + ci, ih, iw))] : 0.0f;
          // channels first: k = ci * kpos + kp; channels last: k = kp * cin_g + ci.
          row[channels_last ? kp * cin_g + ci : ci * kpos + kp] = v;
        }
      }
    }
  }
};

// Matmul operand offsets of broadcast batch b.
struct MatmulBatch {
  Shape out, a, b;
  explicit MatmulBatch(const MatmulParams& p) : out(p.batch_out()) {
    const std::size_t r = out.size();
    a.assign(r, 1);
    b.assign(r, 1);
    for (std::size_t i = 0; i < p.batch_a.size(); ++i) a[r - p.batch_a.size() + i] = p.batch_a[i];
    for (std::size_t i = 0; i < p.batch_b.size(); ++i) b[r - p.batch_b.size() + i] = p.batch_b[i];
  }
  // Linear batch index into A (or B) for output batch index `flat`.
  std::int64_t source(std::int64_t flat, const Shape& src) const {
    std::int64_t idx = 0, stride = 1;
    for (std::size_t i = out.size(); i-- > 0;) {
      const std::int64_t coord = flat % out[i];
      flat /= out[i];
      if (src[i] != 1) idx += coord * stride;
      stride *= src[i];
    }
    return idx;
  }
};

// Splits the output columns too when there are too few row chunks to keep every thread busy
// (Diffusion Policy's conv1d at T = 4 has one chunk of 4 rows and 1024-2048 columns).
std::int64_t column_blocks(std::int64_t row_tasks, std::int64_t n, int threads) {
  const std::int64_t want = 4 * static_cast<std::int64_t>(threads);
  if (row_tasks >= want) return 1;
  const std::int64_t by_threads = (want + row_tasks - 1) / row_tasks;
  return std::max<std::int64_t>(1, std::min(by_threads, (n + 63) / 64));
}

double finish(const OpSpec& spec, double acc, double bias) {
  return apply_activation(spec.activation(), acc + bias);
}

}  // namespace

void check_inputs(const OpSpec& spec, const std::vector<Tensor>& inputs) {
  const auto descs = spec.inputs();
  if (inputs.size() != descs.size()) {
    throw InputError("", "inputs", "a " + to_string(spec.kind) + " op with these options takes " +
                                       std::to_string(descs.size()) + " inputs, got " + std::to_string(inputs.size()));
  }
  for (std::size_t i = 0; i < descs.size(); ++i) {
    const std::string field = descs[i].name;
    const std::string file = inputs[i].name().empty() ? "input " + std::to_string(i) : inputs[i].name();
    if (inputs[i].dtype() != descs[i].dtype) {
      throw InputError(file, field, "dtype " + to_string(inputs[i].dtype()) + ", expected " + to_string(descs[i].dtype));
    }
    if (inputs[i].shape() != descs[i].shape) {
      throw InputError(file, field, "shape " + shape_to_string(inputs[i].shape()) + ", expected " +
                                        shape_to_string(descs[i].shape));
    }
  }
}

Shape unravel_index(const Shape& shape, std::int64_t flat) {
  Shape idx(shape.size(), 0);
  for (std::size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

std::int64_t transform_source_index(const TransformParams& p, std::int64_t flat_output) {
  // Output element (img, pos, c) of a channels-last output, or (img, c, pos) of a channels-first
  // one, comes from the same (img, c, pos) of the input in the other layout.
  const std::int64_t P = p.positions(), C = p.channels;
  const std::int64_t img = flat_output / (P * C), rest = flat_output % (P * C);
  std::int64_t c, pos;
  if (p.to == ConvLayout::channels_last) {
    pos = rest / C;
    c = rest % C;
  } else {
    c = rest / P;
    pos = rest % P;
  }
  return p.from == ConvLayout::channels_first ? (img * C + c) * P + pos : (img * P + pos) * C + c;
}

Tensor compute_reference(const OpSpec& spec, const std::vector<Tensor>& inputs, const ReferenceOptions& options) {
  spec.validate();
  check_inputs(spec, inputs);
  if (spec.kind == OpKind::layout_transform) {
    // A permute: every output element is one input element's bits, on both sides.
    const TensorDesc od = spec.output();
    Tensor y(od.dtype, od.shape, od.name);
    const Tensor& x = inputs[0];
    const std::size_t size = dtype_size(od.dtype);
    const TransformParams& p = spec.transform;
    const std::int64_t P = p.positions(), C = p.channels;
    // Walk the output in order; the source index moves by C (or P) inside a row.
    for (std::int64_t img = 0; img < p.batch; ++img) {
      const std::int64_t base = img * P * C;
      const std::int64_t rows = p.to == ConvLayout::channels_last ? P : C;
      const std::int64_t cols = p.to == ConvLayout::channels_last ? C : P;
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) {
          const std::int64_t dst = base + r * cols + c, src = base + c * rows + r;
          std::memcpy(y.data() + dst * size, x.data() + src * size, size);
        }
      }
    }
    return y;
  }
  const PrecisionPath path = compute_path(spec, options.side);
  const TensorDesc od = spec.output();
  Tensor y(od.dtype, od.shape, od.name);
  const int threads = thread_count(options.threads);
  std::vector<float> bias;
  if (spec.has_bias()) bias = inputs.back().to_floats();  // bias is added in fp64, not rounded again
  auto bias_at = [&](std::int64_t n) { return bias.empty() ? 0.0 : static_cast<double>(bias[static_cast<std::size_t>(n)]); };

  switch (spec.kind) {
    case OpKind::linear: {
      const auto x = rounded_values(inputs[0], path);
      const auto w = rounded_values(inputs[1], path);
      const std::int64_t M = spec.linear.m, N = spec.linear.n, K = spec.linear.k;
      const std::int64_t chunks = (M + kGemmRowChunk - 1) / kGemmRowChunk;
      const std::int64_t col_blocks = column_blocks(chunks, N, threads);
      const std::int64_t cols = (N + col_blocks - 1) / col_blocks;
      parallel_for(chunks * col_blocks, threads, [&](std::int64_t task) {
        const std::int64_t c = task / col_blocks, n0 = (task % col_blocks) * cols, n1 = std::min(N, n0 + cols);
        const std::int64_t m0 = c * kGemmRowChunk, m1 = std::min(M, m0 + kGemmRowChunk);
        if (n0 >= n1) return;
        std::vector<double> acc(static_cast<std::size_t>((m1 - m0) * (n1 - n0)));
        gemm_nt_f64(x.data() + m0 * K, K, w.data() + n0 * K, K, m1 - m0, n1 - n0, K, acc.data(), n1 - n0);
        for (std::int64_t i = m0; i < m1; ++i) {
          for (std::int64_t n = n0; n < n1; ++n) {
            const double v = acc[static_cast<std::size_t>((i - m0) * (n1 - n0) + (n - n0))];
            y.set_from_double(i * N + n, finish(spec, v, bias_at(n)));
          }
        }
      });
      break;
    }
    case OpKind::matmul: {
      const MatmulParams& p = spec.matmul;
      const MatmulBatch mb(p);
      const std::int64_t M = p.m, N = p.n, K = p.k, batches = shape_numel(mb.out);
      // Operands packed once as A[..][M][K] and B[..][N][K] (k contiguous for the kernel).
      auto pack = [&](const Tensor& t, bool k_is_last, std::int64_t rows) {
        std::vector<float> v = rounded_values(t, path);
        if (k_is_last) return v;
        std::vector<float> packed(v.size());
        const std::int64_t count = static_cast<std::int64_t>(v.size()) / (rows * K);
        for (std::int64_t bi = 0; bi < count; ++bi)
          for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t r = 0; r < rows; ++r)
              packed[static_cast<std::size_t>((bi * rows + r) * K + k)] = v[static_cast<std::size_t>((bi * K + k) * rows + r)];
        return packed;
      };
      const std::vector<float> a = pack(inputs[0], !p.transpose_a, M);
      const std::vector<float> b = pack(inputs[1], p.transpose_b, N);
      const std::int64_t chunks = (M + kGemmRowChunk - 1) / kGemmRowChunk;
      const std::int64_t col_blocks = column_blocks(batches * chunks, N, threads);
      const std::int64_t cols = (N + col_blocks - 1) / col_blocks;
      parallel_for(batches * chunks * col_blocks, threads, [&](std::int64_t task) {
        const std::int64_t nb = task % col_blocks, c = (task / col_blocks) % chunks, bi = task / col_blocks / chunks;
        const std::int64_t n0 = nb * cols, n1 = std::min(N, n0 + cols);
        const std::int64_t m0 = c * kGemmRowChunk, m1 = std::min(M, m0 + kGemmRowChunk);
        if (n0 >= n1) return;
        const float* ap = a.data() + (mb.source(bi, mb.a) * M + m0) * K;
        const float* bp = b.data() + (mb.source(bi, mb.b) * N + n0) * K;
        const std::int64_t nn = n1 - n0;
        std::vector<double> acc(static_cast<std::size_t>((m1 - m0) * nn));
        gemm_nt_f64(ap, K, bp, K, m1 - m0, nn, K, acc.data(), nn);
        for (std::int64_t m = m0; m < m1; ++m)
          for (std::int64_t n = n0; n < n1; ++n)
            y.set_from_double((bi * M + m) * N + n, acc[static_cast<std::size_t>((m - m0) * nn + (n - n0))]);
      });
      break;
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      const auto x = rounded_values(inputs[0], path);
      const auto w = rounded_values(inputs[1], path);
      const ConvGeometry geo(spec);
      const std::int64_t K = geo.cin_g * geo.kpos;
      const std::int64_t M = spec.conv.batch * geo.positions;
      const std::int64_t groups = spec.conv.groups;
      const std::int64_t chunks = (M + kGemmRowChunk - 1) / kGemmRowChunk;
      const std::int64_t col_blocks = column_blocks(chunks * groups, geo.cout_g, threads);
      const std::int64_t cols = (geo.cout_g + col_blocks - 1) / col_blocks;
      parallel_for(chunks * groups * col_blocks, threads, [&](std::int64_t task) {
        const std::int64_t nb = task % col_blocks, g = (task / col_blocks) % groups, c = task / col_blocks / groups;
        const std::int64_t n0 = nb * cols, n1 = std::min(geo.cout_g, n0 + cols);
        const std::int64_t m0 = c * kGemmRowChunk, m1 = std::min(M, m0 + kGemmRowChunk);
        if (n0 >= n1) return;
        std::vector<float> rows(static_cast<std::size_t>((m1 - m0) * K));
        for (std::int64_t m = m0; m < m1; ++m) {
          geo.gather(x, m / geo.positions, m % geo.positions, g, rows.data() + (m - m0) * K);
        }
        const std::int64_t nn = n1 - n0;
        std::vector<double> acc(static_cast<std::size_t>((m1 - m0) * nn));
        gemm_nt_f64(rows.data(), K, w.data() + (g * geo.cout_g + n0) * K, K, m1 - m0, nn, K, acc.data(), nn);
        for (std::int64_t m = m0; m < m1; ++m) {
          for (std::int64_t n = n0; n < n1; ++n) {
            const std::int64_t co = g * geo.cout_g + n;
            const double v = finish(spec, acc[static_cast<std::size_t>((m - m0) * nn + (n - n0))], bias_at(co));
            y.set_from_double(geo.output_index(m / geo.positions, co, m % geo.positions), v);
          }
        }
      });
      break;
    }
    case OpKind::layout_transform: break;  // returned above
  }
  return y;
}

ElementTerms reference_terms(const OpSpec& spec, const std::vector<Tensor>& inputs, std::int64_t flat,
                             Side side) {
  check_inputs(spec, inputs);
  const PrecisionPath path = compute_path(spec, side);
  const Shape out_shape = spec.output().shape;
  if (flat < 0 || flat >= shape_numel(out_shape)) {
    throw InputError("", "index", "output index " + std::to_string(flat) + " out of range for " +
                                      shape_to_string(out_shape));
  }
  const Shape idx = unravel_index(out_shape, flat);
  ElementTerms t;
  auto in = [&](std::size_t which, std::int64_t i) {
    return round_compute_input(inputs[which].get(i), path);
  };
  switch (spec.kind) {
    case OpKind::layout_transform:
      // One term: the moved element (its value; the bits are what the exact check compares).
      t.a.push_back(inputs[0].get(transform_source_index(spec.transform, flat)));
      t.b.push_back(1.0f);
      break;
    case OpKind::linear: {
      const auto& p = spec.linear;
      for (std::int64_t k = 0; k < p.k; ++k) {
        t.a.push_back(in(0, idx[0] * p.k + k));
        t.b.push_back(in(1, idx[1] * p.k + k));
      }
      if (p.bias) t.bias = inputs[2].get(idx[1]);
      break;
    }
    case OpKind::matmul: {
      const auto& p = spec.matmul;
      const MatmulBatch mb(p);
      std::int64_t bflat = 0;
      for (std::size_t i = 0; i + 2 < idx.size(); ++i) bflat = bflat * mb.out[i] + idx[i];
      const std::int64_t a0 = mb.source(bflat, mb.a) * p.m * p.k, b0 = mb.source(bflat, mb.b) * p.n * p.k;
      const std::int64_t m = idx[idx.size() - 2], n = idx[idx.size() - 1];
      for (std::int64_t k = 0; k < p.k; ++k) {
        t.a.push_back(in(0, a0 + (p.transpose_a ? k * p.m + m : m * p.k + k)));
        t.b.push_back(in(1, b0 + (p.transpose_b ? n * p.k + k : k * p.n + n)));
      }
      break;
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      // Written from the definition (not from ConvGeometry) so it checks the blocked path.
      const auto& c = spec.conv;
      const int nd = spec.spatial_dims();
      const bool last = c.layout == ConvLayout::channels_last;
      const auto o = c.output_size();
      const std::int64_t img = idx[0];
      const std::int64_t co = last ? idx.back() : idx[1];
      std::int64_t oh = 0, ow;
      if (nd == 2) { oh = last ? idx[1] : idx[2]; ow = last ? idx[2] : idx[3]; }
      else { ow = last ? idx[1] : idx[2]; }
      const std::int64_t H = nd == 2 ? c.input_size[0] : 1, W = c.input_size.back();
      const std::int64_t KH = nd == 2 ? c.kernel[0] : 1, KW = c.kernel.back();
      const std::int64_t SH = nd == 2 ? c.stride[0] : 1, SW = c.stride.back();
      const std::int64_t PH = nd == 2 ? c.padding[0] : 0, PW = c.padding.back();
      const std::int64_t DH = nd == 2 ? c.dilation[0] : 1, DW = c.dilation.back();
      const std::int64_t cin_g = c.in_channels / c.groups, cout_g = c.out_channels / c.groups;
      const std::int64_t g = co / cout_g;
      auto x_at = [&](std::int64_t ci, std::int64_t h, std::int64_t w) -> float {
        if (h < 0 || h >= H || w < 0 || w >= W) return 0.0f;
        const std::int64_t i = last ? ((img * H + h) * W + w) * c.in_channels + ci
                                    : ((img * c.in_channels + ci) * H + h) * W + w;
        return in(0, i);
      };
      auto w_at = [&](std::int64_t cig, std::int64_t kh, std::int64_t kw) -> float {
        const std::int64_t i = last ? ((co * KH + kh) * KW + kw) * cin_g + cig : ((co * cin_g + cig) * KH + kh) * KW + kw;
        return in(1, i);
      };
      // Order of k: the weight's storage order (ci, kh, kw) or (kh, kw, ci).
      auto term = [&](std::int64_t cig, std::int64_t kh, std::int64_t kw) {
        t.a.push_back(x_at(g * cin_g + cig, oh * SH - PH + kh * DH, ow * SW - PW + kw * DW));
        t.b.push_back(w_at(cig, kh, kw));
      };
      if (last) {
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw)
            for (std::int64_t cig = 0; cig < cin_g; ++cig) term(cig, kh, kw);
      } else {
        for (std::int64_t cig = 0; cig < cin_g; ++cig)
          for (std::int64_t kh = 0; kh < KH; ++kh)
            for (std::int64_t kw = 0; kw < KW; ++kw) term(cig, kh, kw);
      }
      (void)o;
      if (c.bias) t.bias = inputs[2].get(co);
      break;
    }
  }
  return t;
}

std::vector<double> reference_elements_exact(const OpSpec& spec, const std::vector<Tensor>& inputs,
                                             const std::vector<std::int64_t>& flat_output_indices, Side side) {
  std::vector<double> out;
  out.reserve(flat_output_indices.size());
  for (std::int64_t f : flat_output_indices) {
    const ElementTerms t = reference_terms(spec, inputs, f, side);
    double acc = 0.0;
    for (std::size_t k = 0; k < t.a.size(); ++k) acc += static_cast<double>(t.a[k]) * static_cast<double>(t.b[k]);
    out.push_back(finish(spec, acc, t.bias));
  }
  return out;
}

}  // namespace vxsynth::ops
