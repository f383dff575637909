// shared_staging = none / a / b / ab: the staged operands are fetched into registers and
// stashed into shared (CUDA) / local (Vortex) tiles, in the mainloop's tile layout; the lane
// mapping axis decides whether consecutive threads walk k or the row dimension.
#include <sstream>

#include "codegen/component.h"

namespace vxsynth::codegen {
namespace {

template <bool kA, bool kB>
class OperandTiles final : public Staging {
 public:
  bool stages(char operand) const override { return operand == 'a' ? kA : kB; }
  std::string constants(const Context& c) const override {
    std::ostringstream s;
    if (kA || kB) s << "constexpr int kBuffers = " << c.pipeline.buffers(c) << ";\n";
    if ((kA || kB) && c.d.prefetch == design::Prefetch::kCpAsync) {
      s << "constexpr int kStages = kBuffers;  // the ring: kStages tiles per staged operand\n";
    }
    if (c.pipeline.async_copies()) {
      // One cp.async copies k<X>CopyElems tile elements along k: 1 (4 bytes), a 16-bit pair (4
      // bytes) or four fp32 (16 bytes, cp.async.cg).
      if (kA) {
        s << "constexpr int kACopyElems = " << cp_async_elements(c.d, 'a') << ";  // A tile elements per cp.async\n";
        s << "constexpr int kACopies = (kBM * kBK / kACopyElems + kThreads - 1) / kThreads;\n";
      }
      if (kB) {
        s << "constexpr int kBCopyElems = " << cp_async_elements(c.d, 'b') << ";  // B tile elements per cp.async\n";
        s << "constexpr int kBCopies = (kBN * kBK / kBCopyElems + kThreads - 1) / kThreads;\n";
      }
      return s.str();
    }
    if (kA) s << "constexpr int kAPerThread = (kBM * kBK + kThreads - 1) / kThreads;\n";
    if (kB) s << "constexpr int kBPerThread = (kBN * kBK + kThreads - 1) / kThreads;\n";
    return s.str();
  }
  std::string functions(const Context& c) const override {
    std::string s;
    if (kA) s += c.pipeline.async_copies() ? async_copy(c, 'a') : fetch_stash(c, 'a');
    if (kB) s += c.pipeline.async_copies() ? async_copy(c, 'b') : fetch_stash(c, 'b');
    return s;
  }
  std::string tiles(const Context& c) const override {
    std::ostringstream s;
    const std::string tile_t = c.mainloop.tile_type();
    if (kA || kB || c.tensor()) s << c.x.tile_memory_decl();
    if (kA) s << tile_t << "* As = reinterpret_cast<" << tile_t << "*>(smem);\n";
    if (kB) {
      s << tile_t << "* Bs = reinterpret_cast<" << tile_t << "*>(smem)"
        << (kA ? " + kBuffers * " + c.mainloop.tile_words(c, 'a') : "") << ";\n";
    }
    if (c.pipeline.async_copies()) return s.str();  // cp.async: no registers between global and the tiles
    if (kA) s << "float a_regs[kAPerThread];\n";
    if (kB) s << "float b_regs[kBPerThread];\n";
    return s.str();
  }
  std::string copy(const Context& c, const std::string& k0, const std::string& buf) const override {
    std::string out;
    if (kA) {
      out += "copy_a<{G}>(p, " + c.source('a') + ", " + c.fetch_base('a') + ", m0, " + k0 + ", k_end, t_id, As + " + buf +
             " * " + c.mainloop.tile_words(c, 'a') + ");";
    }
    if (kB) {
      out += (out.empty() ? "" : "\n") + std::string("copy_b<{G}>(p, ") + c.source('b') + ", " + c.fetch_base('b') +
             ", n0, " + k0 + ", k_end, t_id, Bs + " + buf + " * " + c.mainloop.tile_words(c, 'b') + ");";
    }
    return c.boundary.dispatch(out, k0);
  }
  std::string fetch(const Context& c, const std::string& k0) const override {
    std::string out;
    if (kA) out += "fetch_a<{G}>(p, " + c.source('a') + ", " + c.fetch_base('a') + ", m0, " + k0 + ", k_end, t_id, a_regs);";
    if (kB) {
      out += (out.empty() ? "" : "\n") + std::string("fetch_b<{G}>(p, ") + c.source('b') + ", " + c.fetch_base('b') +
             ", n0, " + k0 + ", k_end, t_id, b_regs);";
    }
    return c.boundary.dispatch(out, k0);
  }
  std::string stash(const Context& c, const std::string& buf) const override {
    std::string out;
    if (kA) out += "stash_a(As + " + buf + " * " + c.mainloop.tile_words(c, 'a') + ", t_id, a_regs);\n";
    if (kB) out += "stash_b(Bs + " + buf + " * " + c.mainloop.tile_words(c, 'b') + ", t_id, b_regs);\n";
    return out;
  }
  std::string describe(const Context& c) const override {
    if (!kA && !kB) return "operands read straight from global memory";
    return std::string(kA && kB ? "A and B" : (kA ? "A" : "B")) + c.x.staged_tiles();
  }

