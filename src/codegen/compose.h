// The shared assembly of one kernel file from its components (component.h): the frame (block
// to tile mapping, batch bases, output offsets, the passes and their parameter fields) is
// written here once; everything that depends on an axis value comes from that value's
// component, everything that depends on the backend from its Dialect.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/component.h"

namespace vxsynth::codegen {

// The kernels of a design on one backend, in launch order (CUDA's split_reduce serial adds the
// K slices inside the GEMM kernel: no reduction pass there; Vortex keeps it).
std::vector<Pass> passes(const design::DesignPoint& d, Backend backend);
// Whether the GEMM kernel itself adds the K slices (split_reduce serial on CUDA), as the
// backend's split-K component says.
bool serial_split_k(const design::DesignPoint& d, Backend backend);
std::string pass_function(Pass p);  // "pad_a", "gemm", ...

// Scalar fields of the parameter block (both sides), in declaration order; arrays
// ("batch_dim", "a_stride", "b_stride") are listed with a trailing "[4]".
std::vector<std::string> param_fields(const design::DesignPoint& d);
// Tensor pointers the kernels use ("a", "b", "bias", "out", "partial", "flags", "pre", "a_pad",
// "b_pad"); "flags" (one int per output tile) only where the GEMM kernel adds the K slices.
std::vector<std::string> tensor_fields(const design::DesignPoint& d, Backend backend);

class Composer {
 public:
  // WorkError when a component of the design is missing for the backend.
  Composer(const design::DesignPoint& d, Backend backend);

  const Dialect& dialect() const { return *dialect_; }
  const Context& context() const { return context_; }

  // Headers and file-scope lines of the mainloop.
  std::string includes() const { return context_.mainloop.includes(); }
  std::string preamble() const { return context_.mainloop.preamble(); }
  // typedefs and constexpr constants of the design.
  std::string constants() const;
  // Conversions (Vortex 16-bit types) and the activation function.
  std::string scalar_helpers() const;
  // The operand accessors, batch bases, output offsets and result store.
  std::string accessors() const;
  // Staging copies and the per-tile compute of the mainloop.
  std::string mainloop_functions() const;
  // Body of one pass, given `p` (params) and `t` (tensor pointers) in scope; the pass's
  // element index is `idx` for the elementwise passes and threadIdx/blockIdx for the GEMM.
  std::string gemm_body() const;
  std::string elementwise_body(Pass pass) const;
  // Human description of each axis value as realised on this backend (header comment).
  std::string axis_summary() const;

 private:
  std::string tile_accessor(char operand) const;

  std::unique_ptr<Dialect> dialect_;
  Context context_;
};

}  // namespace vxsynth::codegen
