// boundary = uniform_branch: interior blocks take an unpredicated path, edge blocks the
// guarded one; the branch is the same for every thread of the block.
#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class UniformBranch final : public BoundaryHandling {
 public:
  bool padded() const override { return false; }
  std::string dispatch(const std::string& call_fmt, const std::string& k0) const override {
    return "if (interior && " + k0 + " + kBK <= k_end) {\n" + with_guard(call_fmt, "false") + "\n} else {\n" +
           with_guard(call_fmt, "true") + "\n}\n";
  }
  std::string stores(const std::function<std::string(bool)>& body) const override {
    return "if (interior) {\n" + body(false) + "} else {\n" + body(true) + "}\n";
  }
  std::string frame(const Context&) const override {
    return "// Uniform-branch boundary: interior blocks skip every predicate (the branch is the same\n"
           "// for all threads of the block).\n"
           "const bool interior = (m0 + kBM <= p.M) && (n0 + kBN <= p.N);\n";
  }
  std::string accessor_prefix(const Context&, char) const override { return ""; }
  std::string describe(const Context&) const override {
    return "interior blocks unpredicated, a block-uniform branch to the guarded path";
  }
};

REGISTER_COMPONENT(BoundaryHandling, UniformBranch, {"uniform_branch"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
