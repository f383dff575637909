// tensor_core = none: SIMT FMA. Each thread owns kTM x kTN outputs strided by the thread grid
// (fragment_load strided), or in runs of four rows and columns strided by the thread grid
// (fragment_load vector4: one 16-byte shared load per run); written once against the Dialect, it
// serves both backends.
#include <sstream>

#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

bool runs_of_four(const Context& c) { return c.d.fragment_load == design::FragmentLoad::kVector4; }

bool padded(const Context& c) { return c.d.shared_pad != design::SharedPad::kNone; }

// Words of one k row of the shared A (B) tile: kBM (kBN), or kLdA (kLdB) when shared_pad pads it.
std::string tile_ld(const Context& c, char operand) {
  if (padded(c)) return operand == 'a' ? "kLdA" : "kLdB";
  return operand == 'a' ? "kBM" : "kBN";
}

// vector4: the first tile row (column) of the run holding a thread's i-th (j-th) fragment element.
std::string run_start(char dim) {
  return dim == 'm' ? "(tm + i / 4 * kThreadsM) * 4" : "(tn + j / 4 * kThreadsN) * 4";
}

// The tile row (column) of a thread's i-th (j-th) fragment element.
std::string frag_row(const Context& c, char dim) {
  const std::string i = dim == 'm' ? "i" : "j";
  if (runs_of_four(c)) return run_start(dim) + " + " + i + " % 4";
  return dim == 'm' ? "tm + i * kThreadsM" : "tn + j * kThreadsN";
}

