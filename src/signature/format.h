// Human-readable rendering of signatures and distances (what `vxsynth signature` and
// `vxsynth distance` print).
#pragma once

#include <string>

#include "signature/distance.h"
#include "signature/signature.h"

namespace vxsynth::signature {

// A metric value with its unit, e.g. "58.39 %", "0.9922", "1014.2 FLOP/B", "1.60 TB/s".
std::string format_value(const MetricInfo& m, double v);

std::string format_signature(const KernelSignature& k);

std::string format_distance(const KernelSignature& candidate, const std::string& candidate_label,
                            const KernelSignature& reference, const std::string& reference_label,
                            const DistanceReport& report, const DistanceConfig& cfg);

}  // namespace vxsynth::signature
