// The CUDA dialect: the H200 proxy's constructs (sm_90, nvcc).
#include "codegen/dialect.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

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

class CudaDialect final : public Dialect {
 public:
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
  std::string tile_run4(const std::string& dst, const std::string& first, const std::string& pointer) const override {
    return "{\nconst float4 run = *reinterpret_cast<const float4*>(" + pointer + ");\n" + dst + "[" + first + "] = run.x;\n" + dst +
           "[" + first + " + 1] = run.y;\n" + dst + "[" + first + " + 2] = run.z;\n" + dst + "[" + first + " + 3] = run.w;\n}\n";
  }
  std::string describe_run4() const override {
    return "each thread's rows (columns) come in runs of four, read from the shared tiles as one float4 (16-byte) load per run";
  }
  std::string unroll() const override { return "#pragma unroll\n"; }
  std::string guarded(const std::string& ok, const std::string& statement) const override {
    return "if (" + ok + ") {\n" + statement + "\n}\n";
  }
  std::string simt_operand(ops::PrecisionPath, const std::string& v) const override { return v; }
  std::string conversions(const design::DesignPoint&) const override { return ""; }
  std::string activation(ops::Activation act) const override {
    if (act == ops::Activation::none) return "";
    return "// The op's activation (" + ops::to_string(act) +
           "), applied to (sum + bias) before the one rounding.\n" + device_fn() + " float activate(float v) { return " +
           activation_formula(act) + "; }\n";
  }
  std::int64_t tile_bytes(const design::DesignPoint& d) const override { return design::cuda_shared_bytes(d); }
  std::string tile_memory_decl() const override { return "extern __shared__ __align__(128) unsigned char smem[];\n"; }
  std::string tile_memory() const override { return "shared"; }
  std::string staged_tiles() const override { return " staged in shared-memory tiles between __syncthreads()"; }
  std::string describe_load(design::ReadOnce policy) const override {
    return policy == design::ReadOnce::kReadOnly    ? "__ldg loads (read-only path)"
           : policy == design::ReadOnce::kStreaming ? "__ldcs loads (evict-first)"
                                                    : "ordinary loads";
  }
  std::string describe_guard() const override { return "predicated accesses"; }
  std::string precision_note(const design::DesignPoint&) const override { return ""; }
  std::string machine_note(const design::DesignPoint&) const override { return ""; }
};

}  // namespace

std::unique_ptr<Dialect> make_cuda_dialect() { return std::make_unique<CudaDialect>(); }

}  // namespace vxsynth::codegen
