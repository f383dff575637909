// vxsynth distance A B: signature distance of candidate A to reference B.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "signature/distance.h"
#include "signature/format.h"
#include "signature/kernel_source.h"

namespace vxsynth::cli {
namespace {

struct DistanceOptions {
  std::string candidate, reference, config, unmeasurable;
  bool json = false;
  bool partial = false;
};

const CommandRegistrar reg(
    "distance", "signature distance D of a candidate to a reference, per metric and per pressure group", 20,
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<DistanceOptions>();
      const char* spec_help =
          "a signature or reference JSON file, or a kernel of an ncu CSV: FILE.csv#id=N (ncu launch ID) or "
          "FILE.csv#REGEX (the one kernel whose name matches); #id=N / #REGEX also pick from a signature file "
          "with several kernels";
      sub.add_option("CANDIDATE", o->candidate, spec_help)->required();
      sub.add_option("REFERENCE", o->reference, spec_help)->required();
      sub.add_option("--config", o->config,
                     "distance constants as JSON {\"schema\": \"vxsynth.distance-config/1\", ...} (default: "
                     "percent_scale 100, epsilon 1e-12, rate_scale 5, clamp [0,1], retention_margin 0.005)");
      sub.add_flag("--json", o->json, "print the report as JSON (schema vxsynth.distance/1)");
      sub.add_option("--unmeasurable", o->unmeasurable, "metric ids to record as unmeasured when reading CSV");
      sub.add_flag("--partial", o->partial, "when reading CSV, record metrics with missing counters as unmeasured");
      sub.footer("Metrics not measured on both sides are left out of D (never scored as 1). Exit codes: 0 success, "
                 "2 bad usage or bad input.");
      return [o]() -> int {
        signature::DeriveOptions options;
        options.unmeasurable = signature::parse_metric_ids(o->unmeasurable, "--unmeasurable");
        options.partial = o->partial;
        const signature::DistanceConfig cfg =
            o->config.empty() ? signature::DistanceConfig{} : signature::DistanceConfig::load(o->config);
        const auto cand = signature::load_kernel_signature(o->candidate, options);
        const auto ref = signature::load_kernel_signature(o->reference, options);
        const auto report = signature::compute_distance(cand.values, ref.values, cfg);
        if (o->json) {
          Json j{{"schema", schema_id("distance", 1)},
                 {"candidate", Json{{"source", o->candidate}, {"name", cand.name}}},
                 {"reference", Json{{"source", o->reference}, {"name", ref.name}}},
                 {"config", cfg.to_json()}};
          Json values = Json::object();
          for (const auto& m : signature::metric_table()) {
            const auto i = signature::index_of(m.id);
            values[std::string(m.key)] = Json{{"candidate", cand.values[i] ? Json(*cand.values[i]) : Json(nullptr)},
                                              {"reference", ref.values[i] ? Json(*ref.values[i]) : Json(nullptr)}};
          }
          j["values"] = values;
          j["distance"] = report.to_json();
          std::cout << dump_json(j) << "\n";
          return kExitOk;
        }
        std::cout << signature::format_distance(cand, o->candidate, ref, o->reference, report, cfg);
        return kExitOk;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
