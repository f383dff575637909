// Seeded, deterministic input generation (distributions in docs/ops.md, "Inputs").
//
// Each input tensor gets its own stream: splitmix64(seed, tensor index). Values are drawn
// uniformly, scaled so that every output element has variance ~1 before the activation:
//   activations (x, a, input)  U(-1, 1)
//   weights (weight, b)        U(-3/sqrt(K), 3/sqrt(K))    K = reduction length
//   bias                       U(-0.5, 0.5)
// then rounded to the storage dtype. A generated tensor is never all zeros (checked).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_spec.h"
#include "ops/tensor.h"

namespace vxsynth::ops {

// The inputs of `spec` in OpSpec::inputs() order, named and stamped with the seed.
std::vector<Tensor> generate_inputs(const OpSpec& spec, std::uint64_t seed);

// An output buffer for `spec` filled with poison (see tensor.h), as a harness must hand it to a
// kernel under test.
Tensor make_poisoned_output(const OpSpec& spec);

// Bound on |value| of the generated tensor at `input_index` (used by the tolerance analysis).
double generated_bound(const OpSpec& spec, std::size_t input_index);

// A small, well-mixed PRNG (splitmix64): deterministic across platforms and compilers.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [-1, 1), 53 random bits.
  double uniform_pm1();
  // Jumps over n draws at once (the state is a counter), so a tensor's elements can be drawn in
  // chunks on several threads with the values of one sequential stream.
  void skip(std::uint64_t n) { state_ += n * kGamma; }
  static constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ull;

 private:
  std::uint64_t state_;
};

}  // namespace vxsynth::ops
