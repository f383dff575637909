// split_k = 1: each block reduces the whole K range of its tile.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class WholeK final : public SplitK {
 public:
  bool sliced() const override { return false; }
  std::string frame_comment() const override { return ""; }
  std::string constants(const Context&) const override { return ""; }
  std::string frame(const Context&, const std::string& k_limit) const override {
    return "const idx_t z = (idx_t)blockIdx.z;\nconst idx_t k_begin = 0, k_end = " + k_limit + ";\n";
  }
  std::string store() const override { return "finish(p, t, z, out_base, m, n, v);"; }
  std::string finish_comment() const override { return ".\n"; }
  std::string unused_after_mainloop() const override { return "(void)k_begin;\n"; }
  std::string pass_body(const Context&) const override { return ""; }
  std::string describe(const Context&) const override { return "one K range per block"; }
};

REGISTER_COMPONENT(SplitK, WholeK, {"none"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
