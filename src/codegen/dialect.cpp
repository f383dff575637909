#include "codegen/dialect.h"

namespace vxsynth::codegen {
namespace {

// Replaces every "{}" in fmt with arg.
std::string fill(const std::string& fmt, const std::string& arg) {
  std::string out;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out += arg;
      ++i;
    } else {
      out += fmt[i];
    }
  }
  return out;
}

class CudaDialect final : public Dialect {
 public:
  bool is_cuda() const override { return true; }
  std::string device_fn() const override { return "__device__ __forceinline__"; }
  std::string index_type() const override { return "long long"; }
  std::string predicate_type() const override { return "bool"; }
  std::string storage_type(ops::DType t) const override {
    switch (t) {
      case ops::DType::bf16: return "__nv_bfloat16";
      case ops::DType::f16: return "__half";
      default: return "float";
    }
  }
  std::string to_float(ops::DType t, const std::string& v) const override {
    switch (t) {
      case ops::DType::bf16: return "__bfloat162float(" + v + ")";
      case ops::DType::f16: return "__half2float(" + v + ")";
      default: return v;
    }
  }
  std::string from_float(ops::DType t, const std::string& v) const override {
    switch (t) {
      case ops::DType::bf16: return "__float2bfloat16_rn(" + v + ")";
      case ops::DType::f16: return "__float2half_rn(" + v + ")";
      default: return v;
    }
  }
  std::string load(design::ReadOnce policy, const std::string& pointer) const override {
    switch (policy) {
      case design::ReadOnce::kReadOnly: return "__ldg(" + pointer + ")";
      case design::ReadOnce::kStreaming: return "__ldcs(" + pointer + ")";
      case design::ReadOnce::kDefault: break;
    }
    return "*(" + pointer + ")";
  }
  std::string less(const std::string& a, const std::string& b) const override { return "(" + a + " < " + b + ")"; }
  std::string in_range(const std::string& v, const std::string& limit) const override {
    return "(static_cast<unsigned long long>(" + v + ") < static_cast<unsigned long long>(" + limit + "))";
  }
  std::string min_index(const std::string& a, const std::string& b) const override {
    return "min(" + a + ", " + b + ")";
  }
  std::string guarded_value(const std::string& ok, const std::string& fmt, const std::string& offset) const override {
    return "(" + ok + " ? " + fill(fmt, offset) + " : 0.0f)";
  }
  std::string unroll() const override { return "#pragma unroll\n"; }
  std::string guarded(const std::string& ok, const std::string& statement) const override {
    return "if (" + ok + ") {\n" + statement + "\n}\n";
  }
};

// Vortex: stock GCC inserts no split/join, so predicates stay arithmetic (vx_branchless.h),
// guarded loads read a masked (in-range) address and select, and divergent stores are wrapped
// in an explicit vx_split / vx_join.
class VortexDialect final : public Dialect {
 public:
  bool is_cuda() const override { return false; }
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
  std::string unroll() const override { return "#pragma GCC unroll 16\n"; }
  std::string guarded(const std::string& ok, const std::string& statement) const override {
    return "{\nconst int split = vx_split((int)(" + ok + "));\nif (" + ok + ") {\n" + statement + "\n}\nvx_join(split);\n}\n";
  }
};

}  // namespace

std::unique_ptr<Dialect> make_cuda_dialect() { return std::make_unique<CudaDialect>(); }
std::unique_ptr<Dialect> make_vortex_dialect() { return std::make_unique<VortexDialect>(); }

}  // namespace vxsynth::codegen
