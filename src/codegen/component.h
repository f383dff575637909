// The components a kernel is assembled from, CUTLASS-style: one component per axis value and
// backend, chosen from the design point. A family is one axis (or one concern of the frame):
//
//   mainloop   tensor_core     how a k-tile is computed and where the accumulators live
//   staging    shared_staging  which operands are copied through shared / local tiles
//   pipeline   prefetch        how the staged k-tiles are scheduled
//   boundary   boundary        how out-of-range rows, columns and k are handled
//   epilogue   activation      where the activation is applied
//   split_k    split_k         one K range per block, or partial sums and a reduction pass
//              (+ split_reduce) (or, CUDA's serial, the slices added in turn in the GEMM kernel)
//   k_range    k_range         K compiled in or read at run time
//
// A component is registered under the names of the axis values it implements and the backends
// it serves (REGISTER_COMPONENT in its own file under components/<family>/). Shared code asks a
// component, never the backend; a component that differs per backend has one file per backend
// (<value>_cuda.cpp, <value>_vortex.cpp); one that is written once against the Dialect serves
// both. Adding an axis value = its components + a validity rule (docs/design-space.md).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen/dialect.h"
#include "design/design_point.h"

namespace vxsynth::codegen {

enum class Backend { kCuda, kVortex };
std::string to_string(Backend b);  // "cuda" | "vortex"

struct Context;

// The kernels of a design, in launch order.
enum class Pass { kPadA, kPadB, kGemm, kReduce, kActivation };

class Mainloop {
 public:
  static constexpr const char* kFamily = "mainloop";
  static std::string value_of(const design::DesignPoint& d) { return design::to_string(d.fragment); }
  virtual ~Mainloop() = default;
  virtual bool tensor() const = 0;  // accumulators in tensor-core fragments (else SIMT registers)
  // Headers and file-scope lines the mainloop needs.
  virtual std::string includes() const { return ""; }
  virtual std::string preamble() const { return ""; }
  // Typedefs of the tile element and the fragment types (after idx_t/pred_t).
  virtual std::string types(const Context& c) const = 0;
  // Geometry constants after the warp arrangement.
  virtual std::string geometry(const Context& c) const = 0;
  // A value read from an operand, as the mainloop computes it.
  virtual std::string operand_value(const Context& c, const std::string& v) const = 0;
  // Element type of a staged tile, and its words per buffer of operand 'a' / 'b'.
  virtual std::string tile_type() const = 0;
  virtual std::string tile_words(const Context& c, char operand) const = 0;
  // Comment of stash_<operand> and the statement storing regs[i] into tile[row, col].
  virtual std::string stash_layout() const = 0;
  virtual std::string stash_store(const Context& c, char operand) const = 0;  // operand 'a' or 'b'
  // The index of element (row, col) in a staged tile (the layout stash_store writes; a cp.async
  // copy lands there).
  virtual std::string tile_index(const Context& c, char operand) const = 0;
  // The per-k-tile compute function, the accumulator declaration of the GEMM body, and the call.
  virtual std::string compute_function(const Context& c) const = 0;
  virtual std::string accumulators(const Context& c) const = 0;
  virtual std::string compute_call(const Context& c, const std::string& k0, const std::string& buf) const = 0;
  virtual std::string unused_after_mainloop() const = 0;
  // The epilogue: every accumulator to `store` (a statement using m, n, v).
  virtual std::string epilogue(const Context& c, const std::string& store) const = 0;
  virtual std::string describe(const Context& c) const = 0;
  virtual std::string register_tile_meaning() const = 0;
};

class Staging {
 public:
  static constexpr const char* kFamily = "staging";
  static std::string value_of(const design::DesignPoint& d) { return design::to_string(d.staging); }
  virtual ~Staging() = default;
  virtual bool stages(char operand) const = 0;
  // constexprs, fetch/stash functions, the GEMM body's tiles, and the fetch / stash calls.
  virtual std::string constants(const Context& c) const = 0;
  virtual std::string functions(const Context& c) const = 0;
  virtual std::string tiles(const Context& c) const = 0;
  virtual std::string fetch(const Context& c, const std::string& k0) const = 0;
  virtual std::string stash(const Context& c, const std::string& buf) const = 0;
  // An asynchronous pipeline's copy of the k-tile at k0 into tile buffer `buf` (copy_<operand>:
  // global -> tile without registers), for a Pipeline whose async_copies() holds.
  virtual std::string copy(const Context& c, const std::string& k0, const std::string& buf) const = 0;
  virtual std::string describe(const Context& c) const = 0;
};

class Pipeline {
 public:
  static constexpr const char* kFamily = "pipeline";
  static std::string value_of(const design::DesignPoint& d) { return design::to_string(d.prefetch); }
  virtual ~Pipeline() = default;
  virtual int buffers(const Context& c) const = 0;
  // Whether the staged tiles are filled by asynchronous copies (cp.async) instead of fetch and
  // stash: the accessors then also say where an element lies (where_<operand>), the staging
  // component emits copy_<operand>, and functions() the copy primitives.
  virtual bool async_copies() const { return false; }
  virtual std::string functions(const Context&) const { return ""; }
  virtual std::string comment() const = 0;
  // The mainloop over [k_begin, k_end) of a staged design.
  virtual std::string loop(const Context& c) const = 0;
  virtual std::string describe(const Context& c) const = 0;
};

class BoundaryHandling {
 public:
  static constexpr const char* kFamily = "boundary";
  static std::string value_of(const design::DesignPoint& d) { return design::to_string(d.boundary); }
  virtual ~BoundaryHandling() = default;
  virtual bool padded() const = 0;  // the mainloop reads zero-padded operand copies
  // A call with "{G}" for its guard (always guarded, never, or per tile).
  virtual std::string dispatch(const std::string& call_fmt, const std::string& k0) const = 0;
  // `body(guarded)` for the guarded and/or unguarded epilogue stores.
  virtual std::string stores(const std::function<std::string(bool guarded)>& body) const = 0;
  // Lines after the batch bases in the GEMM body.
  virtual std::string frame(const Context& c) const = 0;
  // Extra operand accessor before tile_<operand> (the padded copy's reader).
  virtual std::string accessor_prefix(const Context& c, char operand) const = 0;
  // Body of the pad pass of operand 'a' / 'b' (padded designs only).
  virtual std::string pad_pass(const Context&, char) const { return ""; }
  virtual std::string describe(const Context& c) const = 0;
};

class Epilogue {
 public:
  static constexpr const char* kFamily = "epilogue";
  static std::string value_of(const design::DesignPoint& d) { return design::to_string(d.activation); }
  virtual ~Epilogue() = default;
  virtual bool separate_pass() const = 0;
  // The end of finish(): store the finished sum v of (m, n).
  virtual std::string finish(const Context& c) const = 0;
  virtual std::string pass_body(const Context& c) const = 0;  // the activation pass ("" when none)
  virtual std::string describe(const Context& c) const = 0;
};

class SplitK {
 public:
  static constexpr const char* kFamily = "split_k";
  static std::string value_of(const design::DesignPoint& d) {
    if (d.split_k <= 1) return "none";
    return design::serial_reduce(d.split_reduce) ? "serial" : "two_pass";
  }
  virtual ~SplitK() = default;
  virtual bool sliced() const = 0;
  // Whether a reduction pass (reduce_split_k) follows the GEMM kernel; a sliced component
  // without one adds the slices in the GEMM kernel (its flags in the workspace).
  virtual bool reduction_pass() const { return sliced(); }
  virtual std::string frame_comment() const = 0;  // what blockIdx.z runs over besides batches
  virtual std::string constants(const Context& c) const = 0;
  // The GEMM body's z, k_begin and k_end (`k_limit` is the K the slices cover).
  virtual std::string frame(const Context& c, const std::string& k_limit) const = 0;
  virtual std::string store() const = 0;           // the epilogue's store statement
  // The store of a run of four outputs (float4 v, the run's first output (m, n), m < M and n < N
  // checked when `guarded`), for a mainloop whose threads own runs of four columns; "" when the
  // component stores output by output.
  virtual std::string store_run4(const Context&, bool /*guarded*/) const { return ""; }
  // Around the epilogue, reached by every thread of the block (serial split-K's turn).
  virtual std::string before_epilogue(const Context&) const { return ""; }
  virtual std::string after_epilogue(const Context&) const { return ""; }
  virtual std::string finish_comment() const = 0;  // end of the comment above finish()
  virtual std::string unused_after_mainloop() const = 0;
  virtual std::string pass_body(const Context& c) const = 0;  // the reduction pass ("" when none)
  virtual std::string describe(const Context& c) const = 0;
};

class KRange {
 public:
  static constexpr const char* kFamily = "k_range";
  static std::string value_of(const design::DesignPoint& d) { return design::to_string(d.k_range); }
  virtual ~KRange() = default;
  virtual std::string k_expr() const = 0;  // the reduction length in kernel code
  virtual std::string constants(const Context& c) const = 0;
  virtual std::string describe(const Context& c) const = 0;
};

// The layout-transform family's backend half (design/transform_family.h): how a thread moves
// its elements on this backend. The kernel itself (codegen/transform_emitter.cpp) is written
// once against the Dialect and this component. Selected by the op kind: one per backend
// (components/transform/access_<backend>.cpp).
class TransformAccess {
 public:
  static constexpr const char* kFamily = "transform";
  static std::string value_of(const design::DesignPoint& d) { return ops::to_string(d.op.kind); }
  virtual ~TransformAccess() = default;
  // Where a staged tile lives ("__shared__" / "__local_mem"), for the header comment.
  virtual std::string tile_memory() const = 0;
  // Header-comment notes: of kRN-wide accesses, the read-once policy, guarded accesses.
  virtual std::string vector_note(int width) const = 0;
  virtual std::string describe_read_once(design::ReadOnce policy) const = 0;
  virtual std::string guard_note() const = 0;
  // Typedef of one kRN-wide access ("" when accesses are element by element).
  virtual std::string vector_type(int bytes) const = 0;
  // load_vec, load_one and store_vec over bits_t.
  virtual std::string access_functions(const design::DesignPoint& d, const Dialect& x) const = 0;
  // scale(bits, alpha): alpha * x in fp32 and back to the element's bits.
  virtual std::string scale_function(const design::DesignPoint& d, const Dialect& x) const = 0;
  // Whether (row, col) lies inside the transposed matrix (rows x cols).
  virtual std::string in_bounds(const Dialect& x, const std::string& row, const std::string& col) const = 0;
  // param_reads at_store: `store_base(p, i)` (the output pointer) and `store_alpha(p, i)` read
  // again for a thread's store i, where this backend keeps the kernel's parameters.
  virtual std::string store_param_functions(const Dialect& x) const = 0;
  // Where param_reads at_store reads them from (header comment).
  virtual std::string store_param_note() const = 0;
  // entry_reads: the declarations the reads need (before the kernel), and the statements at the
  // block's entry that make `count` of them and fold each into `int z` (zero at run time); the
  // kernel then offsets the output pointer by z.
  virtual std::string entry_read_functions() const = 0;
  virtual std::string entry_reads(int count) const = 0;
  virtual std::string entry_read_note() const = 0;  // where they read (header comment)
  // How read_guard column_branch's branch is made on this backend (header comment).
  virtual std::string column_branch_note() const = 0;
  // a < b for two non-negative ints, as this backend's predicate.
  virtual std::string less_than(const std::string& a, const std::string& b) const = 0;
  // The address a (possibly out-of-range) lane loads from under predicate `ok`.
  virtual std::string load_address(const std::string& offset) const = 0;
  // `loads` then `stores` (both statements) for the lanes where `ok` holds; `global` stores go
  // to global memory (else to the block's tile, where a masked lane's value is never read).
  virtual std::string guarded_copy(const Dialect& x, const std::string& loads, const std::string& stores,
                                   bool global) const = 0;
  // After the staged tile's writes ("" when the tile is not reused).
  virtual std::string after_tile() const = 0;
};

// Components by (axis value name, backend), per family.
template <typename Family>
class Registry {
 public:
  static Registry& instance() {
    static Registry r;
    return r;
  }
  void add(const std::string& value, Backend backend, std::shared_ptr<const Family> component) {
    map_[{value, backend}] = std::move(component);
  }
  void remove(const std::string& value, Backend backend) { map_.erase({value, backend}); }
  const Family* find(const std::string& value, Backend backend) const {
    const auto it = map_.find({value, backend});
    return it == map_.end() ? nullptr : it->second.get();
  }
  // WorkError naming the family, value and backend when none is registered.
  const Family& get(const std::string& value, Backend backend) const;

