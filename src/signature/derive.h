// From ncu counters to the ten signature metrics (formulas: ncu-profiling.md §0-§1, checked on
// an H200). Also the exact --metrics list the project asks ncu for: one source of truth.
#pragma once

#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "signature/metrics.h"
#include "signature/ncu_csv.h"
#include "signature/signature.h"

namespace vxsynth::signature {

struct CounterSpec {
  std::string_view name;  // full ncu metric name as it appears as a CSV column
  std::string_view unit;  // base unit ncu prints with --print-units base; "" = not checked
};

// Every counter the project collects, in the order passed to ncu.
const std::vector<CounterSpec>& ncu_counter_list();
// The counter whose value weighs a kernel in an operator's mean of one metric (operator_scope.h);
// nullopt for the duration and DRAM-byte weights, which come from the kernel's duration and
// dram_byte_counters(). derive_signature keeps each of them it finds in `counters`.
std::optional<std::string_view> weight_counter(OperatorWeight w);
std::array<std::string_view, 2> dram_byte_counters();  // read, write
// The comma-separated value for `ncu --metrics`.
std::string ncu_metrics_argument();
// The counters of one metric's first (preferred) recipe, comma-separated: what a profile must
// collect for that metric alone (to count the replay passes a metric set costs).
std::string ncu_metrics_argument(MetricId metric);
// The other ncu options every profile must use (cache and clock control, CSV raw page).
std::vector<std::string> ncu_required_options();

struct DeriveOptions {
  // Metrics the platform cannot measure (e.g. Jetson has no dram__* counters): recorded as
  // unmeasured without looking for their counters.
  std::set<MetricId> unmeasurable;
  // Record a metric whose counters are missing as unmeasured (with the reason) instead of
  // failing. Off by default: a missing counter is an error naming it.
  bool partial = false;
  // GEMM view of the operator (M, N, batch) when known, so the tile read from a kernel name can
  // be checked against the grid.
  std::optional<MeasuredEvidence::Problem> problem;
};

// Parses "M,N" or "M,N,BATCH" (positive integers); InputError otherwise.
MeasuredEvidence::Problem parse_problem(const std::string& text, const std::string& what);

// Parses "a,b,c" metric ids; InputError naming an unknown id.
std::set<MetricId> parse_metric_ids(const std::string& csv, const std::string& what);

KernelSignature derive_signature(const NcuTable& table, const NcuRow& row, const DeriveOptions& options);

// All rows, or those whose kernel name matches `kernel_regex` (ECMAScript, searched).
std::vector<KernelSignature> derive_signatures(const NcuTable& table, const DeriveOptions& options,
                                               const std::string& kernel_regex = "");

}  // namespace vxsynth::signature