class SimtMainloop final : public Mainloop {
 public:
  bool tensor() const override { return false; }
  std::string types(const Context&) const override { return ""; }
  std::string geometry(const Context& c) const override {
    const design::BlockGeometry g = design::block_geometry(c.d);
    std::ostringstream s;
    if (runs_of_four(c)) {
      s << "// Register tile: each thread owns kTM x kTN outputs, in runs of four rows and columns strided by the thread grid.\n";
    } else {
      s << "// Register tile: each thread owns kTM x kTN outputs, strided by the thread grid.\n";
    }
    s << "constexpr int kTM = " << c.d.register_tile.m << ", kTN = " << c.d.register_tile.n << ";\n";
    s << "constexpr int kThreadsM = " << g.threads_m << ", kThreadsN = " << g.threads_n << ";\n";
    s << "constexpr int kLanesM = " << g.lanes_m << ", kLanesN = " << g.lanes_n << ";\n";
    if (padded(c)) {
      s << "// Shared rows padded by four words: staging stores of consecutive k fall in distinct banks.\n";
      s << "constexpr int kLdA = " << design::simt_tile_ld(c.d, c.d.tile.m) << ", kLdB = " << design::simt_tile_ld(c.d, c.d.tile.n) << ";\n";
    }
    return s.str();
  }
  std::string operand_value(const Context& c, const std::string& v) const override {
    return c.x.simt_operand(c.d.fixed.precision, v);
  }
  std::string tile_type() const override { return "float"; }
  std::string tile_words(const Context& c, char operand) const override { return "kBK * " + tile_ld(c, operand); }
  std::string stash_layout() const override { return " ([k][row])"; }
  std::string stash_store(const Context& c, char operand) const override {
    return "tile[" + tile_index(c, operand) + "] = regs[i];\n";
  }
  std::string tile_index(const Context& c, char operand) const override { return "col * " + tile_ld(c, operand) + " + row"; }
  std::string compute_function(const Context& c) const override {
    const bool staged_a = c.staged('a'), staged_b = c.staged('b');
    const Dialect& x = c.x;
    std::ostringstream s;
    const bool guard_template = !(staged_a && staged_b);
    s << "// One k-tile on the FMA pipes: kTM x kTN outputs per thread";
    if (!staged_a || !staged_b) s << ", unstaged operands read from global memory";
    s << ".\n";
    if (guard_template) s << "template <bool kGuard>\n";
    s << x.device_fn() << " void compute_tile(";
    if (!staged_a || !staged_b) s << "const Params& p, const Tensors& t, idx_t a_base, idx_t b_base, idx_t m0, idx_t n0, idx_t k0, idx_t k_end, ";
    s << "int tm, int tn, ";
    if (staged_a) s << "const float* As, ";
    if (staged_b) s << "const float* Bs, ";
    s << "float (&acc)[kTM][kTN]) {\n";
    s << "for (int kk = 0; kk < kBK; ++kk) {\nfloat a_frag[kTM], b_frag[kTN];\n";
    const bool runs = runs_of_four(c);
    if (staged_a && runs) {
      s << x.unroll() << "for (int i = 0; i < kTM; i += 4)\n" << x.tile_run4("a_frag", "i", "As + kk * " + tile_ld(c, 'a') + " + " + run_start('m'));
    } else {
      s << x.unroll() << "for (int i = 0; i < kTM; ++i) a_frag[i] = ";
      if (staged_a) s << "As[kk * " << tile_ld(c, 'a') << " + " << frag_row(c, 'm') << "];\n";
      else s << "tile_a<kGuard>(p, " << c.source('a') << ", a_base, m0 + " << frag_row(c, 'm') << ", k0 + kk, k_end);\n";
    }
    if (staged_b && runs) {
      s << x.unroll() << "for (int j = 0; j < kTN; j += 4)\n" << x.tile_run4("b_frag", "j", "Bs + kk * " + tile_ld(c, 'b') + " + " + run_start('n'));
    } else {
      s << x.unroll() << "for (int j = 0; j < kTN; ++j) b_frag[j] = ";
      if (staged_b) s << "Bs[kk * " << tile_ld(c, 'b') << " + " << frag_row(c, 'n') << "];\n";
      else s << "tile_b<kGuard>(p, " << c.source('b') << ", b_base, n0 + " << frag_row(c, 'n') << ", k0 + kk, k_end);\n";
    }
    s << x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << x.unroll() << "for (int j = 0; j < kTN; ++j) acc[i][j] += a_frag[i] * b_frag[j];\n";
    s << "}\n";
    if (!staged_a || !staged_b) {
      s << "(void)p;\n(void)t;\n(void)a_base;\n(void)b_base;\n(void)m0;\n(void)n0;\n(void)k0;\n(void)k_end;\n";
    }
    s << "}\n\n";
    return s.str();
  }
  std::string accumulators(const Context& c) const override {
    std::ostringstream s;
    s << "// Warp (warp / kWN, warp % kWN) of the arrangement; lanes form a kLanesM x kLanesN grid.\n";
    s << "const int tm = (warp / kWN) * kLanesM + lane / kLanesN;\n";
    s << "const int tn = (warp % kWN) * kLanesN + lane % kLanesN;\n";
    s << "float acc[kTM][kTN];\n";
    s << c.x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << c.x.unroll() << "for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;\n";
    return s.str();
  }
  std::string compute_call(const Context& c, const std::string& k0, const std::string& buf) const override {
    const bool staged_a = c.staged('a'), staged_b = c.staged('b');
    std::string args;
    if (!staged_a || !staged_b) args += "p, t, " + c.fetch_base('a') + ", " + c.fetch_base('b') + ", m0, n0, " + k0 + ", k_end, ";
    args += "tm, tn, ";
    if (staged_a) args += "As + " + buf + " * " + tile_words(c, 'a') + ", ";
    if (staged_b) args += "Bs + " + buf + " * " + tile_words(c, 'b') + ", ";
    args += "acc";
    if (staged_a && staged_b) return "compute_tile(" + args + ");\n";
    return c.boundary.dispatch("compute_tile<{G}>(" + args + ");", k0);
  }
  std::string unused_after_mainloop() const override { return "(void)b_base;\n(void)a_base;\n"; }
  std::string epilogue(const Context& c, const std::string& store) const override {
    std::ostringstream s;
    const std::string ok = c.x.less("m", "p.M") + " & " + c.x.less("n", "p.N");
    if (runs_of_four(c) && !c.split_k.store_run4(c, true).empty()) {
      s << "// Epilogue: each thread stores its kTM x kTN outputs, a run of four columns at a time.\n";
      s << c.boundary.stores([&](bool guarded) {
        std::ostringstream l;
        l << c.x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << c.x.unroll() << "for (int j = 0; j < kTN; j += 4) {\n"
          << "const idx_t m = m0 + " << frag_row(c, 'm') << ", n = n0 + " << run_start('n') << ";\n"
          << "const float4 v = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);\n";
        const std::string run_store = c.split_k.store_run4(c, guarded);
        l << (guarded ? c.x.guarded(ok, run_store) : run_store + "\n") << "}\n";
        return l.str();
      });
      return s.str();
    }
    s << "// Epilogue: each thread stores its kTM x kTN outputs.\n";
    s << c.boundary.stores([&](bool guarded) {
      std::ostringstream l;
      l << c.x.unroll() << "for (int i = 0; i < kTM; ++i)\n" << c.x.unroll() << "for (int j = 0; j < kTN; ++j) {\n"
        << "const idx_t m = m0 + " << frag_row(c, 'm') << ", n = n0 + " << frag_row(c, 'n') << ";\nconst float v = acc[i][j];\n"
        << (guarded ? c.x.guarded(ok, store) : store + "\n") << "}\n";
      return l.str();
    });
    return s.str();
  }
  std::string describe(const Context&) const override { return "SIMT FMA"; }
  std::string register_tile_meaning() const override { return "outputs per thread"; }
};

REGISTER_COMPONENT(Mainloop, SimtMainloop, {"none"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
