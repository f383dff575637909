// vxsynth signature PROFILE.csv: the ten metrics per kernel from Nsight Compute raw CSV.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "common/error.h"
#include "signature/derive.h"
#include "signature/format.h"

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
};

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
      sub.add_flag("--metrics-list", o->metrics_list,
                   "print the comma-separated --metrics list to give ncu, and nothing else");
      sub.footer(
          "Exit codes: 0 success, 2 bad usage or bad input (unreadable or malformed CSV, a counter a metric needs "
          "is missing: the message names it).");
      return [o]() -> int {
        if (o->metrics_list) {
          std::cout << signature::ncu_metrics_argument() << "\n";
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
        if (o->json) {
          signature::SignatureFile file{o->profile, std::move(kernels), {}};  // an ncu CSV names no platform
          std::cout << dump_json(file.to_json()) << "\n";
          return kExitOk;
        }
        std::cout << "profile: " << o->profile << " (" << kernels.size() << " kernel launch"
                  << (kernels.size() == 1 ? "" : "es") << ")\n";
        for (const auto& k : kernels) std::cout << "\n" << signature::format_signature(k);
        return kExitOk;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
