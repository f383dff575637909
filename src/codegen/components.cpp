#include "codegen/components.h"

#include <sstream>

#include "common/error.h"
#include "design/validity.h"

namespace vxsynth::codegen {

using design::Boundary;
using design::DesignPoint;
using design::Prefetch;

namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// Replaces every "{G}" with the guard argument.
std::string with_guard(const std::string& fmt, const std::string& guard) {
  std::string out = fmt;
  for (std::size_t pos = out.find("{G}"); pos != std::string::npos; pos = out.find("{G}", pos + guard.size())) {
    out.replace(pos, 3, guard);
  }
  return out;
}

bool is_conv(const DesignPoint& d) { return d.op.kind == ops::OpKind::conv1d || d.op.kind == ops::OpKind::conv2d; }

bool channels_last(const DesignPoint& d) { return is_conv(d) && d.op.conv.layout == ops::ConvLayout::channels_last; }

const char* activation_formula(ops::Activation a) {
  switch (a) {
    case ops::Activation::relu: return "v > 0.0f ? v : 0.0f";
    case ops::Activation::gelu: return "0.5f * v * (1.0f + erff(v * 0.70710678118654752f))";
    case ops::Activation::gelu_tanh:
      return "0.5f * v * (1.0f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)))";
    case ops::Activation::silu: return "v / (1.0f + expf(-v))";
    case ops::Activation::none: break;
  }
  return "v";
}

// Vortex: picolibc's erff/expf/tanhf branch on the argument, and lanes of a warp must not
// diverge without split/join, so the activation uses branch-free forms (fmin/fmax/fsgnj and a
// Cody-Waite exp); their error (<= 2e-7 relative) is far inside the candidate tolerance.
std::string vortex_activation(ops::Activation act) {
  std::string s = "// The op's activation (" + ops::to_string(act) +
                  "), branch-free: picolibc's libm branches on the argument and lanes must not diverge.\n";
  const bool needs_exp = act != ops::Activation::relu;
  if (needs_exp) {
    s += R"src(static inline float exp_branch_free(float x) {
  x = __builtin_fminf(__builtin_fmaxf(x, -87.0f), 88.0f);
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  const float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f + r * (0.0416666679f + r * (0.00833333377f + r * 0.00138888892f)))));
  union { uint32_t u; float f; } scale;
  scale.u = (uint32_t)((int32_t)n + 127) << 23;
  return p * scale.f;
}
)src";
  }
  switch (act) {
    case ops::Activation::relu: s += "static inline float activate(float v) { return __builtin_fmaxf(v, 0.0f); }\n"; break;
    case ops::Activation::gelu:
      s += R"src(// erf through erfc(z) = t exp(-z^2 - 1.26551223 + t P(t)), t = 1 / (1 + z/2) (fractional error < 1.2e-7).
static inline float erf_branch_free(float x) {
  const float z = __builtin_fabsf(x);
  const float t = 1.0f / (1.0f + 0.5f * z);
  const float poly = -1.26551223f + t * (1.00002368f + t * (0.37409196f + t * (0.09678418f + t * (-0.18628806f +
                     t * (0.27886807f + t * (-1.13520398f + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  const float erfc = t * exp_branch_free(-z * z + poly);
  return __builtin_copysignf(1.0f - erfc, x);
}
static inline float activate(float v) { return 0.5f * v * (1.0f + erf_branch_free(v * 0.70710678118654752f)); }
)src";
      break;
    case ops::Activation::gelu_tanh:
      s += R"src(static inline float tanh_branch_free(float u) {
  const float e = exp_branch_free(2.0f * __builtin_fabsf(u));
  return __builtin_copysignf(1.0f - 2.0f / (e + 1.0f), u);
}
static inline float activate(float v) {
  return 0.5f * v * (1.0f + tanh_branch_free(0.79788456080286536f * (v + 0.044715f * v * v * v)));
}
)src";
      break;
    case ops::Activation::silu: s += "static inline float activate(float v) { return v / (1.0f + exp_branch_free(-v)); }\n"; break;
    case ops::Activation::none: break;
  }
  return s;
}

}  // namespace

std::vector<Pass> passes(const DesignPoint& d) {
  std::vector<Pass> out;
  if (d.boundary == Boundary::kPadded) {
    out.push_back(Pass::kPadA);
    out.push_back(Pass::kPadB);
  }
  out.push_back(Pass::kGemm);
  if (d.split_k > 1) out.push_back(Pass::kReduce);
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
  if (d.boundary == Boundary::kPadded) {
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

std::vector<std::string> tensor_fields(const DesignPoint& d) {
  std::vector<std::string> f = {"a", "b"};
  if (d.op.has_bias()) f.push_back("bias");
  f.push_back("out");
  if (d.split_k > 1) f.push_back("partial");
  if (d.activation == design::ActivationPlacement::kStripped) f.push_back("pre");
  if (d.boundary == Boundary::kPadded) {
    f.push_back("a_pad");
    f.push_back("b_pad");
  }
  return f;
}

bool a_contiguous_in_k(const DesignPoint& d) {
  if (d.boundary == Boundary::kPadded) return true;  // the padded copy is [batch][Mp][Kp]
  switch (d.op.kind) {
    case ops::OpKind::matmul: return !d.op.matmul.transpose_a;
    case ops::OpKind::conv1d:
    case ops::OpKind::conv2d: return channels_last(d);  // NCHW: neighbouring m are neighbouring x
    case ops::OpKind::linear:
    case ops::OpKind::layout_transform: break;  // transforms have their own emitter
  }
  return true;
}

bool b_contiguous_in_k(const DesignPoint& d) {
  if (d.boundary == Boundary::kPadded) return true;
  if (d.op.kind == ops::OpKind::matmul) return d.op.matmul.transpose_b;
  return true;  // weights are [n][k]
}

Composer::Composer(const DesignPoint& d, const Dialect& dialect)
    : d_(d),
      x_(dialect),
      tensor_(d.fragment != design::Fragment::kNone),
      staged_a_(design::staged_a(d.staging)),
      staged_b_(design::staged_b(d.staging)),
      dtype_(ops::storage_dtype(d.fixed.precision)) {}

std::string Composer::k_expr() const { return d_.k_range == design::KRange::kFixed ? "kK" : "p.K"; }

std::string Composer::constants() const {
  const design::BlockGeometry g = design::block_geometry(d_);
  std::ostringstream s;
  s << "typedef " << x_.storage_type(dtype_) << " elem_t;\n";
  s << "typedef " << x_.index_type() << " idx_t;\n";
  s << "typedef " << x_.predicate_type() << " pred_t;\n";
  if (tensor_ && x_.is_cuda()) {
    s << "typedef " << (d_.fixed.precision == ops::PrecisionPath::tf32 ? "float" : "elem_t")
      << " smem_t;  // shared tile element\n";
  }
  if (tensor_ && !x_.is_cuda()) {
    const bool bf16 = d_.fixed.precision == ops::PrecisionPath::bf16;
    s << "typedef uint16_t smem_t;  // local tile element: " << (bf16 ? "bf16" : "fp16")
      << (d_.fixed.precision == ops::PrecisionPath::tf32 ? " (tf32 is computed as fp16 on Vortex)" : "") << "\n";
    s << "// The tensor unit at 32 threads a warp: 16 x 16 tiles, k-step 32.\n";
    s << "typedef vortex::tensor::wmma_context<32, vortex::tensor::" << (bf16 ? "bf16" : "fp16")
      << ", vortex::tensor::fp32> wmma_ctx;\n";
  }
  s << "\n// Block tile, thread block and warp arrangement.\n";
  s << "constexpr int kBM = " << d_.tile.m << ", kBN = " << d_.tile.n << ", kBK = " << d_.tile.k << ";\n";
  s << "constexpr int kThreads = " << d_.fixed.block_size << ";\n";
  s << "constexpr int kWM = " << d_.warps.m << ", kWN = " << d_.warps.n << ";\n";
  s << "static_assert(kWM * kWN * 32 == kThreads, \"the warp arrangement fills the block\");\n";
  if (!tensor_) {
    s << "// Register tile: each thread owns kTM x kTN outputs, strided by the thread grid.\n";
    s << "constexpr int kTM = " << d_.register_tile.m << ", kTN = " << d_.register_tile.n << ";\n";
    s << "constexpr int kThreadsM = " << g.threads_m << ", kThreadsN = " << g.threads_n << ";\n";
    s << "constexpr int kLanesM = " << g.lanes_m << ", kLanesN = " << g.lanes_n << ";\n";
  } else {
    const auto fs = design::fragment_shape(d_.fragment);
    s << "// Fragments: each warp owns kTM x kTN accumulator fragments of kFM x kFN.\n";
    s << "constexpr int kTM = " << d_.register_tile.m << ", kTN = " << d_.register_tile.n << ";\n";
    if (x_.is_cuda()) {
      s << "constexpr int kFM = " << fs.m << ", kFN = " << fs.n << ", kFK = " << fs.k << ";\n";
      s << "constexpr int kLd = " << design::fragment_tile_ld(d_) << ";   // shared row stride (16-byte pad)\n";
    } else {
      s << "// The warp tile (kTM x kTN CUDA fragments of " << fs.m << "x" << fs.n
        << ") as kVTM x kVTN Vortex unit tiles.\n";
      s << "constexpr int kWarpTileM = kBM / kWM, kWarpTileN = kBN / kWN;\n";
      s << "constexpr int kVTM = kWarpTileM / wmma_ctx::tileM, kVTN = kWarpTileN / wmma_ctx::tileN;\n";
      s << "constexpr int kLd = " << design::vortex_fragment_tile_ld(d_) << ";   // local row stride (elements)\n";
    }
    s << "constexpr int kCLd = " << design::epilogue_tile_ld(d_) << ";  // epilogue tile row stride\n";
  }
  if (d_.staging != design::Staging::kNone) {
    s << "constexpr int kBuffers = " << (d_.prefetch == Prefetch::kDoubleBuffer ? 2 : 1) << ";\n";
  }
  if (staged_a_) s << "constexpr int kAPerThread = (kBM * kBK + kThreads - 1) / kThreads;\n";
  if (staged_b_) s << "constexpr int kBPerThread = (kBN * kBK + kThreads - 1) / kThreads;\n";
  s << "constexpr int kSharedBytes = " << (x_.is_cuda() ? design::cuda_shared_bytes(d_) : design::vortex_local_bytes(d_))
    << ";\n";
  if (d_.split_k > 1) s << "constexpr int kSplit = " << d_.split_k << ";  // K slices (two-pass split-K)\n";
  if (d_.k_range == design::KRange::kFixed) {
    s << "constexpr idx_t kK = " << d_.fixed.shape.k << ";  // fixed K range: the reduction length is compiled in\n";
  }
  return s.str();
}

std::string Composer::scalar_helpers() const {
  std::ostringstream s;
  if (!x_.is_cuda() && dtype_ == ops::DType::bf16) {
    s << R"src(// bfloat16 <-> float with round-to-nearest-even; NaN stays a quiet NaN (branch-free: GCC
// must not turn lane-dependent conditions into branches).
static inline float bf16_to_float(uint16_t h) {
  union { uint32_t u; float f; } v;
  v.u = (uint32_t)h << 16;
  return v.f;
}
static inline uint16_t float_to_bf16(float f) {
  union { float f; uint32_t u; } v;
  v.f = f;
  const uint32_t rounded = (v.u + 0x7FFFu + ((v.u >> 16) & 1u)) >> 16;
  const uint32_t is_nan = vxb_lt(0x7F800000u, v.u & 0x7FFFFFFFu);
  return (uint16_t)vxb_select(is_nan, (v.u >> 16) | 0x40u, rounded);
}
)src";
  }
  if (!x_.is_cuda() && (dtype_ == ops::DType::f16 || d_.fixed.precision == ops::PrecisionPath::tf32)) {
    s << R"src(// IEEE half <-> float with round-to-nearest-even, subnormals, infinities and NaN, computed
// branch-free (every case is evaluated and one is selected).
static inline float fp16_to_float(uint16_t h) {
  union { uint32_t u; float f; } normal, special, result;
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  normal.u = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  special.u = sign | 0x7F800000u | (mantissa << 13);
  const float subnormal = (float)mantissa * 5.9604644775390625e-8f;  // mantissa * 2^-24, exact
  union { float f; uint32_t u; } sub;
  sub.f = subnormal;
  sub.u |= sign;
  result.u = vxb_select(vxb_lt(exponent, 1u), sub.u, vxb_select(vxb_lt(exponent, 31u), normal.u, special.u));
  return result.f;
}
static inline uint16_t float_to_fp16(float f) {
  union { float f; uint32_t u; } v, magic, tmp;
  v.f = f;
  const uint32_t sign = (v.u >> 16) & 0x8000u;
  const uint32_t a = v.u & 0x7FFFFFFFu;
  // Overflow (|f| >= 65520 rounds up to 65536 and beyond) and NaN.
  const uint32_t overflow = vxb_select(vxb_lt(0x7F800000u, a), 0x7E00u, 0x7C00u);
  // Subnormal results: add 0.5 so the FPU rounds the mantissa to even at 2^-24.
  magic.u = 0x3F000000u;
  tmp.u = a;
  tmp.f = tmp.f + magic.f;
  const uint32_t subnormal = tmp.u - magic.u;
  // Normal results: rebias and round to nearest even on the 13 dropped bits.
  const uint32_t normal = (a + 0xC8000FFFu + ((a >> 13) & 1u)) >> 13;
  const uint32_t result = vxb_select(vxb_lt(a, 0x38800000u), subnormal, vxb_select(vxb_lt(a, 0x47800000u), normal, overflow));
  return (uint16_t)(sign | result);
}
)src";
  }
  const ops::Activation act = d_.op.activation();
  if (act != ops::Activation::none && x_.is_cuda()) {
    s << "// The op's activation (" << ops::to_string(act) << "), applied to (sum + bias) before the one rounding.\n";
    s << x_.device_fn() << " float activate(float v) { return " << activation_formula(act) << "; }\n";
  }
  if (act != ops::Activation::none && !x_.is_cuda()) s << vortex_activation(act);
  return s.str();
}

std::string Composer::tile_accessor(char operand) const {
  // Element (row, k) of operand A (row = m) or B (row = n) of the GEMM view, through the
  // read-once policy; guarded variants return 0 outside the problem.
  const bool is_a = operand == 'a';
  const std::string name = is_a ? "a" : "b";
  const std::string row = is_a ? "m" : "n";
  const std::string rows = is_a ? "p.M" : "p.N";
  const std::string base = is_a ? "a_base" : "b_base";
  const std::string K = k_expr();
  // Vortex computes a tf32 op as fp16 (ops::vortex_path_for): SIMT operands are rounded to fp16
  // here (tensor-core designs round when staging into the fp16 tiles).
  const bool round_fp16 = !x_.is_cuda() && d_.fixed.precision == ops::PrecisionPath::tf32 && !tensor_;
  auto operand_value = [&](const std::string& v) { return round_fp16 ? "fp16_to_float(float_to_fp16(" + v + "))" : v; };
  const std::string load_fmt = operand_value(x_.to_float(dtype_, x_.load(d_.read_once, "src + {}")));
  std::ostringstream s;
  std::string what, offset, extra_ok;
  std::string decompose;
  if (d_.boundary == Boundary::kPadded) {
    // The mainloop reads the zero-padded copy; the pad pass reads the original through
    // load_<operand>_guarded below.
    s << "// " << (is_a ? "A" : "B") << "(" << row << ", k) from the zero-padded copy [batch][" << (is_a ? "Mp" : "Np")
      << "][Kp]: no predicates.\n";
    s << "template <bool kGuard>\n"
      << x_.device_fn() << " float tile_" << name << "(const Params& p, const elem_t* src, idx_t " << base << ", idx_t "
      << row << ", idx_t k, idx_t) {\n"
      << "return " << operand_value(x_.to_float(dtype_, x_.load(d_.read_once, "src + " + base + " + " + row + " * p.Kp + k")))
      << ";\n}\n\n";
  }
  switch (d_.op.kind) {
    case ops::OpKind::linear:
      what = is_a ? "x[m][k]" : "weight[n][k]";
      offset = row + " * " + K + " + k";
      break;
    case ops::OpKind::matmul: {
      const bool t = is_a ? d_.op.matmul.transpose_a : d_.op.matmul.transpose_b;
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
        what = std::string("implicit im2col of the ") + (channels_last(d_) ? "NHWC" : "NCHW") + " input (zero padding)";
        decompose = "const idx_t img = m / (p.p * p.q), pq = m % (p.p * p.q);\n"
                    "const idx_t oy = pq / p.q, ox = pq % p.q;\n";
        if (channels_last(d_)) {
          decompose += "const idx_t r = k / (p.s * p.cg), rest = k % (p.s * p.cg);\n"
                       "const idx_t s = rest / p.cg, c = rest % p.cg;\n";
        } else {
          decompose += "const idx_t c = k / (p.r * p.s), rs = k % (p.r * p.s);\n"
                       "const idx_t r = rs / p.s, s = rs % p.s;\n";
        }
        decompose += "const idx_t iy = oy * p.stride_h - p.pad_h + r * p.dilation_h;\n"
                     "const idx_t ix = ox * p.stride_w - p.pad_w + s * p.dilation_w;\n";
        offset = channels_last(d_) ? "((img * p.h + iy) * p.w + ix) * p.c_in + a_base + c"
                                   : "((img * p.c_in + a_base + c) * p.h + iy) * p.w + ix";
        extra_ok = x_.in_range("iy", "p.h") + " & " + x_.in_range("ix", "p.w");
      } else {
        what = std::string("weight[k_out][") + (channels_last(d_) ? "r][s][c" : "c][r][s") + "] of this group";
        offset = "(b_base + n) * " + K + " + k";
      }
      break;
    case ops::OpKind::layout_transform:
      throw WorkError("the GEMM components cannot emit a layout transform (codegen/transform_emitter.h does)");
  }
  const std::string fn = d_.boundary == Boundary::kPadded ? "load_" + name + "_guarded" : "tile_" + name;
  s << "// " << (is_a ? "A" : "B") << "(" << row << ", k) of the GEMM view: " << what << ".\n";
  if (d_.boundary != Boundary::kPadded) s << "template <bool kGuard>\n";
  s << x_.device_fn() << " float " << fn << "(const Params& p, const elem_t* src, idx_t " << base << ", idx_t " << row
    << ", idx_t k, idx_t k_end) {\n";
  s << decompose;
  s << "const idx_t offset = " << offset << ";\n";
  const std::string full_ok = x_.less(row, rows) + " & " + x_.less("k", "k_end") + (extra_ok.empty() ? "" : " & " + extra_ok);
  if (d_.boundary == Boundary::kPadded) {
    s << "const pred_t ok = " << full_ok << ";\n";
    s << "return " << x_.guarded_value("ok", load_fmt, "offset") << ";\n}\n\n";
    return s.str();
  }
  if (extra_ok.empty()) {
    s << "if constexpr (!kGuard) return " << operand_value(x_.to_float(dtype_, x_.load(d_.read_once, "src + offset"))) << ";\n";
    s << "const pred_t ok = " << full_ok << ";\n";
  } else {
    // The zero padding of the convolution is checked even on interior tiles.
    s << "const pred_t ok = kGuard ? (pred_t)(" << full_ok << ") : (pred_t)(" << extra_ok << ");\n";
  }
  s << "return " << x_.guarded_value("ok", load_fmt, "offset") << ";\n}\n\n";
  return s.str();
}

std::string Composer::accessors() const {
  std::ostringstream s;
  s << tile_accessor('a') << tile_accessor('b');
  // Batch bases: where batch z starts in A, B and the output.
  s << "// Where output batch z (matmul batch, or conv group) starts in A, B and the output.\n";
  s << x_.device_fn() << " void batch_bases(const Params& p, idx_t z, idx_t& a_base, idx_t& b_base, idx_t& out_base) {\n";
  if (d_.op.kind == ops::OpKind::matmul && !d_.op.matmul.batch_out().empty()) {
    const std::size_t rank = d_.op.matmul.batch_out().size();
    s << "a_base = 0;\nb_base = 0;\nout_base = z * p.M * p.N;\nidx_t rest = z;\n";
    s << "// Broadcast batch dimensions have stride 0.\n";
    s << "for (int i = " << rank - 1 << "; i >= 0; --i) {\n"
      << "const idx_t index = rest % p.batch_dim[i];\nrest /= p.batch_dim[i];\n"
      << "a_base += index * p.a_stride[i];\nb_base += index * p.b_stride[i];\n}\n";
  } else if (is_conv(d_)) {
    s << "a_base = z * p.cg;  // first input channel of group z\n";
    s << "b_base = z * p.N;   // first output channel of group z\n";
    s << "out_base = z * p.N;\n";
  } else {
    s << "(void)p;\n(void)z;\na_base = 0;\nb_base = 0;\nout_base = 0;\n";
  }
  s << "}\n\n";
  // Output offset.
  s << "// Offset of output element (m, n) of batch z in the output tensor.\n";
  s << x_.device_fn() << " idx_t out_offset(const Params& p, idx_t out_base, idx_t m, idx_t n) {\n";
  if (is_conv(d_)) {
    s << "const idx_t img = m / (p.p * p.q), pq = m % (p.p * p.q);\n";
    s << (channels_last(d_) ? "return (img * p.p * p.q + pq) * p.k_out + out_base + n;\n"
                            : "return (img * p.k_out + out_base + n) * (p.p * p.q) + pq;\n");
  } else if (d_.op.kind == ops::OpKind::matmul) {
    s << "return out_base + m * p.N + n;\n";
  } else {
    s << "(void)out_base;\nreturn m * p.N + n;\n";
  }
  s << "}\n\n";
  // Result store: the epilogue of the GEMM, or of the reduction pass.
  const bool bias = d_.op.has_bias();
  s << "// Epilogue store of the finished sum v of (m, n)";
  if (d_.split_k > 1) s << ": split-K slices store fp32 partial sums, the reduction pass finishes them.\n";
  else s << ".\n";
  const std::string finish_args = "const Params& p, const Tensors& t, idx_t z, idx_t out_base, idx_t m, idx_t n, float v";
  s << x_.device_fn() << " void finish(" << finish_args << ") {\n";
  if (bias) {
    s << "v += " << x_.to_float(dtype_, x_.load(design::ReadOnce::kDefault, std::string("t.bias + ") + (is_conv(d_) ? "out_base + n" : "n")))
      << ";\n";
  }
  if (d_.activation == design::ActivationPlacement::kStripped) {
    s << "// Activation stripped from the epilogue: the activation pass applies it.\n";
    s << "(void)out_base;\nt.pre[(z * p.M + m) * p.N + n] = v;\n";
  } else {
    s << "(void)z;\n";
    const std::string value = d_.op.activation() != ops::Activation::none ? "activate(v)" : "v";
    s << "t.out[out_offset(p, out_base, m, n)] = " << x_.from_float(dtype_, value) << ";\n";
  }
  s << "}\n\n";
  return s.str();
}

std::string Composer::fetch_stash(char operand) const {
  const bool is_a = operand == 'a';
  const std::string X = is_a ? "A" : "B";
  const std::string rows = is_a ? "kBM" : "kBN";
  const std::string per = is_a ? "kAPerThread" : "kBPerThread";
  const bool contiguous_k = is_a ? a_contiguous_in_k(d_) : b_contiguous_in_k(d_);
  const design::LaneMap lane = is_a ? d_.lane_a : d_.lane_b;
  const bool k_fastest = contiguous_k == (lane == design::LaneMap::kForward);
  const std::int64_t elements = std::int64_t(is_a ? d_.tile.m : d_.tile.n) * d_.tile.k;
  const bool remainder = elements % d_.fixed.block_size != 0;
  std::ostringstream idx;
  idx << "const int e = "
      << (remainder ? x_.min_index("t + i * kThreads", rows + " * kBK - 1") : std::string("t + i * kThreads")) << ";\n";
  if (k_fastest) {
    idx << "const int row = e / kBK, col = e % kBK;  // consecutive threads walk k\n";
  } else {
    idx << "const int col = e / " << rows << ", row = e % " << rows << ";  // consecutive threads walk "
        << (is_a ? "m" : "n") << "\n";
  }
  std::ostringstream s;
  s << "// Copy of the " << X << " tile (" << rows << " x kBK) into registers, lane mapping "
    << design::to_string(lane) << (remainder ? " (the last copy repeats the final element)" : "") << ".\n";
  s << "template <bool kGuard>\n";
  s << x_.device_fn() << " void fetch_" << operand << "(const Params& p, const elem_t* src, idx_t base, idx_t "
    << (is_a ? "m0" : "n0") << ", idx_t k0, idx_t k_end, int t, float (&regs)[" << per << "]) {\n";
  s << "for (int i = 0; i < " << per << "; ++i) {\n" << idx.str();
  s << "regs[i] = tile_" << operand << "<kGuard>(p, src, base, " << (is_a ? "m0" : "n0") << " + row, k0 + col, k_end);\n}\n}\n\n";
  const std::string tile_type = tensor_ ? "smem_t" : "float";
  s << "// Stores the fetched registers into the shared " << X << " tile"
    << (tensor_ ? " ([row][kLd], fragment layout)" : " ([k][row])") << ".\n";
  s << x_.device_fn() << " void stash_" << operand << "(" << tile_type << "* tile, int t, const float (&regs)[" << per << "]) {\n";
  s << "for (int i = 0; i < " << per << "; ++i) {\n" << idx.str();
  if (tensor_) {
    std::string value = "regs[i]";
    if (!x_.is_cuda()) {
      value = x_.from_float(d_.fixed.precision == ops::PrecisionPath::tf32 ? ops::DType::f16 : dtype_, value);
    } else if (d_.fixed.precision != ops::PrecisionPath::tf32) {
      value = x_.from_float(dtype_, value);
    }
    s << "tile[row * kLd + col] = " << value << ";\n";
  } else {
    s << "tile[col * " << rows << " + row] = regs[i];\n";
  }
  s << "}\n}\n\n";
  return s.str();
}

std::string Composer::compute_function() const {
  std::ostringstream s;
  if (tensor_ && !x_.is_cuda()) {
    s << "// One k-tile on the Vortex tensor unit: warp (wm, wn) multiplies its kVTM x kVTN unit tiles\n"
         "// (B is stored [n][k]: column-major for the unit).\n";
    s << "static inline void compute_tile(const smem_t* As, const smem_t* Bs, int wm, int wn, "
         "wmma_ctx::fragment_acc (&acc)[kVTM][kVTN]) {\n";
    s << "for (int kk = 0; kk < kBK; kk += (int)wmma_ctx::tileK) {\n";
    s << "wmma_ctx::fragment_a a[kVTM];\nwmma_ctx::fragment_b b[kVTN];\n";
    s << x_.unroll() << "for (int i = 0; i < kVTM; ++i) wmma_ctx::load_matrix_sync(a[i], As + (wm * kWarpTileM + i * (int)wmma_ctx::tileM) * kLd + kk, kLd);\n";
    s << x_.unroll() << "for (int j = 0; j < kVTN; ++j) wmma_ctx::load_matrix_sync<vortex::tensor::col_major>(b[j], Bs + (wn * kWarpTileN + j * (int)wmma_ctx::tileN) * kLd + kk, kLd);\n";
    s << x_.unroll() << "for (int i = 0; i < kVTM; ++i)\n" << x_.unroll()
      << "for (int j = 0; j < kVTN; ++j) wmma_ctx::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);\n";
    s << "}\n}\n\n";
    return s.str();
  }
  if (tensor_ && design::is_mma_sync(d_.fragment)) {
    const bool tf32 = d_.fixed.precision == ops::PrecisionPath::tf32;
    const std::string shape = tf32 ? "m16n8k8" : "m16n8k16";
    const std::string type = tf32 ? "tf32" : (dtype_ == ops::DType::bf16 ? "bf16" : "f16");
    s << "// Accumulator fragment of one mma.sync." << shape << ": lane (g = lane / 4, q = lane % 4) holds\n"
         "// C[g][2q], C[g][2q + 1], C[g + 8][2q], C[g + 8][2q + 1].\n";
    s << "struct acc_frag_t {\nfloat x[4];\n};\n\n";
    if (!tf32) {
      s << x_.device_fn() << " unsigned load_pair(const smem_t* p) { return *reinterpret_cast<const unsigned*>(p); }\n";
    } else {
      s << x_.device_fn() << " unsigned to_tf32(float v) {\nunsigned r;\n"
           "asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(v));\nreturn r;\n}\n";
    }
    s << "\n// One k-tile with PTX mma.sync." << shape << " (A row-major from [m][kLd], B column-major\n"
         "// from [n][kLd]); fragments are loaded from shared memory lane by lane.\n";
    s << x_.device_fn() << " void compute_tile(const smem_t* As, const smem_t* Bs, int wm, int wn, acc_frag_t (&acc)[kTM][kTN]) {\n";
    s << "const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, q = lane % 4;\n";
    s << "for (int kk = 0; kk < kBK; kk += kFK) {\nunsigned a[kTM][4], b[kTN][2];\n";
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i) {\nconst smem_t* p = As + ((wm * kTM + i) * kFM + g) * kLd + kk;\n";
    if (tf32) {
      s << "a[i][0] = to_tf32(p[q]);\na[i][1] = to_tf32(p[8 * kLd + q]);\n"
           "a[i][2] = to_tf32(p[q + 4]);\na[i][3] = to_tf32(p[8 * kLd + q + 4]);\n}\n";
    } else {
      s << "a[i][0] = load_pair(p + 2 * q);\na[i][1] = load_pair(p + 8 * kLd + 2 * q);\n"
           "a[i][2] = load_pair(p + 2 * q + 8);\na[i][3] = load_pair(p + 8 * kLd + 2 * q + 8);\n}\n";
    }
    s << x_.unroll() << "for (int j = 0; j < kTN; ++j) {\nconst smem_t* p = Bs + ((wn * kTN + j) * kFN + g) * kLd + kk;\n";
    if (tf32) {
      s << "b[j][0] = to_tf32(p[q]);\nb[j][1] = to_tf32(p[q + 4]);\n}\n";
    } else {
      s << "b[j][0] = load_pair(p + 2 * q);\nb[j][1] = load_pair(p + 2 * q + 8);\n}\n";
    }
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j)\n";
    s << "asm volatile(\"mma.sync.aligned." << shape << ".row.col.f32." << type << "." << type
      << ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
         ": \"+f\"(acc[i][j].x[0]), \"+f\"(acc[i][j].x[1]), \"+f\"(acc[i][j].x[2]), \"+f\"(acc[i][j].x[3])\n"
         ": \"r\"(a[i][0]), \"r\"(a[i][1]), \"r\"(a[i][2]), \"r\"(a[i][3]), \"r\"(b[j][0]), \"r\"(b[j][1]));\n";
    s << "}\n}\n\n";
    return s.str();
  }
  if (tensor_) {
    const bool tf32 = d_.fixed.precision == ops::PrecisionPath::tf32;
    const std::string frag_t = tf32 ? "wmma::precision::tf32" : "elem_t";
    s << "typedef wmma::fragment<wmma::accumulator, kFM, kFN, kFK, float> acc_frag_t;\n\n";
    s << "// One k-tile on the tensor cores: warp (wm, wn) multiplies its kTM x kTN fragments.\n";
    s << x_.device_fn() << " void compute_tile(const smem_t* As, const smem_t* Bs, int wm, int wn, acc_frag_t (&acc)[kTM][kTN]) {\n";
    s << "for (int kk = 0; kk < kBK; kk += kFK) {\n";
    s << "wmma::fragment<wmma::matrix_a, kFM, kFN, kFK, " << frag_t << ", wmma::row_major> a[kTM];\n";
    s << "wmma::fragment<wmma::matrix_b, kFM, kFN, kFK, " << frag_t << ", wmma::col_major> b[kTN];\n";
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i) {\n"
      << "wmma::load_matrix_sync(a[i], As + (wm * kTM + i) * kFM * kLd + kk, kLd);\n";
    if (tf32) s << "for (int e = 0; e < a[i].num_elements; ++e) a[i].x[e] = wmma::__float_to_tf32(a[i].x[e]);\n";
    s << "}\n";
    s << x_.unroll() << "for (int j = 0; j < kTN; ++j) {\n"
      << "wmma::load_matrix_sync(b[j], Bs + (wn * kTN + j) * kFN * kLd + kk, kLd);\n";
    if (tf32) s << "for (int e = 0; e < b[j].num_elements; ++e) b[j].x[e] = wmma::__float_to_tf32(b[j].x[e]);\n";
    s << "}\n";
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j) "
         "wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);\n";
    s << "}\n}\n\n";
    return s.str();
  }
  const bool guard_template = !(staged_a_ && staged_b_);
  s << "// One k-tile on the FMA pipes: kTM x kTN outputs per thread";
  if (!staged_a_ || !staged_b_) s << ", unstaged operands read from global memory";
  s << ".\n";
  if (guard_template) s << "template <bool kGuard>\n";
  s << x_.device_fn() << " void compute_tile(";
  if (!staged_a_ || !staged_b_) s << "const Params& p, const Tensors& t, idx_t a_base, idx_t b_base, idx_t m0, idx_t n0, idx_t k0, idx_t k_end, ";
  s << "int tm, int tn, ";
  if (staged_a_) s << "const float* As, ";
  if (staged_b_) s << "const float* Bs, ";
  s << "float (&acc)[kTM][kTN]) {\n";
  s << "for (int kk = 0; kk < kBK; ++kk) {\nfloat a_frag[kTM], b_frag[kTN];\n";
  s << x_.unroll() << "for (int i = 0; i < kTM; ++i) a_frag[i] = ";
  if (staged_a_) s << "As[kk * kBM + tm + i * kThreadsM];\n";
  else s << "tile_a<kGuard>(p, " << (d_.boundary == Boundary::kPadded ? "t.a_pad" : "t.a") << ", a_base, m0 + tm + i * kThreadsM, k0 + kk, k_end);\n";
  s << x_.unroll() << "for (int j = 0; j < kTN; ++j) b_frag[j] = ";
  if (staged_b_) s << "Bs[kk * kBN + tn + j * kThreadsN];\n";
  else s << "tile_b<kGuard>(p, " << (d_.boundary == Boundary::kPadded ? "t.b_pad" : "t.b") << ", b_base, n0 + tn + j * kThreadsN, k0 + kk, k_end);\n";
  s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j) acc[i][j] += a_frag[i] * b_frag[j];\n";
  s << "}\n";
  if (!staged_a_ || !staged_b_) {
    s << "(void)p;\n(void)t;\n(void)a_base;\n(void)b_base;\n(void)m0;\n(void)n0;\n(void)k0;\n(void)k_end;\n";
  }
  s << "}\n\n";
  return s.str();
}