 private:
  std::map<std::pair<std::string, Backend>, std::shared_ptr<const Family>> map_;
};

[[noreturn]] void throw_missing_component(const char* family, const std::string& value, Backend backend);

template <typename Family>
const Family& Registry<Family>::get(const std::string& value, Backend backend) const {
  const Family* f = find(value, backend);
  if (f == nullptr) throw_missing_component(Family::kFamily, value, backend);
  return *f;
}

// Registers one component object under several values and backends at static initialisation.
template <typename Family>
struct Registration {
  Registration(std::shared_ptr<const Family> component, std::initializer_list<const char*> values,
               std::initializer_list<Backend> backends) {
    for (const char* v : values)
      for (Backend b : backends) Registry<Family>::instance().add(v, b, component);
  }
};

#define VXSYNTH_CAT_INNER(a, b) a##b
#define VXSYNTH_CAT(a, b) VXSYNTH_CAT_INNER(a, b)
// REGISTER_COMPONENT(Mainloop, SimtMainloop, {"none"}, {Backend::kCuda, Backend::kVortex});
#define REGISTER_COMPONENT(Family, Type, ...)                                                      \
  static const ::vxsynth::codegen::Registration<Family> VXSYNTH_CAT(registration_, __LINE__)( \
      std::make_shared<const Type>(), __VA_ARGS__)

// The components one design is made of, on one backend, and what they share.
struct Context {
  Context(const design::DesignPoint& design, const Dialect& dialect, Backend backend);
  const design::DesignPoint& d;
  const Dialect& x;
  ops::DType dtype;
  const Mainloop& mainloop;
  const Staging& staging;
  const Pipeline& pipeline;
  const BoundaryHandling& boundary;
  const Epilogue& epilogue;
  const SplitK& split_k;
  const KRange& k_range;

