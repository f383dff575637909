// Layout transforms on CUDA: kRN elements move as one vector access (uint2/uint4 ...), the
// read-once policy picks the load instruction, and an out-of-range lane does not access memory.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class CudaTransformAccess final : public TransformAccess {
 public:
  std::string tile_memory() const override { return "__shared__"; }
  std::string vector_note(int width) const override { return width > 1 ? " (one vector load/store)" : ""; }
  std::string describe_read_once(design::ReadOnce policy) const override {
    switch (policy) {
      case design::ReadOnce::kReadOnly: return "read_only: __ldg";
      case design::ReadOnce::kStreaming: return "streaming: __ldcs";
      case design::ReadOnce::kDefault: break;
    }
    return "default: plain loads";
  }
  std::string guard_note() const override { return ""; }
  std::string vector_type(int bytes) const override {
    const char* type = bytes == 2 ? "unsigned short" : bytes == 4 ? "unsigned int" : bytes == 8 ? "uint2" : "uint4";
    return std::string("typedef ") + type + " vec_t;  // one access of kRN elements\n";
  }
  std::string access_functions(const design::DesignPoint& d, const Dialect& x) const override {
    const std::string fn = x.device_fn();
    return fn + " void load_vec(const bits_t* p, bits_t* e) {\nconst vec_t v = " +
           x.load(d.read_once, "reinterpret_cast<const vec_t*>(p)") + ";\nmemcpy(e, &v, sizeof(v));\n}\n" + fn +
           " bits_t load_one(const bits_t* p) { return " + x.load(d.read_once, "p") + "; }\n" + fn +
           " void store_vec(bits_t* p, const bits_t* e) {\nvec_t v;\nmemcpy(&v, e, sizeof(v));\n"
           "*reinterpret_cast<vec_t*>(p) = v;\n}\n";
  }
  std::string scale_function(const design::DesignPoint& d, const Dialect& x) const override {
    const std::string fn = x.device_fn();
    switch (ops::storage_dtype(d.fixed.precision)) {
      case ops::DType::bf16:
        return fn + " bits_t scale(bits_t v, float alpha) {\nreturn __bfloat16_as_ushort(__float2bfloat16_rn("
                    "__bfloat162float(__ushort_as_bfloat16(v)) * alpha));\n}\n";
      case ops::DType::f16:
        return fn + " bits_t scale(bits_t v, float alpha) {\nreturn __half_as_ushort(__float2half_rn("
                    "__half2float(__ushort_as_half(v)) * alpha));\n}\n";
      case ops::DType::f32: break;
    }
    return fn + " bits_t scale(bits_t v, float alpha) { return __float_as_uint(__uint_as_float(v) * alpha); }\n";
  }
  std::string in_bounds(const Dialect&, const std::string& row, const std::string& col) const override {
    return "(" + row + " < rows && " + col + " < cols)";
  }
  std::string column_branch_note() const override { return "a divergent branch"; }
  // Four equal slots indexed by (thread + i) * p.slot (0 at run time, & 3 to stay inside): the
  // compiler can neither fold the index nor prove two stores read the same slot, so each store
  // loads again; and the index is a thread's own, so the load is a per-thread LDC (through the
  // ADU and the indexed constant cache, as cuDNN's predicated LDCs) rather than the uniform ULDC
  // ptxas makes of a warp-uniform index (measured on the H200, session 19).
  std::string store_param_functions(const Dialect& x) const override {
    const std::string fn = x.device_fn();
    return "// param_reads at_store: the output pointer and alpha, copied to the constant bank before the launch.\n"
           "struct StoreParams {\nbits_t* y;\nfloat alpha;\n};\n__constant__ StoreParams c_store[4];\n" +
           fn + " bits_t* store_base(const Params& p, int i) { return c_store[(((int)threadIdx.x + i) * p.slot) & 3].y; }\n" + fn +
           " float store_alpha(const Params& p, int i) { return c_store[(((int)threadIdx.x + i) * p.slot) & 3].alpha; }\n";
  }
  std::string store_param_note() const override { return "the constant bank (a __constant__ copy, LDC)"; }
  // A table of zeros in the constant bank, indexed as store_base's slots are ((thread + k) x
  // p.slot, 0 at run time): one address for the whole warp, so the reads do not serialise in the
  // constant cache (a per-lane address made the H200 kernel 11-33x slower), yet each is a
  // per-thread LDC through the ADU.
  std::string entry_read_functions() const override {
    return "// entry_reads: a table of zeros in the constant bank (written before the launch), read per thread at entry.\n"
           "__constant__ int c_entry[32];\n";
  }
  std::string entry_reads(int count) const override {
    return "int z = 0;\n#pragma unroll\nfor (int k = 0; k < " + std::to_string(count) +
           "; ++k) z |= c_entry[(((int)threadIdx.x + k) * p.slot) & 31];\n";
  }
  std::string entry_read_note() const override { return "a __constant__ table, per-thread LDCs on the ADU pipe"; }
  std::string less_than(const std::string& a, const std::string& b) const override { return "(" + a + " < " + b + ")"; }
  std::string load_address(const std::string& offset) const override { return "x + " + offset; }
  // The lanes outside the tensor skip the loads as well as the stores.
  std::string guarded_copy(const Dialect&, const std::string& loads, const std::string& stores, bool) const override {
    return "if (ok) {\n" + loads + stores + "\n}\n";
  }
  std::string after_tile() const override { return ""; }
};

REGISTER_COMPONENT(TransformAccess, CudaTransformAccess, {"layout_transform"}, {Backend::kCuda});

}  // namespace
}  // namespace vxsynth::codegen
