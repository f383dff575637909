// k_range = fixed: the reduction length is a compile-time constant (the compiler can unroll
// and strength-reduce the K loop); the candidate declines any other K.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class FixedK final : public KRange {
 public:
  std::string k_expr() const override { return "kK"; }
  std::string constants(const Context& c) const override {
    return "constexpr idx_t kK = " + std::to_string(c.d.fixed.shape.k) +
           ";  // fixed K range: the reduction length is compiled in\n";
  }
  std::string describe(const Context&) const override { return "K compiled in"; }
};

REGISTER_COMPONENT(KRange, FixedK, {"fixed"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
