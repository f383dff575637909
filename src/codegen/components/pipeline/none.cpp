// prefetch = none: fetch, stash, barrier, compute, barrier, one k-tile at a time.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class NoPrefetch final : public Pipeline {
 public:
  int buffers(const Context&) const override { return 1; }
  std::string comment() const override { return ".\n"; }
  std::string loop(const Context& c) const override {
    return "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\n" + c.staging.fetch(c, "k0") + c.staging.stash(c, "0") +
           "__syncthreads();\n" + c.mainloop.compute_call(c, "k0", "0") + "__syncthreads();\n}\n";
  }
  std::string describe(const Context&) const override { return "none"; }
};

REGISTER_COMPONENT(Pipeline, NoPrefetch, {"none"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
