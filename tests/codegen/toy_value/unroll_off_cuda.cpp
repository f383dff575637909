// prefetch = unroll_off on CUDA: the k-tile loop under `#pragma unroll 1`.
#include "codegen/component.h"
#include "toy_value.h"

namespace vxsynth::codegen {
namespace {

class UnrollOffCuda final : public Pipeline {
 public:
  int buffers(const Context&) const override { return 1; }
  std::string comment() const override { return ", kept rolled.\n"; }
  std::string loop(const Context& c) const override {
    return "#pragma unroll 1\nfor (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\n" + c.staging.fetch(c, "k0") +
           c.staging.stash(c, "0") + "__syncthreads();\n" + c.mainloop.compute_call(c, "k0", "0") + "__syncthreads();\n}\n";
  }
  std::string describe(const Context&) const override { return "no prefetch, the k-tile loop under #pragma unroll 1"; }
};

REGISTER_COMPONENT(Pipeline, UnrollOffCuda, {toy::kUnrollOffName}, {Backend::kCuda});

}  // namespace
}  // namespace vxsynth::codegen