std::string Composer::mainloop_functions() const {
  std::string s;
  if (staged_a_) s += fetch_stash('a');
  if (staged_b_) s += fetch_stash('b');
  s += compute_function();
  return s;
}

// A call whose guard depends on the boundary axis: always guarded, never (padded operands),
// or chosen per tile by a branch that is uniform over the block.
std::string Composer::guard_dispatch(const std::string& call_fmt, const std::string& k0) const {
  switch (d_.boundary) {
    case Boundary::kGuarded: return with_guard(call_fmt, "true") + "\n";
    case Boundary::kPadded: return with_guard(call_fmt, "false") + "\n";
    case Boundary::kUniformBranch:
      return "if (interior && " + k0 + " + kBK <= k_end) {\n" + with_guard(call_fmt, "false") + "\n} else {\n" +
             with_guard(call_fmt, "true") + "\n}\n";
  }
  return "";
}

std::string Composer::epilogue() const {
  std::ostringstream s;
  const std::string store = d_.split_k > 1
                                ? "t.partial[((slice * p.batch + z) * p.M + m) * p.N + n] = v;"
                                : "finish(p, t, z, out_base, m, n, v);";
  if (tensor_) {
    s << "// Epilogue: the accumulators go through shared memory (reusing the operand tiles) so that\n"
         "// each thread stores whole output rows with one bounds check.\n";
    s << "__syncthreads();\nfloat* Cs = reinterpret_cast<float*>(smem);\n";
    if (x_.is_cuda() && design::is_mma_sync(d_.fragment)) {
      s << "{\nconst int g = lane / 4, q = lane % 4;\n";
      s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j) {\n"
           "float* c = Cs + ((wm * kTM + i) * kFM + g) * kCLd + (wn * kTN + j) * kFN + 2 * q;\n"
           "c[0] = acc[i][j].x[0];\nc[1] = acc[i][j].x[1];\nc[8 * kCLd] = acc[i][j].x[2];\nc[8 * kCLd + 1] = acc[i][j].x[3];\n}\n}\n"
           "__syncthreads();\n";
    } else if (x_.is_cuda()) {
      s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j)\n"
           "wmma::store_matrix_sync(Cs + (wm * kTM + i) * kFM * kCLd + (wn * kTN + j) * kFN, acc[i][j], kCLd, "
           "wmma::mem_row_major);\n__syncthreads();\n";
    } else {
      s << x_.unroll() << "for (int i = 0; i < kVTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kVTN; ++j)\n"
           "wmma_ctx::store_matrix_sync(Cs + (wm * kWarpTileM + i * (int)wmma_ctx::tileM) * kCLd + wn * kWarpTileN + "
           "j * (int)wmma_ctx::tileN, acc[i][j], kCLd);\n__syncthreads();\n";
    }
    std::string body = "const idx_t m = m0 + e / kBN, n = n0 + e % kBN;\nconst float v = Cs[(e / kBN) * kCLd + e % kBN];\n";
    const std::string ok = x_.less("m", "p.M") + " & " + x_.less("n", "p.N");
    s << "for (int e = t_id; e < kBM * kBN; e += kThreads) {\n" << body;
    if (d_.boundary == Boundary::kUniformBranch) {
      s << "if (interior) {\n" << store << "\n} else {\n" << x_.guarded(ok, store) << "}\n";
    } else {
      s << x_.guarded(ok, store);
    }
    s << "}\n";
    if (!x_.is_cuda()) {
      s << "// The next CTA of this core slot reuses the local-memory slice that Cs lives in.\n__syncthreads();\n";
    }
    return s.str();
  }
  s << "// Epilogue: each thread stores its kTM x kTN outputs.\n";
  const std::string ok = x_.less("m", "p.M") + " & " + x_.less("n", "p.N");
  auto loop = [&](bool guarded) {
    std::ostringstream l;
    l << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j) {\n"
      << "const idx_t m = m0 + tm + i * kThreadsM, n = n0 + tn + j * kThreadsN;\nconst float v = acc[i][j];\n"
      << (guarded ? x_.guarded(ok, store) : store + "\n") << "}\n";
    return l.str();
  };
  if (d_.boundary == Boundary::kUniformBranch) {
    s << "if (interior) {\n" << loop(false) << "} else {\n" << loop(true) << "}\n";
  } else {
    s << loop(true);
  }
  return s.str();
}

