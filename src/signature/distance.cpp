#include "signature/distance.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"

namespace vxsynth::signature {

DistanceConfig DistanceConfig::from_json(const Json& j, const std::string& file) {
  require_schema(j, "distance-config", 1, file);
  DistanceConfig c;
  const std::set<std::string> known{"schema",    "percent_scale", "epsilon",         "rate_scale",
                                    "clamp_min", "clamp_max",     "retention_margin"};
  for (const auto& [k, v] : j.items())
    if (!known.count(k)) throw InputError(file, k, "unknown key in a distance configuration");
  auto num = [&](const char* key, double& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_number()) throw InputError(file, key, "expected a number");
    out = j[key].get<double>();
  };
  num("percent_scale", c.percent_scale);
  num("epsilon", c.epsilon);
  num("rate_scale", c.rate_scale);
  num("clamp_min", c.clamp_min);
  num("clamp_max", c.clamp_max);
  num("retention_margin", c.retention_margin);
  if (!(c.percent_scale > 0)) throw InputError(file, "percent_scale", "must be > 0");
  if (!(c.epsilon >= 0)) throw InputError(file, "epsilon", "must be >= 0");
  if (!(c.rate_scale > 0)) throw InputError(file, "rate_scale", "must be > 0");
  if (!(c.clamp_min <= c.clamp_max)) throw InputError(file, "clamp_min", "must be <= clamp_max");
  if (!(c.retention_margin >= 0)) throw InputError(file, "retention_margin", "must be >= 0");
  return c;
}

DistanceConfig DistanceConfig::load(const std::string& path) { return from_json(read_json_file(path), path); }

Json DistanceConfig::to_json() const {
  return Json{{"schema", schema_id("distance-config", 1)},
              {"percent_scale", percent_scale},
              {"epsilon", epsilon},
              {"rate_scale", rate_scale},
              {"clamp_min", clamp_min},
              {"clamp_max", clamp_max},
              {"retention_margin", retention_margin}};
}

double metric_distance(const MetricInfo& m, double c, double r, const DistanceConfig& cfg) {
  double d = 0;
  switch (m.distance) {
    case DistanceKind::kPercent: d = std::fabs(c - r) / cfg.percent_scale; break;
    case DistanceKind::kAbsolute: d = std::fabs(c - r); break;
    case DistanceKind::kLogRatio: d = std::fabs(std::log2((c + cfg.epsilon) / (r + cfg.epsilon))) / cfg.rate_scale; break;
  }
  if (std::isnan(d)) d = cfg.clamp_max;  // e.g. a negative rate: the worst score, never a NaN in D
  return std::clamp(d, cfg.clamp_min, cfg.clamp_max);
}

DistanceReport compute_distance(const MetricValues& candidate, const MetricValues& reference,
                                const DistanceConfig& cfg) {
  DistanceReport rep;
  double total = 0;
  for (const MetricInfo& m : metric_table()) {
    const auto i = index_of(m.id);
    if (!candidate[i] || !reference[i]) continue;
    const double d = metric_distance(m, *candidate[i], *reference[i], cfg);
    rep.per_metric[i] = d;
    rep.group_sum[static_cast<std::size_t>(m.group)] += d;
    rep.group_count[static_cast<std::size_t>(m.group)] += 1;
    total += d;
    rep.scored += 1;
  }
  if (rep.scored > 0) rep.d = total / rep.scored;
  return rep;
}

bool retains(double d_old, double d_new, const DistanceConfig& cfg) { return d_old - d_new > cfg.retention_margin; }

Json DistanceReport::to_json() const {
  Json metrics = Json::object();
  for (const MetricInfo& m : metric_table()) {
    const auto& v = per_metric[index_of(m.id)];
    metrics[std::string(m.key)] = v ? Json(*v) : Json(nullptr);
  }
  Json groups = Json::object();
  for (std::size_t g = 0; g < kGroupCount; ++g)
    groups[std::string(group_key(static_cast<PressureGroup>(g)))] = Json{{"sum", group_sum[g]}, {"scored", group_count[g]}};
  return Json{{"metrics", metrics}, {"groups", groups}, {"scored", scored}, {"D", d ? Json(*d) : Json(nullptr)}};
}

}  // namespace vxsynth::signature
