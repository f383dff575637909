// The components one design point is assembled from, CUTLASS-style: a kernel frame (block to
// tile mapping, split-K slice, boundary dispatch, generic or fixed K range), a mainloop
// (staging, read-once loads, lane mapping, prefetch, register tiling or tensor-core fragments)
// and an epilogue (bias, fused or stripped activation, split-K partials), plus the elementwise
// passes some axis values need (padding, split-K reduction, stripped activation). Each axis
// value selects one component; both backends walk the same components through their Dialect.
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "design/design_point.h"

namespace vxsynth::codegen {

// The kernels of a design, in launch order.
enum class Pass { kPadA, kPadB, kGemm, kReduce, kActivation };
std::vector<Pass> passes(const design::DesignPoint& d);
std::string pass_function(Pass p);  // "pad_a", "gemm", ...

// Scalar fields of the parameter block (both sides), in declaration order; arrays
// ("batch_dim", "a_stride", "b_stride") are listed with a trailing "[4]".
std::vector<std::string> param_fields(const design::DesignPoint& d);
// Tensor pointers the kernels use ("a", "b", "bias", "out", "partial", "pre", "a_pad", "b_pad").
std::vector<std::string> tensor_fields(const design::DesignPoint& d);

// Whether the operand's memory-contiguous dimension is k (else m for A, n for B).
bool a_contiguous_in_k(const design::DesignPoint& d);
bool b_contiguous_in_k(const design::DesignPoint& d);

class Composer {
 public:
  Composer(const design::DesignPoint& d, const Dialect& dialect);

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
  // Human description of each axis value as realised by this dialect (header comment).
  std::string axis_summary() const;

 private:
  std::string k_expr() const;
  std::string guard_dispatch(const std::string& call_fmt, const std::string& k0) const;
  std::string tile_accessor(char operand) const;
  std::string fetch_stash(char operand) const;
  std::string compute_function() const;
  std::string epilogue() const;

  const design::DesignPoint& d_;
  const Dialect& x_;
  bool tensor_;
  bool staged_a_, staged_b_;
  ops::DType dtype_;
};

}  // namespace vxsynth::codegen