std::string Composer::gemm_body() const {
  std::ostringstream s;
  s << "// Frame: block (x, y) computes output tile (n0, m0); z runs over batches"
    << (d_.split_k > 1 ? " and K slices" : "") << ".\n";
  s << "const int t_id = (int)threadIdx.x;\n";
  s << "const idx_t n0 = (idx_t)blockIdx.x * kBN, m0 = (idx_t)blockIdx.y * kBM;\n";
  if (d_.split_k > 1) {
    s << "const idx_t z = (idx_t)blockIdx.z / kSplit, slice = (idx_t)blockIdx.z % kSplit;\n";
    s << "const idx_t k_begin = slice * p.k_chunk;\n";
    s << "const idx_t k_end = k_begin + p.k_chunk < " << (d_.boundary == Boundary::kPadded ? "p.Kp" : k_expr())
      << " ? k_begin + p.k_chunk : " << (d_.boundary == Boundary::kPadded ? "p.Kp" : k_expr()) << ";\n";
  } else {
    s << "const idx_t z = (idx_t)blockIdx.z;\n";
    s << "const idx_t k_begin = 0, k_end = " << (d_.boundary == Boundary::kPadded ? "p.Kp" : k_expr()) << ";\n";
  }
  s << "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n";
  if (d_.boundary == Boundary::kPadded) {
    s << "// Padded operands: batch z of the copies.\n";
    s << "const idx_t a_tile_base = z * p.Mp * p.Kp, b_tile_base = z * p.Np * p.Kp;\n";
  }
  const std::string a_src = d_.boundary == Boundary::kPadded ? "t.a_pad" : "t.a";
  const std::string b_src = d_.boundary == Boundary::kPadded ? "t.b_pad" : "t.b";
  const std::string a_fetch_base = d_.boundary == Boundary::kPadded ? "a_tile_base" : "a_base";
  const std::string b_fetch_base = d_.boundary == Boundary::kPadded ? "b_tile_base" : "b_base";
  if (d_.boundary == Boundary::kUniformBranch) {
    s << "// Uniform-branch boundary: interior blocks skip every predicate (the branch is the same\n"
         "// for all threads of the block).\n";
    s << "const bool interior = (m0 + kBM <= p.M) && (n0 + kBN <= p.N);\n";
  }
  s << "const int warp = t_id / 32, lane = t_id % 32;\n";
  if (tensor_ && !x_.is_cuda()) {
    s << "const int wm = warp / kWN, wn = warp % kWN;  // one 32-thread Vortex warp per CUDA warp\n(void)lane;\n";
    s << "wmma_ctx::fragment_acc acc[kVTM][kVTN];\n";
    s << x_.unroll() << "for (int i = 0; i < kVTM; ++i)\n" << x_.unroll()
      << "for (int j = 0; j < kVTN; ++j) wmma_ctx::fill_fragment(acc[i][j], 0.0f);\n";
  } else if (tensor_ && design::is_mma_sync(d_.fragment)) {
    s << "const int wm = warp / kWN, wn = warp % kWN;\n(void)lane;\n";
    s << "acc_frag_t acc[kTM][kTN];\n";
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j)\n"
      << x_.unroll() << "for (int e = 0; e < 4; ++e) acc[i][j].x[e] = 0.0f;\n";
  } else if (tensor_) {
    s << "const int wm = warp / kWN, wn = warp % kWN;\n(void)lane;\n";
    s << "acc_frag_t acc[kTM][kTN];\n";
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);\n";
  } else {
    s << "// Warp (warp / kWN, warp % kWN) of the arrangement; lanes form a kLanesM x kLanesN grid.\n";
    s << "const int tm = (warp / kWN) * kLanesM + lane / kLanesN;\n";
    s << "const int tn = (warp % kWN) * kLanesN + lane % kLanesN;\n";
    s << "float acc[kTM][kTN];\n";
    s << x_.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x_.unroll() << "for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;\n";
  }
  // Shared tiles.
  const bool staged = d_.staging != design::Staging::kNone;
  const std::string tile_t = tensor_ ? "smem_t" : "float";
  const std::string a_tile = tensor_ ? "kBM * kLd" : "kBK * kBM";
  const std::string b_tile = tensor_ ? "kBN * kLd" : "kBK * kBN";
  if (staged || tensor_) {
    if (x_.is_cuda()) {
      s << "extern __shared__ __align__(128) unsigned char smem[];\n";
    } else {
      s << "unsigned char* smem = (unsigned char*)__local_mem(kSharedBytes);  // this block's local-memory slice\n";
    }
  }
  if (staged_a_) s << tile_t << "* As = reinterpret_cast<" << tile_t << "*>(smem);\n";
  if (staged_b_) {
    s << tile_t << "* Bs = reinterpret_cast<" << tile_t << "*>(smem)" << (staged_a_ ? " + kBuffers * " + a_tile : "") << ";\n";
  }
  if (staged_a_) s << "float a_regs[kAPerThread];\n";
  if (staged_b_) s << "float b_regs[kBPerThread];\n";

  auto fetch = [&](const std::string& k0) {
    std::string out;
    if (staged_a_) out += "fetch_a<{G}>(p, " + a_src + ", " + a_fetch_base + ", m0, " + k0 + ", k_end, t_id, a_regs);";
    if (staged_b_) out += (out.empty() ? "" : "\n") + std::string("fetch_b<{G}>(p, ") + b_src + ", " + b_fetch_base + ", n0, " + k0 + ", k_end, t_id, b_regs);";
    return guard_dispatch(out, k0);
  };
  auto stash = [&](const std::string& buf) {
    std::string out;
    if (staged_a_) out += "stash_a(As + " + buf + " * " + a_tile + ", t_id, a_regs);\n";
    if (staged_b_) out += "stash_b(Bs + " + buf + " * " + b_tile + ", t_id, b_regs);\n";
    return out;
  };
  auto compute = [&](const std::string& k0, const std::string& buf) {
    if (tensor_) return "compute_tile(As + " + buf + " * " + a_tile + ", Bs + " + buf + " * " + b_tile + ", wm, wn, acc);\n";
    std::string args;
    if (!staged_a_ || !staged_b_) args += "p, t, " + a_fetch_base + ", " + b_fetch_base + ", m0, n0, " + k0 + ", k_end, ";
    args += "tm, tn, ";
    if (staged_a_) args += "As + " + buf + " * " + a_tile + ", ";
    if (staged_b_) args += "Bs + " + buf + " * " + b_tile + ", ";
    args += "acc";
    if (staged_a_ && staged_b_) return "compute_tile(" + args + ");\n";
    return guard_dispatch("compute_tile<{G}>(" + args + ");", k0);
  };

  s << "// Mainloop over this block's K range";
  switch (d_.prefetch) {
    case Prefetch::kNone: s << ".\n"; break;
    case Prefetch::kRegisters: s << ": the next k-tile is fetched into registers during the current one.\n"; break;
    case Prefetch::kDoubleBuffer: s << ": two shared tiles; the next k-tile is stored into the idle one.\n"; break;
  }
  if (!staged) {
    s << "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\n" << compute("k0", "0") << "}\n";
  } else if (d_.prefetch == Prefetch::kNone) {
    s << "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\n"
      << fetch("k0") << stash("0") << "__syncthreads();\n"
      << compute("k0", "0") << "__syncthreads();\n}\n";
  } else {
    // The slice may be empty (split-K); the branch is uniform over the block.
    s << "if (k_begin < k_end) {\n" << fetch("k_begin") << stash("0") << "__syncthreads();\n";
    if (d_.prefetch == Prefetch::kDoubleBuffer) s << "int buffer = 0;\n";
    const std::string buf = d_.prefetch == Prefetch::kDoubleBuffer ? "buffer" : "0";
    s << "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\n";
    s << "const idx_t k_next = k0 + kBK;\n";
    s << "if (k_next < k_end) {\n" << fetch("k_next") << "}\n";
    s << compute("k0", buf);
    if (d_.prefetch == Prefetch::kDoubleBuffer) {
      s << "if (k_next < k_end) {\n" << stash("(buffer ^ 1)") << "}\n__syncthreads();\nbuffer ^= 1;\n";
    } else {
      s << "__syncthreads();\nif (k_next < k_end) {\n" << stash("0") << "__syncthreads();\n}\n";
    }
    s << "}\n}\n";
  }
  if (!tensor_) s << "(void)b_base;\n(void)a_base;\n";
  if (d_.split_k == 1) s << "(void)k_begin;\n";
  else s << "(void)out_base;\n";
  s << epilogue();
  return s.str();
}

