// boundary = padded: two pre-passes copy A and B into zero-padded tile multiples
// ([batch][Mp|Np][Kp]); the mainloop reads the copies without predicates.
#include <sstream>

#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

class Padded final : public BoundaryHandling {
 public:
  bool padded() const override { return true; }
  std::string dispatch(const std::string& call_fmt, const std::string&) const override {
    return with_guard(call_fmt, "false") + "\n";
  }
  std::string stores(const std::function<std::string(bool)>& body) const override { return body(true); }
  std::string frame(const Context&) const override {
    return "// Padded operands: batch z of the copies.\n"
           "const idx_t a_tile_base = z * p.Mp * p.Kp, b_tile_base = z * p.Np * p.Kp;\n";
  }
  // The mainloop reads the zero-padded copy; the pad pass reads the original through
  // load_<operand>_guarded (the shared accessor code).
  std::string accessor_prefix(const Context& c, char operand) const override {
    const bool is_a = operand == 'a';
    const std::string name = is_a ? "a" : "b", row = is_a ? "m" : "n", base = is_a ? "a_base" : "b_base";
    std::ostringstream s;
    s << "// " << (is_a ? "A" : "B") << "(" << row << ", k) from the zero-padded copy [batch][" << (is_a ? "Mp" : "Np")
      << "][Kp]: no predicates.\n";
    s << "template <bool kGuard>\n"
      << c.x.device_fn() << " float tile_" << name << "(const Params& p, const elem_t* src, idx_t " << base << ", idx_t "
      << row << ", idx_t k, idx_t) {\n"
      << "return "
      << c.mainloop.operand_value(c, c.x.to_float(c.dtype, c.x.load(c.d.read_once, "src + " + base + " + " + row + " * p.Kp + k")))
      << ";\n}\n\n";
    return s.str();
  }
  std::string pad_pass(const Context& c, char operand) const override {
    const bool is_a = operand == 'a';
    const std::string rows = is_a ? "p.Mp" : "p.Np";
    std::ostringstream s;
    s << "// Zero-padded copy of " << (is_a ? "A" : "B") << ": [batch][" << (is_a ? "Mp" : "Np") << "][Kp].\n";
    s << "const idx_t z = idx / (" << rows << " * p.Kp), rest = idx % (" << rows << " * p.Kp);\n";
    s << "const idx_t row = rest / p.Kp, k = rest % p.Kp;\n";
    s << "idx_t a_base, b_base, out_base;\nbatch_bases(p, z, a_base, b_base, out_base);\n(void)out_base;\n";
    s << "t." << (is_a ? "a_pad" : "b_pad") << "[idx] = "
      << c.x.from_float(c.dtype, std::string("load_") + (is_a ? "a" : "b") + "_guarded(p, t." + (is_a ? "a" : "b") + ", " +
                                     (is_a ? "a_base" : "b_base") + ", row, k, " + c.k_expr() + ")")
      << ";\n";
    s << (is_a ? "(void)b_base;\n" : "(void)a_base;\n");
    return s.str();
  }
  std::string describe(const Context&) const override { return "zero-padded operand copies, unpredicated mainloop"; }
};

REGISTER_COMPONENT(BoundaryHandling, Padded, {"padded"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
