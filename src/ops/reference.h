// CPU reference: the exact operator on the rounded inputs.
//
// Inputs are taken as the stored values (bf16/fp16/fp32), then rounded as the multiply unit of
// the chosen side sees them (tf32 on the CUDA tf32 path, fp16 on the Vortex side of a tf32 op).
// Products are exact in fp64, accumulation is fp64, bias and activation are applied in fp64,
// and the result is rounded once to the output dtype. The full reference is blocked and
// multithreaded (docs/ops.md gives the figures); reference_terms() is the naive per-element
// definition the tests check it against.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_spec.h"
#include "ops/tensor.h"

namespace vxsynth::ops {

enum class Side { cuda, vortex };

struct ReferenceOptions {
  Side side = Side::cuda;
  int threads = 0;  // 0: std::thread::hardware_concurrency() (or $VXSYNTH_THREADS when set)
};

// Checks that `inputs` match spec.inputs() in count, dtype and shape (InputError otherwise).
void check_inputs(const OpSpec& spec, const std::vector<Tensor>& inputs);

// The reference output of the whole op, named "y", dtype = the storage dtype of the path.
Tensor compute_reference(const OpSpec& spec, const std::vector<Tensor>& inputs,
                         const ReferenceOptions& options = {});

// The K products of one output element (flat index into the output), with both factors already
// rounded for `side`'s compute path, in ascending k (kernel position innermost, zero padding
// included as 0 * w), plus its bias (0 when none). Single element, unoptimised: the definition.
struct ElementTerms {
  std::vector<float> a, b;  // size K
  double bias = 0.0;
};
ElementTerms reference_terms(const OpSpec& spec, const std::vector<Tensor>& inputs,
                             std::int64_t flat_output_index, Side side = Side::cuda);

// fp64 value of selected output elements before the output rounding (act(sum + bias)), computed
// from reference_terms(): for sampled checks at full-size shapes.
std::vector<double> reference_elements_exact(const OpSpec& spec, const std::vector<Tensor>& inputs,
                                             const std::vector<std::int64_t>& flat_output_indices,
                                             Side side = Side::cuda);

// Flat input index of output element `flat_output` of a layout transform (the definition, as
// reference_terms uses it; compute_reference walks rows instead).
std::int64_t transform_source_index(const TransformParams& p, std::int64_t flat_output);

// Multi-index of a flat output index (row-major over spec.output().shape).
Shape unravel_index(const Shape& shape, std::int64_t flat);

}  // namespace vxsynth::ops
