// The Vortex dialect: the RISC-V benchmark's constructs (Vortex 2.x, stock GCC).
// Stock GCC inserts no split/join, so predicates stay arithmetic (vx_branchless.h), guarded
// loads read a masked (in-range) address and select, and divergent stores are wrapped in an
// explicit vx_split / vx_join.
#include <sstream>

#include "codegen/dialect.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

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

class VortexDialect final : public Dialect {
 public:
  std::string device_fn() const override { return "static inline"; }
  std::string index_type() const override { return "int32_t"; }
  std::string predicate_type() const override { return "uint32_t"; }
  std::string storage_type(ops::DType t) const override { return t == ops::DType::f32 ? "float" : "uint16_t"; }
  std::string to_float(ops::DType t, const std::string& v) const override {
    switch (t) {
      case ops::DType::bf16: return "bf16_to_float(" + v + ")";
      case ops::DType::f16: return "fp16_to_float(" + v + ")";
      default: return v;
    }
  }
  std::string from_float(ops::DType t, const std::string& v) const override {
    switch (t) {
      case ops::DType::bf16: return "float_to_bf16(" + v + ")";
      case ops::DType::f16: return "float_to_fp16(" + v + ")";
      default: return v;
    }
  }
  std::string load(design::ReadOnce, const std::string& pointer) const override { return "*(" + pointer + ")"; }
  std::string less(const std::string& a, const std::string& b) const override {
    return "vxb_lt((uint32_t)(" + a + "), (uint32_t)(" + b + "))";
  }
  std::string in_range(const std::string& v, const std::string& limit) const override { return less(v, limit); }
  std::string min_index(const std::string& a, const std::string& b) const override {
    return "(int32_t)vxb_min((uint32_t)(" + a + "), (uint32_t)(" + b + "))";
  }
  std::string guarded_value(const std::string& ok, const std::string& fmt, const std::string& offset) const override {
    return "vxb_select_f(" + ok + ", " + fill(fmt, "((" + offset + ") & (int32_t)vxb_mask(" + ok + "))") + ", 0.0f)";
  }
  std::string tile_run4(const std::string& dst, const std::string& first, const std::string& pointer) const override {
    return "{\nconst float* run = " + pointer + ";\n" + dst + "[" + first + "] = run[0];\n" + dst + "[" + first + " + 1] = run[1];\n" +
           dst + "[" + first + " + 2] = run[2];\n" + dst + "[" + first + " + 3] = run[3];\n}\n";
  }
  std::string describe_run4() const override {
    return "each thread's rows (columns) come in runs of four consecutive local-memory words (RV32 has no vector loads: four lw)";
  }
  std::string unroll() const override { return "#pragma GCC unroll 16\n"; }
  std::string guarded(const std::string& ok, const std::string& statement) const override {
    return "{\nconst int split = vx_split((int)(" + ok + "));\nif (" + ok + ") {\n" + statement + "\n}\nvx_join(split);\n}\n";
  }
  // Vortex computes a tf32 op as fp16 (ops::vortex_path_for): SIMT operands are rounded to fp16
  // when read (tensor-core designs round when staging into the fp16 tiles).
  std::string simt_operand(ops::PrecisionPath p, const std::string& v) const override {
    return p == ops::PrecisionPath::tf32 ? "fp16_to_float(float_to_fp16(" + v + "))" : v;
  }
  std::string conversions(const design::DesignPoint& d) const override {
    const ops::DType dtype = ops::storage_dtype(d.fixed.precision);
    std::ostringstream s;
  if (dtype == ops::DType::bf16) {
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
  if (dtype == ops::DType::f16 || d.fixed.precision == ops::PrecisionPath::tf32) {
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
    return s.str();
  }
  std::string activation(ops::Activation act) const override {
    return act == ops::Activation::none ? "" : vortex_activation(act);
  }
  std::int64_t tile_bytes(const design::DesignPoint& d) const override { return design::vortex_local_bytes(d); }
  std::string tile_memory_decl() const override {
    return "unsigned char* smem = (unsigned char*)__local_mem(kSharedBytes);  // this block's local-memory slice\n";
  }
  std::string tile_memory() const override { return "local"; }
  std::string staged_tiles() const override { return " staged in __local_mem tiles between __syncthreads()"; }
  std::string describe_load(design::ReadOnce) const override { return "ordinary loads (Vortex 2.x has no cache-policy hint)"; }
  std::string describe_guard() const override { return "masked loads, vx_split/vx_join stores"; }
  std::string precision_note(const design::DesignPoint& d) const override {
    return " (Vortex computes " + ops::to_string(d.op.vortex_precision) + ")";
  }
  std::string machine_note(const design::DesignPoint& d) const override {
    return ";\n//   Vortex core " + std::to_string(d.vortex.warps) + " warps x " + std::to_string(d.vortex.threads) +
           " threads, " + std::to_string(d.vortex.local_mem_bytes) + " B local memory, " + std::to_string(d.vortex.cores) +
           " core(s)";
  }
};

}  // namespace

std::unique_ptr<Dialect> make_vortex_dialect() { return std::make_unique<VortexDialect>(); }

}  // namespace vxsynth::codegen
