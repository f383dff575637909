// prefetch = registers: the next k-tile is fetched into registers while the current one is
// computed, and stashed into the single tile after a barrier.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class RegisterPrefetch final : public Pipeline {
 public:
  int buffers(const Context&) const override { return 1; }
  std::string comment() const override { return ": the next k-tile is fetched into registers during the current one.\n"; }
  std::string loop(const Context& c) const override {
    // The slice may be empty (split-K); the branch is uniform over the block.
    return "if (k_begin < k_end) {\n" + c.staging.fetch(c, "k_begin") + c.staging.stash(c, "0") + "__syncthreads();\n" +
           "for (idx_t k0 = k_begin; k0 < k_end; k0 += kBK) {\nconst idx_t k_next = k0 + kBK;\n" +
           "if (k_next < k_end) {\n" + c.staging.fetch(c, "k_next") + "}\n" + c.mainloop.compute_call(c, "k0", "0") +
           "__syncthreads();\nif (k_next < k_end) {\n" + c.staging.stash(c, "0") + "__syncthreads();\n}\n" + "}\n}\n";
  }
  std::string describe(const Context&) const override { return "next k-tile fetched into registers during the current one"; }
};

REGISTER_COMPONENT(Pipeline, RegisterPrefetch, {"registers"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
