#include "codegen/compose.h"

#include <sstream>

#include "common/error.h"
#include "design/validity.h"

namespace vxsynth::codegen {

using design::DesignPoint;

namespace {
const SplitK& split_k_component(const DesignPoint& d, Backend backend) {
  return Registry<SplitK>::instance().get(SplitK::value_of(d), backend);
}
}  // namespace

bool serial_split_k(const DesignPoint& d, Backend backend) {
  // The backend's split-K component decides (Vortex's serial is the two passes).
  const SplitK& k = split_k_component(d, backend);
  return k.sliced() && !k.reduction_pass();
}

std::vector<Pass> passes(const DesignPoint& d, Backend backend) {
  std::vector<Pass> out;
  if (d.boundary == design::Boundary::kPadded) {
    out.push_back(Pass::kPadA);
    out.push_back(Pass::kPadB);
  }
  out.push_back(Pass::kGemm);
  if (split_k_component(d, backend).reduction_pass()) out.push_back(Pass::kReduce);
  if (d.activation == design::ActivationPlacement::kStripped) out.push_back(Pass::kActivation);
  return out;
}

std::string pass_function(Pass p) {
  switch (p) {
    case Pass::kPadA: return "pad_a";
    case Pass::kPadB: return "pad_b";
    case Pass::kGemm: return "gemm";
    case Pass::kReduce: return "reduce_split_k";
    case Pass::kActivation: return "apply_activation";
  }
  return "?";
}

std::vector<std::string> param_fields(const DesignPoint& d) {
  std::vector<std::string> f = {"M", "N", "K", "batch"};
  if (d.split_k > 1) f.push_back("k_chunk");
  if (d.boundary == design::Boundary::kPadded) {
    f.push_back("Mp");
    f.push_back("Np");
    f.push_back("Kp");
  }
  if (d.op.kind == ops::OpKind::matmul && !d.op.matmul.batch_out().empty()) {
    f.push_back("batch_dim[4]");
    f.push_back("a_stride[4]");
    f.push_back("b_stride[4]");
  }
  if (is_conv(d)) {
    for (const char* name : {"c_in", "cg", "h", "w", "k_out", "r", "s", "p", "q", "stride_h", "stride_w", "pad_h",
                             "pad_w", "dilation_h", "dilation_w"}) {
      f.push_back(name);
    }
  }
  return f;
}

std::vector<std::string> tensor_fields(const DesignPoint& d, Backend backend) {
  std::vector<std::string> f = {"a", "b"};
  if (d.op.has_bias()) f.push_back("bias");
  f.push_back("out");
  if (d.split_k > 1) f.push_back("partial");
  if (serial_split_k(d, backend)) f.push_back("flags");
  if (d.activation == design::ActivationPlacement::kStripped) f.push_back("pre");
  if (d.boundary == design::Boundary::kPadded) {
    f.push_back("a_pad");
    f.push_back("b_pad");
  }
  return f;
}

Composer::Composer(const DesignPoint& d, Backend backend)
    : dialect_(backend == Backend::kCuda ? make_cuda_dialect() : make_vortex_dialect()), context_(d, *dialect_, backend) {}

std::string Composer::constants() const {
  const Context& c = context_;
  const DesignPoint& d = c.d;
  std::ostringstream s;
  s << "typedef " << c.x.storage_type(c.dtype) << " elem_t;\n";
  s << "typedef " << c.x.index_type() << " idx_t;\n";
  s << "typedef " << c.x.predicate_type() << " pred_t;\n";
  s << c.mainloop.types(c);
  s << "\n// Block tile, thread block and warp arrangement.\n";
  s << "constexpr int kBM = " << d.tile.m << ", kBN = " << d.tile.n << ", kBK = " << d.tile.k << ";\n";
  s << "constexpr int kThreads = " << d.fixed.block_size << ";\n";
  s << "constexpr int kWM = " << d.warps.m << ", kWN = " << d.warps.n << ";\n";
  s << "static_assert(kWM * kWN * 32 == kThreads, \"the warp arrangement fills the block\");\n";
  s << c.mainloop.geometry(c) << c.staging.constants(c);
  s << "constexpr int kSharedBytes = " << c.x.tile_bytes(d) << ";\n";
  s << c.split_k.constants(c) << c.k_range.constants(c);
  return s.str();
}

std::string Composer::scalar_helpers() const {
  return context_.x.conversions(context_.d) + context_.x.activation(context_.d.op.activation());
}

std::string Composer::tile_accessor(char operand) const {
  // Element (row, k) of operand A (row = m) or B (row = n) of the GEMM view, through the
  // read-once policy; guarded variants return 0 outside the problem.
  const Context& c = context_;
  const DesignPoint& d = c.d;
  const Dialect& x = c.x;
  const bool is_a = operand == 'a';
  const std::string name = is_a ? "a" : "b";
  const std::string row = is_a ? "m" : "n";
  const std::string rows = is_a ? "p.M" : "p.N";
  const std::string base = is_a ? "a_base" : "b_base";
  const std::string K = c.k_expr();
  auto operand_value = [&](const std::string& v) { return c.mainloop.operand_value(c, v); };
  const std::string load_fmt = operand_value(x.to_float(c.dtype, x.load(d.read_once, "src + {}")));
  std::ostringstream s;
  std::string what, offset, extra_ok;
  std::string decompose;
  s << c.boundary.accessor_prefix(c, operand);
  switch (d.op.kind) {
    case ops::OpKind::linear:
      what = is_a ? "x[m][k]" : "weight[n][k]";
      offset = row + " * " + K + " + k";
      break;
    case ops::OpKind::matmul: {
      const bool t = is_a ? d.op.matmul.transpose_a : d.op.matmul.transpose_b;
      if (is_a) {
        what = t ? "a stored [K][M]" : "a[m][k]";
        offset = base + " + " + (t ? "k * p.M + m" : "m * " + K + " + k");
      } else {
        what = t ? "b stored [N][K]" : "b[k][n]";
        offset = base + " + " + (t ? "n * " + K + " + k" : "k * p.N + n");
      }
      break;
    }
    case ops::OpKind::conv1d:
    case ops::OpKind::conv2d:
      if (is_a) {
        what = std::string("implicit im2col of the ") + (channels_last(d) ? "NHWC" : "NCHW") + " input (zero padding)";
        decompose = "const idx_t img = m / (p.p * p.q), pq = m % (p.p * p.q);\n"
                    "const idx_t oy = pq / p.q, ox = pq % p.q;\n";
        if (channels_last(d)) {
          decompose += "const idx_t r = k / (p.s * p.cg), rest = k % (p.s * p.cg);\n"
                       "const idx_t s = rest / p.cg, c = rest % p.cg;\n";
        } else {
          decompose += "const idx_t c = k / (p.r * p.s), rs = k % (p.r * p.s);\n"
                       "const idx_t r = rs / p.s, s = rs % p.s;\n";
        }
        decompose += "const idx_t iy = oy * p.stride_h - p.pad_h + r * p.dilation_h;\n"
                     "const idx_t ix = ox * p.stride_w - p.pad_w + s * p.dilation_w;\n";
        offset = channels_last(d) ? "((img * p.h + iy) * p.w + ix) * p.c_in + a_base + c"
                                  : "((img * p.c_in + a_base + c) * p.h + iy) * p.w + ix";
        extra_ok = x.in_range("iy", "p.h") + " & " + x.in_range("ix", "p.w");
      } else {
        what = std::string("weight[k_out][") + (channels_last(d) ? "r][s][c" : "c][r][s") + "] of this group";
        offset = "(b_base + n) * " + K + " + k";
      }
      break;
    case ops::OpKind::layout_transform:
      throw WorkError("the GEMM components cannot emit a layout transform (codegen/transform_emitter.h does)");
  }
  // A padded design's mainloop reads the copy (accessor_prefix); this reader of the original
  // is then the pad pass's, always guarded.
  const bool padded = c.boundary.padded();
  // prefetch cp_async: where an element lies and whether it is inside the problem, for the copy.
  std::string where;
  if (c.pipeline.async_copies()) {
    std::ostringstream w;
    w << "// Where " << (is_a ? "A" : "B") << "(" << row << ", k) lies in src, and whether it is inside the problem: the\n"
      << "// cp.async copy zero-fills an element outside it (src-size 0) from a clamped, never-read address.\n";
    w << "template <bool kGuard>\n";
    if (padded) {
      w << x.device_fn() << " bool where_" << name << "(const Params& p, idx_t " << base << ", idx_t " << row
        << ", idx_t k, idx_t, idx_t& offset) {\n";
      w << "offset = " << base << " + " << row << " * p.Kp + k;  // the zero-padded copy: always inside\nreturn true;\n}\n\n";
    } else {
      w << x.device_fn() << " bool where_" << name << "(const Params& p, idx_t " << base << ", idx_t " << row
        << ", idx_t k, idx_t k_end, idx_t& offset) {\n";
      w << decompose << "offset = " << offset << ";\n";
      const std::string ok = x.less(row, rows) + " & " + x.less("k", "k_end") + (extra_ok.empty() ? "" : " & " + extra_ok);
      if (extra_ok.empty()) {
        w << "if constexpr (!kGuard) return true;\nconst pred_t ok = " << ok << ";\n";
      } else {
        w << "const pred_t ok = kGuard ? (pred_t)(" << ok << ") : (pred_t)(" << extra_ok << ");\n";
      }
      w << "if (!ok) offset = 0;\nreturn ok;\n}\n\n";
    }
    where = w.str();
  }
  const std::string fn = padded ? "load_" + name + "_guarded" : "tile_" + name;
  s << "// " << (is_a ? "A" : "B") << "(" << row << ", k) of the GEMM view: " << what << ".\n";
  if (!padded) s << "template <bool kGuard>\n";
  s << x.device_fn() << " float " << fn << "(const Params& p, const elem_t* src, idx_t " << base << ", idx_t " << row
    << ", idx_t k, idx_t k_end) {\n";
  s << decompose;
  s << "const idx_t offset = " << offset << ";\n";
  const std::string full_ok = x.less(row, rows) + " & " + x.less("k", "k_end") + (extra_ok.empty() ? "" : " & " + extra_ok);
  if (padded) {
    s << "const pred_t ok = " << full_ok << ";\n";
    s << "return " << x.guarded_value("ok", load_fmt, "offset") << ";\n}\n\n";
    return s.str() + where;
  }
  if (extra_ok.empty()) {
    s << "if constexpr (!kGuard) return " << operand_value(x.to_float(c.dtype, x.load(d.read_once, "src + offset"))) << ";\n";
    s << "const pred_t ok = " << full_ok << ";\n";
  } else {
    // The zero padding of the convolution is checked even on interior tiles.
    s << "const pred_t ok = kGuard ? (pred_t)(" << full_ok << ") : (pred_t)(" << extra_ok << ");\n";
  }
  s << "return " << x.guarded_value("ok", load_fmt, "offset") << ";\n}\n\n";
  return s.str() + where;
}

std::string Composer::accessors() const {
  const Context& c = context_;
  const DesignPoint& d = c.d;
  const Dialect& x = c.x;
  std::ostringstream s;
  s << tile_accessor('a') << tile_accessor('b');
  // Batch bases: where batch z starts in A, B and the output.
  s << "// Where output batch z (matmul batch, or conv group) starts in A, B and the output.\n";
  s << x.device_fn() << " void batch_bases(const Params& p, idx_t z, idx_t& a_base, idx_t& b_base, idx_t& out_base) {\n";
  if (d.op.kind == ops::OpKind::matmul && !d.op.matmul.batch_out().empty()) {
    const std::size_t rank = d.op.matmul.batch_out().size();
    s << "a_base = 0;\nb_base = 0;\nout_base = z * p.M * p.N;\nidx_t rest = z;\n";
    s << "// Broadcast batch dimensions have stride 0.\n";
    s << "for (int i = " << rank - 1 << "; i >= 0; --i) {\n"
      << "const idx_t index = rest % p.batch_dim[i];\nrest /= p.batch_dim[i];\n"
      << "a_base += index * p.a_stride[i];\nb_base += index * p.b_stride[i];\n}\n";
  } else if (is_conv(d)) {
    s << "a_base = z * p.cg;  // first input channel of group z\n";
    s << "b_base = z * p.N;   // first output channel of group z\n";
    s << "out_base = z * p.N;\n";
  } else {
    s << "(void)p;\n(void)z;\na_base = 0;\nb_base = 0;\nout_base = 0;\n";
  }
  s << "}\n\n";
  // Output offset.
  s << "// Offset of output element (m, n) of batch z in the output tensor.\n";
  s << x.device_fn() << " idx_t out_offset(const Params& p, idx_t out_base, idx_t m, idx_t n) {\n";
  if (is_conv(d)) {
    s << "const idx_t img = m / (p.p * p.q), pq = m % (p.p * p.q);\n";
    s << (channels_last(d) ? "return (img * p.p * p.q + pq) * p.k_out + out_base + n;\n"
                           : "return (img * p.k_out + out_base + n) * (p.p * p.q) + pq;\n");
  } else if (d.op.kind == ops::OpKind::matmul) {
    s << "return out_base + m * p.N + n;\n";
  } else {
    s << "(void)out_base;\nreturn m * p.N + n;\n";
  }
  s << "}\n\n";
  // Result store: the epilogue of the GEMM, or of the reduction pass.
  s << "// Epilogue store of the finished sum v of (m, n)" << c.split_k.finish_comment();
  const std::string finish_args = "const Params& p, const Tensors& t, idx_t z, idx_t out_base, idx_t m, idx_t n, float v";
  s << x.device_fn() << " void finish(" << finish_args << ") {\n";
  if (d.op.has_bias()) {
    s << "v += " << x.to_float(c.dtype, x.load(design::ReadOnce::kDefault, std::string("t.bias + ") + (is_conv(d) ? "out_base + n" : "n")))
      << ";\n";
  }
  s << c.epilogue.finish(c);
  s << "}\n\n";
  return s.str();
}

std::string Composer::mainloop_functions() const {
  return context_.pipeline.functions(context_) + context_.staging.functions(context_) +
         context_.mainloop.compute_function(context_);
}

std::string Composer::gemm_body() const {
  const Context& c = context_;
  std::ostringstream s;
  s << "// Frame: block (x, y) computes output tile (n0, m0); z runs over batches" << c.split_k.frame_comment() << ".\n";
  s << "const int t_id = (int)threadIdx.x;\n";
  s << "const idx_t n0 = (idx_t)blockIdx.x * kBN, m0 = (idx_t)blockIdx.y * kBM;\n";
  s << c.split_k.frame(c, c.boundary.padded() ? "p.Kp" : c.k_expr());
  s << "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n";
  s << c.boundary.frame(c);
  s << "const int warp = t_id / 32, lane = t_id % 32;\n";
  s << c.mainloop.accumulators(c);
  s << c.staging.tiles(c);
  s << "// Mainloop over this block's K range" << c.pipeline.comment();
  if (c.staged('a') || c.staged('b')) {
    s << c.pipeline.loop(c);
  } else {
    s << "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\n" << c.mainloop.compute_call(c, "k0", "0") << "}\n";
  }
  s << c.mainloop.unused_after_mainloop() << c.split_k.unused_after_mainloop();
  s << c.split_k.before_epilogue(c) << c.mainloop.epilogue(c, c.split_k.store()) << c.split_k.after_epilogue(c);
  return s.str();
}

std::string Composer::elementwise_body(Pass pass) const {
  const Context& c = context_;
  switch (pass) {
    case Pass::kPadA: return c.boundary.pad_pass(c, 'a');
    case Pass::kPadB: return c.boundary.pad_pass(c, 'b');
    case Pass::kReduce: return c.split_k.pass_body(c);
    case Pass::kActivation: return c.epilogue.pass_body(c);
    case Pass::kGemm: break;
  }
  return "";
}

std::string Composer::axis_summary() const {
  const Context& c = context_;
  const DesignPoint& d = c.d;
  auto str = [](std::int64_t v) { return std::to_string(v); };
  std::ostringstream s;
  // Axis names from design's one spelling of them (design.json keys, moves, these comments).
  auto line = [&s](design::Axis axis, const std::string& value, const std::string& construct) {
    s << "//   " << design::to_string(axis) << " = " << value << ": " << construct << "\n";
  };
  line(design::Axis::kSharedStaging, design::to_string(d.staging), c.staging.describe(c));
  line(design::Axis::kReadOnce, design::to_string(d.read_once),
       c.x.describe_load(d.read_once) +
           (c.pipeline.async_copies() && d.read_once != design::ReadOnce::kDefault
                ? " for unstaged operands and the pad pass (the staged operands' cp.async copies take no read-once hint)"
                : ""));
  line(design::Axis::kLaneMapping, design::to_string(d.lane_a) + "/" + design::to_string(d.lane_b),
       "staging copies walk the contiguous dimension (forward) or the other (reversed)");
  line(design::Axis::kTile, str(d.tile.m) + "x" + str(d.tile.n) + "x" + str(d.tile.k), "block tile m x n, k-step");
  line(design::Axis::kRegisterTile, str(d.register_tile.m) + "x" + str(d.register_tile.n), c.mainloop.register_tile_meaning());
  line(design::Axis::kPrefetch, design::to_string(d.prefetch), c.pipeline.describe(c));
  if (d.prefetch == design::Prefetch::kCpAsync) {
    line(design::Axis::kPipelineStages, str(d.stages), "the ring's depth: kStages tiles per staged operand, kStages - 1 k-tiles in flight");
  }
  line(design::Axis::kTensorCore, design::to_string(d.fragment), c.mainloop.describe(c));
  line(design::Axis::kActivation, design::to_string(d.activation), c.epilogue.describe(c));
  line(design::Axis::kSplitK, str(d.split_k), c.split_k.describe(c));
  line(design::Axis::kWarps, str(d.warps.m) + "x" + str(d.warps.n), "warp arrangement in the block");
  line(design::Axis::kBoundary, design::to_string(d.boundary), c.boundary.describe(c));
  line(design::Axis::kKRange, design::to_string(d.k_range), c.k_range.describe(c));
  // Later axes only when moved from their defaults (earlier designs keep their text).
  if (d.fragment_load != design::FragmentLoad::kStrided) {
    line(design::Axis::kFragmentLoad, design::to_string(d.fragment_load), c.x.describe_run4());
  }
  if (d.shared_pad != design::SharedPad::kNone) {
    line(design::Axis::kSharedPad, design::to_string(d.shared_pad),
         "each k row of the staged tiles is four words longer (kLdA, kLdB), so stores of consecutive k fall in distinct banks");
  }
  if (d.split_reduce != design::SplitReduce::kSeparate) {
    line(design::Axis::kSplitReduce, design::to_string(d.split_reduce), c.split_k.describe(c));
  }
  return s.str();
}

}  // namespace vxsynth::codegen
