// What the tensor-core mainloops share: fragment-layout tiles in shared / local memory
// ([row][kLd]) and an epilogue that drains the accumulators through that memory so that each
// thread stores whole output rows with one bounds check.
#pragma once

#include <sstream>

#include "codegen/component.h"

namespace vxsynth::codegen {

class TensorTilesMainloop : public Mainloop {
 public:
  bool tensor() const override { return true; }
  std::string operand_value(const Context&, const std::string& v) const override { return v; }
  std::string tile_type() const override { return "smem_t"; }
  std::string tile_words(const Context&, char operand) const override { return operand == 'a' ? "kBM * kLd" : "kBN * kLd"; }
  std::string stash_layout() const override { return " ([row][kLd], fragment layout)"; }
  std::string stash_store(const Context& c, char operand) const override {
    return "tile[" + tile_index(c, operand) + "] = " + stash_value(c) + ";\n";
  }
  std::string tile_index(const Context&, char) const override { return "row * kLd + col"; }
  std::string compute_call(const Context& c, const std::string&, const std::string& buf) const override {
    return "compute_tile(As + " + buf + " * " + tile_words(c, 'a') + ", Bs + " + buf + " * " + tile_words(c, 'b') + ", wm, wn, acc);\n";
  }
  std::string unused_after_mainloop() const override { return ""; }
  std::string register_tile_meaning() const override { return "accumulator fragments per warp"; }
  std::string epilogue(const Context& c, const std::string& store) const override {
    std::ostringstream s;
    s << "// Epilogue: the accumulators go through shared memory (reusing the operand tiles) so that\n"
         "// each thread stores whole output rows with one bounds check.\n";
    s << "__syncthreads();\nfloat* Cs = reinterpret_cast<float*>(smem);\n";
    s << drain(c);
    const std::string ok = c.x.less("m", "p.M") + " & " + c.x.less("n", "p.N");
    s << "for (int e = t_id; e < kBM * kBN; e += kThreads) {\n"
      << "const idx_t m = m0 + e / kBN, n = n0 + e % kBN;\nconst float v = Cs[(e / kBN) * kCLd + e % kBN];\n";
    s << c.boundary.stores([&](bool guarded) { return guarded ? c.x.guarded(ok, store) : store + "\n"; });
    s << "}\n" << after_epilogue();
    return s.str();
  }

 protected:
  // regs[i] as a tile element.
  virtual std::string stash_value(const Context& c) const = 0;
  // The accumulators into Cs[m][kCLd], followed by a barrier.
  virtual std::string drain(const Context& c) const = 0;
  virtual std::string after_epilogue() const { return ""; }
};

}  // namespace vxsynth::codegen
