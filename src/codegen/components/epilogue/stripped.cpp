// activation = stripped: the GEMM stores (sum + bias) in fp32 to a workspace and a separate
// elementwise pass applies the activation.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class StrippedActivation final : public Epilogue {
 public:
  bool separate_pass() const override { return true; }
  std::string finish(const Context&) const override {
    return "// Activation stripped from the epilogue: the activation pass applies it.\n"
           "(void)out_base;\nt.pre[(z * p.M + m) * p.N + n] = v;\n";
  }
  std::string pass_body(const Context& c) const override {
    return "// The stripped activation, as its own pass over (sum + bias).\n"
           "const idx_t z = idx / (p.M * p.N), m = (idx / p.N) % p.M, n = idx % p.N;\n"
           "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n(void)a_base;\n(void)b_base;\n"
           "t.out[out_offset(p, out_base, m, n)] = " +
           c.x.from_float(c.dtype, "activate(t.pre[idx])") + ";\n";
  }
  std::string describe(const Context& c) const override {
    return c.d.op.activation() == ops::Activation::none ? "the op has no activation" : "applied by a separate pass";
  }
};

REGISTER_COMPONENT(Epilogue, StrippedActivation, {"stripped"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
