// k_range = generic: K is read from the parameter block at run time.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class GenericK final : public KRange {
 public:
  std::string k_expr() const override { return "p.K"; }
  std::string constants(const Context&) const override { return ""; }
  std::string describe(const Context&) const override { return "K at run time"; }
};

REGISTER_COMPONENT(KRange, GenericK, {"generic"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
