// Layout transforms on Vortex: RV32 has no vector loads, so kRN elements move as consecutive
// scalar accesses; predicates stay arithmetic (lanes must not diverge without split/join): an
// out-of-range lane loads element 0 (a masked, in-range address) and only the stores to global
// memory are wrapped in vx_split / vx_join.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class VortexTransformAccess final : public TransformAccess {
 public:
  std::string tile_memory() const override { return "__local_mem"; }
  std::string vector_note(int width) const override {
    return width > 1 ? " (consecutive scalar accesses: RV32 has no vector loads)" : "";
  }
  std::string describe_read_once(design::ReadOnce policy) const override {
    return design::to_string(policy) + ": plain loads (Vortex 2.x has no cache hints)";
  }
  std::string guard_note() const override { return " (masked in-range load addresses, vx_split/vx_join around stores)"; }
  std::string vector_type(int) const override { return ""; }
  std::string access_functions(const design::DesignPoint&, const Dialect& x) const override {
    const std::string fn = x.device_fn();
    return fn + " void load_vec(const bits_t* p, bits_t* e) {\n" + x.unroll() +
           "for (int j = 0; j < kRN; ++j) e[j] = p[j];\n}\n" + fn + " bits_t load_one(const bits_t* p) { return *p; }\n" +
           fn + " void store_vec(bits_t* p, const bits_t* e) {\n" + x.unroll() +
           "for (int j = 0; j < kRN; ++j) p[j] = e[j];\n}\n";
  }
  // The 16-bit types through the dialect's branch-free conversions (those of the GEMM kernels).
  std::string scale_function(const design::DesignPoint& d, const Dialect& x) const override {
    const std::string fn = x.device_fn();
    const ops::DType t = ops::storage_dtype(d.fixed.precision);
    if (t == ops::DType::f32) {
      return fn + " bits_t scale(bits_t v, float alpha) {\nunion { uint32_t u; float f; } w;\nw.u = v;\n"
                  "w.f = w.f * alpha;\nreturn w.u;\n}\n";
    }
    return x.conversions(d) + fn + " bits_t scale(bits_t v, float alpha) { return " +
           x.from_float(t, x.to_float(t, "v") + " * alpha") + "; }\n";
  }
  std::string in_bounds(const Dialect&, const std::string& row, const std::string& col) const override {
    return "(vxb_lt((uint32_t)(" + row + "), (uint32_t)rows) & vxb_lt((uint32_t)(" + col + "), (uint32_t)cols))";
  }
  std::string column_branch_note() const override { return "vx_split / vx_join"; }
  std::string store_param_functions(const Dialect& x) const override {
    const std::string fn = x.device_fn();
    return "// param_reads at_store: volatile loads from the argument block at each store.\n" + fn +
           " bits_t* store_base(const Params& p, int i) {\n(void)i;\n"
           "return (bits_t*)(uintptr_t)((const volatile Params*)&p)->out_addr;\n}\n" + fn +
           " float store_alpha(const Params& p, int i) {\n(void)i;\nreturn ((const volatile Params*)&p)->alpha;\n}\n";
  }
  std::string store_param_note() const override { return "the kernel's argument block in memory (volatile loads)"; }
  std::string entry_read_functions() const override { return ""; }
  // Volatile loads of the argument block's rows (the compiler keeps each load; `& 0` keeps z zero).
  std::string entry_reads(int count) const override {
    return "int z = 0;\nfor (int k = 0; k < " + std::to_string(count) +
           "; ++k) z |= (int)((const volatile Params*)&p)->rows & 0;\n";
  }
  std::string entry_read_note() const override { return "the kernel's argument block in memory (volatile loads)"; }
  std::string less_than(const std::string& a, const std::string& b) const override {
    return "vxb_lt((uint32_t)(" + a + "), (uint32_t)(" + b + "))";
  }
  std::string load_address(const std::string& offset) const override { return "x + ((" + offset + ") & (idx_t)vxb_mask(ok))"; }
  // Every lane loads (masked address); a value a masked lane staged in the tile is never written out.
  std::string guarded_copy(const Dialect& x, const std::string& loads, const std::string& stores,
                           bool global) const override {
    return global ? loads + x.guarded("ok", stores) : loads + stores + "\n";
  }
  // The next block of this core slot reuses the local-memory tile.
  std::string after_tile() const override {
    return "// The next block of this core slot reuses the local-memory tile.\n__syncthreads();\n";
  }
};

REGISTER_COMPONENT(TransformAccess, VortexTransformAccess, {"layout_transform"}, {Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