std::string Composer::elementwise_body(Pass pass) const {
  std::ostringstream s;
  const std::string K = k_expr();
  switch (pass) {
    case Pass::kPadA:
    case Pass::kPadB: {
      const bool is_a = pass == Pass::kPadA;
      const std::string rows = is_a ? "p.Mp" : "p.Np";
      s << "// Zero-padded copy of " << (is_a ? "A" : "B") << ": [batch][" << (is_a ? "Mp" : "Np") << "][Kp].\n";
      s << "const idx_t z = idx / (" << rows << " * p.Kp), rest = idx % (" << rows << " * p.Kp);\n";
      s << "const idx_t row = rest / p.Kp, k = rest % p.Kp;\n";
      s << "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n(void)out_base;\n";
      s << "t." << (is_a ? "a_pad" : "b_pad") << "[idx] = "
        << x_.from_float(dtype_, std::string("load_") + (is_a ? "a" : "b") + "_guarded(p, t." + (is_a ? "a" : "b") + ", " +
                                     (is_a ? "a_base" : "b_base") + ", row, k, " + K + ")")
        << ";\n";
      if (is_a) s << "(void)b_base;\n";
      else s << "(void)a_base;\n";
      break;
    }
    case Pass::kReduce: {
      s << "// Split-K reduction: add the kSplit partial sums of one output element in slice order.\n";
      s << "const idx_t z = idx / (p.M * p.N), m = (idx / p.N) % p.M, n = idx % p.N;\n";
      s << "float v = 0.0f;\nfor (int slice = 0; slice < kSplit; ++slice) v += t.partial[((idx_t)slice * p.batch + z) * p.M * p.N + m * p.N + n];\n";
      s << "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n(void)a_base;\n(void)b_base;\n";
      s << "finish(p, t, z, out_base, m, n, v);\n";
      break;
    }
    case Pass::kActivation: {
      s << "// The stripped activation, as its own pass over (sum + bias).\n";
      s << "const idx_t z = idx / (p.M * p.N), m = (idx / p.N) % p.M, n = idx % p.N;\n";
      s << "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n(void)a_base;\n(void)b_base;\n";
      s << "t.out[out_offset(p, out_base, m, n)] = " << x_.from_float(dtype_, "activate(t.pre[idx])") << ";\n";
      break;
    }
    case Pass::kGemm: break;
  }
  return s.str();
}

