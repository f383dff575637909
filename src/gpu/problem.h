// From an op spec (ops/op_spec.h) to the candidate ABI's problem struct
// (abi/vxsynth_candidate.h), and back to words for reports.
#pragma once

#include <string>

#include "gpu/abi/vxsynth_candidate.h"
#include "common/json_io.h"
#include "ops/op_spec.h"

namespace vxsynth::gpu {

// InputError (naming `file`) when the spec cannot be expressed in ABI v1 (more than
// VXSYNTH_MAX_BATCH_RANK batch dimensions).
vxsynth_problem make_problem(const ops::OpSpec& spec, const std::string& file = "<op spec>");

Json problem_to_json(const vxsynth_problem& p);

}  // namespace vxsynth::gpu
