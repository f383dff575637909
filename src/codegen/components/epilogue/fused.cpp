// activation = fused: the GEMM epilogue applies the op's activation to (sum + bias) before the
// one rounding to the output type.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class FusedActivation final : public Epilogue {
 public:
  bool separate_pass() const override { return false; }
  std::string finish(const Context& c) const override {
    const std::string value = c.d.op.activation() != ops::Activation::none ? "activate(v)" : "v";
    return "(void)z;\nt.out[out_offset(p, out_base, m, n)] = " + c.x.from_float(c.dtype, value) + ";\n";
  }
  std::string pass_body(const Context&) const override { return ""; }
  std::string describe(const Context& c) const override {
    return c.d.op.activation() == ops::Activation::none ? "the op has no activation" : "applied in the epilogue";
  }
};

REGISTER_COMPONENT(Epilogue, FusedActivation, {"fused"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