std::string Composer::axis_summary() const {
  const bool cuda = x_.is_cuda();
  std::ostringstream s;
  auto line = [&s](const std::string& axis, const std::string& value, const std::string& construct) {
    s << "//   " << axis << " = " << value << ": " << construct << "\n";
  };
  const auto staged_text = [&]() -> std::string {
    if (d_.staging == design::Staging::kNone) return "operands read straight from global memory";
    std::string which = d_.staging == design::Staging::kAB ? "A and B" : (staged_a_ ? "A" : "B");
    return which + (cuda ? " staged in shared-memory tiles between __syncthreads()" : " staged in __local_mem tiles between __syncthreads()");
  };
  line("shared_staging", design::to_string(d_.staging), staged_text());
  line("read_once", design::to_string(d_.read_once),
       cuda ? (d_.read_once == design::ReadOnce::kReadOnly    ? "__ldg loads (read-only path)"
               : d_.read_once == design::ReadOnce::kStreaming ? "__ldcs loads (evict-first)"
                                                              : "ordinary loads")
            : "ordinary loads (Vortex 2.x has no cache-policy hint)");
  line("lane_mapping", design::to_string(d_.lane_a) + "/" + design::to_string(d_.lane_b),
       "staging copies walk the contiguous dimension (forward) or the other (reversed)");
  line("tile", str(d_.tile.m) + "x" + str(d_.tile.n) + "x" + str(d_.tile.k), "block tile m x n, k-step");
  line("register_tile", str(d_.register_tile.m) + "x" + str(d_.register_tile.n),
       tensor_ ? "accumulator fragments per warp" : "outputs per thread");
  line("prefetch", design::to_string(d_.prefetch),
       d_.prefetch == Prefetch::kNone        ? "none"
       : d_.prefetch == Prefetch::kRegisters ? "next k-tile fetched into registers during the current one"
                                             : std::string("two ") + (cuda ? "shared" : "local") + " tiles, the next stored into the idle one");
  line("tensor_core", design::to_string(d_.fragment),
       !tensor_ ? "SIMT FMA"
       : !cuda ? "the Vortex tensor unit (vx_tensor.h), 16x16x32 tiles"
       : design::is_mma_sync(d_.fragment) ? "PTX mma.sync fragments" : "WMMA fragments");
  line("activation", design::to_string(d_.activation),
       d_.op.activation() == ops::Activation::none ? "the op has no activation"
       : d_.activation == design::ActivationPlacement::kFused ? "applied in the epilogue"
                                                              : "applied by a separate pass");
  line("split_k", str(d_.split_k), d_.split_k > 1 ? "partial sums + reduction pass (no atomics)" : "one K range per block");
  line("warps", str(d_.warps.m) + "x" + str(d_.warps.n), "warp arrangement in the block");
  line("boundary", design::to_string(d_.boundary),
       d_.boundary == Boundary::kGuarded  ? (cuda ? "predicated accesses" : "masked loads, vx_split/vx_join stores")
       : d_.boundary == Boundary::kPadded ? "zero-padded operand copies, unpredicated mainloop"
                                          : "interior blocks unpredicated, a block-uniform branch to the guarded path");
  line("k_range", design::to_string(d_.k_range), d_.k_range == design::KRange::kFixed ? "K compiled in" : "K at run time");
  return s.str();
}

}  // namespace vxsynth::codegen
