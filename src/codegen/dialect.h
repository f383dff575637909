// The target-language vocabulary the components are written against: one Dialect per backend
// (dialect/cuda.cpp for the H200 proxy, dialect/vortex.cpp for the RISC-V benchmark). A
// component asks the dialect for a load, a predicate, a guarded store or a barrier and gets
// that side's construct; shared code never asks which backend it is writing for.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "design/design_point.h"
#include "ops/precision.h"

namespace vxsynth::codegen {

class Dialect {
 public:
  virtual ~Dialect() = default;
  // Qualifier of helper functions ("__device__ __forceinline__" / "static inline").
  virtual std::string device_fn() const = 0;
  virtual std::string index_type() const = 0;      // signed index type of the GEMM view
  virtual std::string predicate_type() const = 0;  // what a predicate is held in
  virtual std::string storage_type(ops::DType t) const = 0;
  virtual std::string to_float(ops::DType t, const std::string& v) const = 0;
  virtual std::string from_float(ops::DType t, const std::string& v) const = 0;
  // A load through the read-once policy.
  virtual std::string load(design::ReadOnce policy, const std::string& pointer) const = 0;
  // Predicates: a < b on non-negative values; 0 <= v < limit on a possibly negative v.
  virtual std::string less(const std::string& a, const std::string& b) const = 0;
  virtual std::string in_range(const std::string& v, const std::string& limit) const = 0;
  virtual std::string min_index(const std::string& a, const std::string& b) const = 0;
  // A guarded load: the value under `ok`, else 0.0f, never touching memory out of range.
  virtual std::string guarded_value(const std::string& ok, const std::string& load_at_offset_fmt,
                                    const std::string& offset) const = 0;
  // Loop-unrolling hint for the next loop.
  virtual std::string unroll() const = 0;
  // Four consecutive floats of a tile at `pointer` (16-byte aligned) into dst[first..first+3]:
  // one vector load where the machine has them.
  virtual std::string tile_run4(const std::string& dst, const std::string& first, const std::string& pointer) const = 0;
  virtual std::string describe_run4() const = 0;
  // `statement` executed only where `ok` holds (lanes diverge).
  virtual std::string guarded(const std::string& ok, const std::string& statement) const = 0;
  // An operand value as a SIMT mainloop of this precision computes with it.
  virtual std::string simt_operand(ops::PrecisionPath p, const std::string& v) const = 0;
  // Scalar conversions the storage types need, and the op's activation function ("" for none).
  virtual std::string conversions(const design::DesignPoint& d) const = 0;
  virtual std::string activation(ops::Activation act) const = 0;
  // The block's tile memory: its bytes, its declaration as `smem`, its name ("shared" /
  // "local") and how a staged operand is described.
  virtual std::int64_t tile_bytes(const design::DesignPoint& d) const = 0;
  virtual std::string tile_memory_decl() const = 0;
  virtual std::string tile_memory() const = 0;
  virtual std::string staged_tiles() const = 0;
  // Header-comment descriptions.
  virtual std::string describe_load(design::ReadOnce policy) const = 0;
  virtual std::string describe_guard() const = 0;
  virtual std::string precision_note(const design::DesignPoint& d) const = 0;
  virtual std::string machine_note(const design::DesignPoint& d) const = 0;

 protected:
  // Replaces every "{}" in fmt with arg.
  static std::string fill(const std::string& fmt, const std::string& arg);
};

std::unique_ptr<Dialect> make_cuda_dialect();
std::unique_ptr<Dialect> make_vortex_dialect();

}  // namespace vxsynth::codegen
