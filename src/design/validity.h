// can_implement for design points: every rule a design must keep, checked before emission.
// A rule is named by a short id (the docs list them) and explained in one sentence that says
// which values break it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "design/design_point.h"

namespace vxsynth::design {

// Capacity limits of the two sides.
inline constexpr int kCudaWarpSize = 32;
inline constexpr int kCudaMaxBlock = 1024;
inline constexpr std::int64_t kH200SharedPerBlock = 232448;  // 227 KiB, opt-in maximum on sm_90
inline constexpr int kMaxSplitK = 64;
// The cp.async ring of a prefetch cp_async design (pipeline_stages), and the depth a step to
// cp_async starts with (the classic multistage pipeline: two k-tiles in flight).
inline constexpr int kCpAsyncMinStages = 2, kCpAsyncMaxStages = 8, kCpAsyncDefaultStages = 3;
inline constexpr int kMaxThreadOutputs = 64;      // SIMT accumulators per thread
inline constexpr int kMaxWarpFragments = 16;      // WMMA accumulator fragments per warp
inline constexpr int kMaxTileDim = 256;

struct Violation {
  std::string rule;    // e.g. "block-size"
  std::string detail;  // what is wrong, with the values
};

// The first rule the design breaks, or nullopt when it can be implemented.
std::optional<Violation> can_implement(const DesignPoint& d);
// All broken rules (for reports).
std::vector<Violation> all_violations(const DesignPoint& d);
// InputError(file, "axes", "<rule>: <detail>") when a rule is broken.
void require_valid(const DesignPoint& d, const std::string& file = "<design>");

// A rule beside the built-in ones, e.g. the rule of an axis value added with add_value: `check`
// returns the detail when the design breaks it. Checked after the built-in rules.
struct Rule {
  std::string id;
  std::string description;
  std::function<std::optional<std::string>(const DesignPoint&)> check;
};
void add_rule(Rule rule);

// The rule ids with one-line descriptions (docs/design-space.md).
const std::vector<std::pair<std::string, std::string>>& rule_descriptions();

}  // namespace vxsynth::design
