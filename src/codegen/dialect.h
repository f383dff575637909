// The target-language vocabulary the shared components are written against: one Dialect per
// backend (CUDA for the H200 proxy, Vortex for the RISC-V benchmark). A component asks the
// dialect for a load, a predicate, a guarded store or a barrier and gets that side's construct.
#pragma once

#include <memory>
#include <string>

#include "design/axes.h"
#include "ops/precision.h"

namespace vxsynth::codegen {

class Dialect {
 public:
  virtual ~Dialect() = default;
  virtual bool is_cuda() const = 0;
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
  // `statement` executed only where `ok` holds (lanes diverge).
  virtual std::string guarded(const std::string& ok, const std::string& statement) const = 0;
};

std::unique_ptr<Dialect> make_cuda_dialect();
std::unique_ptr<Dialect> make_vortex_dialect();

}  // namespace vxsynth::codegen
