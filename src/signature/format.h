// Human-readable rendering of signatures and distances (what `vxsynth signature` and
// `vxsynth distance` print).
#pragma once

#include <string>

#include "signature/distance.h"
#include "signature/operator_scope.h"
#include "signature/signature.h"

namespace vxsynth::signature {

// A metric value with its unit, e.g. "58.39 %", "0.9922", "1014.2 FLOP/B", "1.60 TB/s".
std::string format_value(const MetricInfo& m, double v);

std::string format_signature(const KernelSignature& k);
// The operator's kernels (duration and DRAM bytes each), its totals, its metrics and any weight
// that fell back to duration.
std::string format_operator(const OperatorSignature& op);

std::string format_distance(const KernelSignature& candidate, const std::string& candidate_label,
                            const KernelSignature& reference, const std::string& reference_label,
                            const DistanceReport& report, const DistanceConfig& cfg);

}  // namespace vxsynth::signature