  bool tensor() const { return mainloop.tensor(); }
  bool staged(char operand) const { return staging.stages(operand); }
  std::string k_expr() const { return k_range.k_expr(); }
  // The operand the mainloop reads ("t.a" or the padded copy "t.a_pad"), and its base variable.
  std::string source(char operand) const;
  std::string fetch_base(char operand) const;
};

// Whether the operand's memory-contiguous dimension is k (else m for A, n for B).
bool a_contiguous_in_k(const design::DesignPoint& d);
bool b_contiguous_in_k(const design::DesignPoint& d);
bool is_conv(const design::DesignPoint& d);
bool channels_last(const design::DesignPoint& d);
// prefetch cp_async on CUDA: tile elements one cp.async copies for this operand: 4 (one 16-byte
// cp.async.cg: a tf32 tensor tile whose operand is K-contiguous with every group of four k in
// range together and 16-byte aligned: padded copies, or K compiled in as a multiple of 4 and no
// implicit im2col), 2 (a 4-byte pair along k of a 16-bit tile), else 1 (4 bytes).
int cp_async_elements(const design::DesignPoint& d, char operand);
// Replaces every "{G}" with the guard argument.
std::string with_guard(const std::string& fmt, const std::string& guard);

}  // namespace vxsynth::codegen
