// boundary = guarded: every global access is predicated (CUDA: if; Vortex: masked loads and
// vx_split/vx_join stores).
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class Guarded final : public BoundaryHandling {
 public:
  bool padded() const override { return false; }
  std::string dispatch(const std::string& call_fmt, const std::string&) const override {
    return with_guard(call_fmt, "true") + "\n";
  }
  std::string stores(const std::function<std::string(bool)>& body) const override { return body(true); }
  std::string frame(const Context&) const override { return ""; }
  std::string accessor_prefix(const Context&, char) const override { return ""; }
  std::string describe(const Context& c) const override { return c.x.describe_guard(); }
};

REGISTER_COMPONENT(BoundaryHandling, Guarded, {"guarded"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
