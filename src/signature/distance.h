// Signature distance: per-metric distances, per-group subtotals and D (ARCHITECTURE.md).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "common/json_io.h"
#include "signature/metrics.h"

namespace vxsynth::signature {

// Every constant of the distance, in one place; readable from JSON
// ({"schema": "vxsynth.distance-config/1", ...}); unknown keys are rejected.
struct DistanceConfig {
  double percent_scale = 100.0;     // percent metrics: |c - r| / percent_scale
  double epsilon = 1e-12;           // rate metrics: added to both sides before the log
  double rate_scale = 5.0;          // rate metrics: |log2(...)| / rate_scale  (C)
  double clamp_min = 0.0;           // each metric distance is clamped to [clamp_min, clamp_max]
  double clamp_max = 1.0;
  double retention_margin = 0.005;  // a revision is retained only when D falls by more than this

  static DistanceConfig from_json(const Json& j, const std::string& file);
  static DistanceConfig load(const std::string& path);
  Json to_json() const;
};

// Distance between candidate value c and reference value r of one metric, clamped.
double metric_distance(const MetricInfo& m, double c, double r, const DistanceConfig& cfg);

struct DistanceReport {
  // nullopt where the metric was not measured on both sides (left out of D).
  std::array<std::optional<double>, kMetricCount> per_metric{};
  std::array<double, kGroupCount> group_sum{};       // sum of the group's measured distances
  std::array<int, kGroupCount> group_count{};        // how many of the group's metrics were scored
  int scored = 0;                                    // metrics measured on both sides
  std::optional<double> d;                           // mean over scored metrics; nullopt if none

  Json to_json() const;
};

DistanceReport compute_distance(const MetricValues& candidate, const MetricValues& reference,
                                const DistanceConfig& cfg);

// True when a new D improves on the old one by more than the retention margin.
bool retains(double d_old, double d_new, const DistanceConfig& cfg);

}  // namespace vxsynth::signature