 private:
  // prefetch cp_async: copy_<operand> issues this thread's cp.async copies of one k-tile into one
  // ring stage (the same elements fetch would load, in the layout stash would store).
  static std::string async_copy(const Context& c, char operand) {
    const design::DesignPoint& d = c.d;
    const Dialect& x = c.x;
    const bool is_a = operand == 'a';
    const std::string X = is_a ? "A" : "B";
    const std::string rows = is_a ? "kBM" : "kBN";
    const std::string copies = is_a ? "kACopies" : "kBCopies";
    const std::string per_copy = is_a ? "kACopyElems" : "kBCopyElems";
    const bool contiguous_k = is_a ? a_contiguous_in_k(d) : b_contiguous_in_k(d);
    const design::LaneMap lane = is_a ? d.lane_a : d.lane_b;
    const bool k_fastest = contiguous_k == (lane == design::LaneMap::kForward);
    const int elems = cp_async_elements(d, operand);
    const std::int64_t units = std::int64_t(is_a ? d.tile.m : d.tile.n) * d.tile.k / elems;
    const bool remainder = units % d.fixed.block_size != 0;
    const std::string row0 = is_a ? "m0" : "n0";
    std::ostringstream s;
    s << "// Copy of the " << X << " tile (" << rows << " x kBK) into one ring stage by cp.async, lane mapping "
      << design::to_string(lane) << ": "
      << (elems == 1   ? "one element (4 bytes) a copy"
          : elems == 2 ? "a pair of elements along k a copy (src-size 2 when only the first is inside)"
                       : "four elements along k a copy (16 bytes, cp.async.cg; the four are inside or outside together, "
                         "16-byte aligned)")
      << "; elements outside the problem are zero-filled.\n";
    s << "template <bool kGuard>\n";
    s << x.device_fn() << " void copy_" << operand << "(const Params& p, const elem_t* src, idx_t base, idx_t " << row0
      << ", idx_t k0, idx_t k_end, int t, " << c.mainloop.tile_type() << "* tile) {\n";
    s << "for (int i = 0; i < " << copies << "; ++i) {\nconst int e = t + i * kThreads;\n";
    if (remainder) s << "if (e >= " << rows << " * kBK / " << per_copy << ") break;  // the tile's last copies are fewer than the threads\n";
    if (k_fastest) {
      s << "const int row = e / (kBK / " << per_copy << "), col = e % (kBK / " << per_copy << ") * " << per_copy
        << ";  // consecutive threads walk k\n";
    } else {
      s << "const int col = e / " << rows << " * " << per_copy << ", row = e % " << rows << ";  // consecutive threads walk "
        << (is_a ? "m" : "n") << "\n";
    }
    s << "idx_t offset;\nconst bool ok = where_" << operand << "<kGuard>(p, base, " << row0 << " + row, k0 + col, k_end, offset);\n";
    if (elems == 1) {
      s << "cp_async4(tile + " << c.mainloop.tile_index(c, operand) << ", src + offset, ok ? 4 : 0);\n";
    } else if (elems == 4) {
      s << "cp_async16(tile + " << c.mainloop.tile_index(c, operand) << ", src + offset, ok ? 16 : 0);\n";
    } else {
      s << "idx_t next;  // the pair's second element, src[offset + 1] (K-contiguous operand)\n"
        << "const bool ok_next = where_" << operand << "<kGuard>(p, base, " << row0 << " + row, k0 + col + 1, k_end, next);\n"
        << "cp_async4(tile + " << c.mainloop.tile_index(c, operand) << ", src + offset, ok ? (ok_next ? 4 : 2) : 0);\n";
    }
    s << "}\n}\n\n";
    return s.str();
  }

