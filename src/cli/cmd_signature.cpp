// vxsynth signature PROFILE.csv: the ten metrics per kernel from Nsight Compute raw CSV.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "common/error.h"
#include "signature/derive.h"
#include "signature/format.h"
#include "signature/operator_scope.h"

namespace vxsynth::cli {
namespace {

struct SignatureOptions {
  std::string profile;
  std::string kernel;
  std::string unmeasurable;
  std::string problem;
  bool json = false;
  bool partial = false;
  bool metrics_list = false;
  bool aggregate = false;
  std::string ids, metric;
};

// "2,3,4" -> the rows with those ncu IDs, in the file's order; InputError for an ID the file lacks.
std::vector<signature::KernelSignature> pick_ids(std::vector<signature::KernelSignature> kernels, const std::string& ids,
                                                 const std::string& file) {
  std::vector<std::string> wanted;
  std::stringstream ss(ids);
  for (std::string id; std::getline(ss, id, ',');)
    if (!id.empty()) wanted.push_back(id);
  std::vector<signature::KernelSignature> out;
  for (const auto& id : wanted) {
    bool found = false;
    for (const auto& k : kernels) found = found || k.ncu_id == id;
    if (!found) throw InputError(file, "--ids", "no launch has ID " + id);
  }
  for (auto& k : kernels)
    if (std::find(wanted.begin(), wanted.end(), k.ncu_id) != wanted.end()) out.push_back(std::move(k));
  return out;
}

const CommandRegistrar reg(
    "signature", "profile signatures (ten metrics, geometry, engine class) from ncu --csv --page raw output", 10,
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<SignatureOptions>();
      sub.add_option("PROFILE.csv", o->profile,
                     "output of ncu --csv --page raw --print-units base (ncu's ==PROF== lines and program output "
                     "before the header are skipped)");
      sub.add_option("--kernel", o->kernel, "only kernels whose name matches this regular expression");
      sub.add_flag("--json", o->json, "print {\"schema\": \"vxsynth.signature/1\", \"kernels\": [...]}");
      sub.add_option("--unmeasurable", o->unmeasurable,
                     "metric ids the platform cannot measure, e.g. arithmetic_intensity,dram_bandwidth on Jetson; "
                     "recorded as unmeasured");
      sub.add_option("--problem", o->problem,
                     "the operator's GEMM shape M,N[,BATCH], to check the tile read from the kernel name against "
                     "the grid");
      sub.add_flag("--partial", o->partial,
                   "record a metric whose counters are missing as unmeasured instead of failing");
      sub.add_option("--ids", o->ids, "only the launches with these ncu IDs, e.g. 2,3,4 (one operator call's kernels)");
      sub.add_flag("--operator", o->aggregate,
                   "also aggregate the selected kernels into one operator signature (each metric weighted by what "
                   "it is a ratio over: docs/signature.md, Operator scope); JSON under \"operator\"");
      sub.add_flag("--metrics-list", o->metrics_list,
                   "print the comma-separated --metrics list to give ncu, and nothing else");
      sub.add_option("--metric", o->metric,
                     "with --metrics-list: only the counters of this metric's preferred formula (e.g. l2_hit_rate), "
                     "to count the replay passes a set of metrics costs");
      sub.footer(
          "Exit codes: 0 success, 2 bad usage or bad input (unreadable or malformed CSV, a counter a metric needs "
          "is missing: the message names it).");
      return [o]() -> int {
        if (o->metrics_list) {
          if (!o->metric.empty()) {
            const auto ids = signature::parse_metric_ids(o->metric, "--metric");
            if (ids.size() != 1) throw InputError("", "--metric", "expected one metric id");
            std::cout << signature::ncu_metrics_argument(*ids.begin()) << "\n";
          } else {
            std::cout << signature::ncu_metrics_argument() << "\n";
          }
          return kExitOk;
        }
        if (o->profile.empty()) throw InputError("", "PROFILE.csv", "missing: give an ncu raw CSV file");
        signature::DeriveOptions options;
        options.unmeasurable = signature::parse_metric_ids(o->unmeasurable, "--unmeasurable");
        options.partial = o->partial;
        if (!o->problem.empty()) options.problem = signature::parse_problem(o->problem, "--problem");
        const auto table = signature::NcuTable::read_file(o->profile);
        auto kernels = signature::derive_signatures(table, options, o->kernel);
        if (kernels.empty()) throw InputError(o->profile, "--kernel", "no kernel name matches '" + o->kernel + "'");
        if (!o->ids.empty()) kernels = pick_ids(std::move(kernels), o->ids, o->profile);
        std::optional<signature::OperatorSignature> op;
        if (o->aggregate) op = signature::aggregate_operator(kernels, "operator of " + std::to_string(kernels.size()) + " kernel(s)", o->profile);
        if (o->json) {
          signature::SignatureFile file{o->profile, std::move(kernels), {}};  // an ncu CSV names no platform
          Json j = file.to_json();
          if (op) j["operator"] = op->to_json();
          std::cout << dump_json(j) << "\n";
          return kExitOk;
        }
        std::cout << "profile: " << o->profile << " (" << kernels.size() << " kernel launch"
                  << (kernels.size() == 1 ? "" : "es") << ")\n";
        for (const auto& k : kernels) std::cout << "\n" << signature::format_signature(k);
        if (op) std::cout << "\n" << signature::format_operator(*op);
        return kExitOk;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
