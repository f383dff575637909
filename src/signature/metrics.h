// The ten profile-signature metrics: one table row each (id, pressure group, unit, distance
// kind, operator weight). Adding a metric or changing how one is scored is a change to this table.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vxsynth::signature {

enum class MetricId : int {
  kL1HitRate,
  kL2HitRate,
  kCoalescing,
  kComputeThroughput,
  kTensorUtilization,
  kAtomicsPerInstruction,
  kArithmeticIntensity,
  kDramBandwidth,
  kActiveLaneFraction,
  kOccupancy,
};
inline constexpr std::size_t kMetricCount = 10;

enum class PressureGroup : int { kTrafficServed, kEngineCommit, kWorkPerByte, kMachineBusy };
inline constexpr std::size_t kGroupCount = 4;

enum class Unit : int { kPercent, kFraction, kFlopPerByte, kBytePerSecond, kRatio };

// How two values of a metric are compared (constants in DistanceConfig):
//   kPercent:   |c - r| / percent_scale
//   kAbsolute:  |c - r|
//   kLogRatio:  |log2((c + epsilon) / (r + epsilon))| / rate_scale
enum class DistanceKind : int { kPercent, kAbsolute, kLogRatio };

// How one metric of an operator (every kernel one call runs) is formed from its kernels' values:
// their mean, each kernel weighted by the quantity its ratio is taken over, so a hit rate is
// summed hits over summed sectors and a bandwidth summed bytes over summed time
// (signature/operator_scope.h; docs/signature.md, "Operator scope").
enum class OperatorWeight : int { kL1Sectors, kL2Sectors, kGlobalLoadSectors, kDuration, kInstructions, kDramBytes };

struct MetricInfo {
  MetricId id;
  std::string_view key;    // stable id used in JSON and on the command line
  std::string_view title;  // for humans
  PressureGroup group;
  Unit unit;
  DistanceKind distance;
  OperatorWeight weight;
};

const std::array<MetricInfo, kMetricCount>& metric_table();
const MetricInfo& metric_info(MetricId id);
inline std::size_t index_of(MetricId id) { return static_cast<std::size_t>(id); }

// Looks up a metric by its stable key ("l1_hit_rate", ...).
std::optional<MetricId> metric_from_key(std::string_view key);

std::string_view group_key(PressureGroup g);    // "traffic_served", ...
std::string_view group_title(PressureGroup g);  // "where traffic is served", ...
std::string_view unit_key(Unit u);              // "percent", "fraction", "flop_per_byte", ...
std::string_view distance_kind_key(DistanceKind k);
std::string_view weight_key(OperatorWeight w);  // "l1_sectors", "duration", ...

// Values for one signature: nullopt = not measured.
using MetricValues = std::array<std::optional<double>, kMetricCount>;

}  // namespace vxsynth::signature