  static std::string fetch_stash(const Context& c, char operand) {
    const design::DesignPoint& d = c.d;
    const Dialect& x = c.x;
    const bool is_a = operand == 'a';
    const std::string X = is_a ? "A" : "B";
    const std::string rows = is_a ? "kBM" : "kBN";
    const std::string per = is_a ? "kAPerThread" : "kBPerThread";
    const bool contiguous_k = is_a ? a_contiguous_in_k(d) : b_contiguous_in_k(d);
    const design::LaneMap lane = is_a ? d.lane_a : d.lane_b;
    const bool k_fastest = contiguous_k == (lane == design::LaneMap::kForward);
    const std::int64_t elements = std::int64_t(is_a ? d.tile.m : d.tile.n) * d.tile.k;
    const bool remainder = elements % d.fixed.block_size != 0;
    std::ostringstream idx;
    idx << "const int e = "
        << (remainder ? x.min_index("t + i * kThreads", rows + " * kBK - 1") : std::string("t + i * kThreads")) << ";\n";
    if (k_fastest) {
      idx << "const int row = e / kBK, col = e % kBK;  // consecutive threads walk k\n";
    } else {
      idx << "const int col = e / " << rows << ", row = e % " << rows << ";  // consecutive threads walk "
          << (is_a ? "m" : "n") << "\n";
    }
    std::ostringstream s;
    s << "// Copy of the " << X << " tile (" << rows << " x kBK) into registers, lane mapping "
      << design::to_string(lane) << (remainder ? " (the last copy repeats the final element)" : "") << ".\n";
    s << "template <bool kGuard>\n";
    s << x.device_fn() << " void fetch_" << operand << "(const Params& p, const elem_t* src, idx_t base, idx_t "
      << (is_a ? "m0" : "n0") << ", idx_t k0, idx_t k_end, int t, float (&regs)[" << per << "]) {\n";
    s << "for (int i = 0; i < " << per << "; ++i) {\n" << idx.str();
    s << "regs[i] = tile_" << operand << "<kGuard>(p, src, base, " << (is_a ? "m0" : "n0") << " + row, k0 + col, k_end);\n}\n}\n\n";
    s << "// Stores the fetched registers into the shared " << X << " tile" << c.mainloop.stash_layout() << ".\n";
    s << x.device_fn() << " void stash_" << operand << "(" << c.mainloop.tile_type() << "* tile, int t, const float (&regs)["
      << per << "]) {\n";
    s << "for (int i = 0; i < " << per << "; ++i) {\n" << idx.str();
    s << c.mainloop.stash_store(c, operand);
    s << "}\n}\n\n";
    return s.str();
  }
};

using Unstaged = OperandTiles<false, false>;
using StagedA = OperandTiles<true, false>;
using StagedB = OperandTiles<false, true>;
using StagedAB = OperandTiles<true, true>;
REGISTER_COMPONENT(Staging, Unstaged, {"none"}, {Backend::kCuda, Backend::kVortex});
REGISTER_COMPONENT(Staging, StagedA, {"a"}, {Backend::kCuda, Backend::kVortex});
REGISTER_COMPONENT(Staging, StagedB, {"b"}, {Backend::kCuda, Backend::kVortex});
REGISTER_COMPONENT(Staging, StagedAB, {"ab"}, {Backend::kCuda, Backend::kVortex});

}  // namespace
}  // namespace vxsynth::codegen
