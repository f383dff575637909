// From one ncu raw CSV and the harness's launch list to per-candidate signatures, the
// distance of each candidate to the vendor kernel it replaces, and the run-to-run noise.
#pragma once

#include <optional>
#include <map>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "gpu/job.h"
#include "signature/derive.h"
#include "signature/distance.h"
#include "signature/ncu_csv.h"
#include "signature/operator_scope.h"
#include "signature/signature.h"

namespace vxsynth::gpu {

// Every kernel ncu profiled for one launch group, longest first: kernels[0] is the one whose
// signature stands for the group at kernel scope (the paper's); `op` is all of them aggregated in
// launch order (operator scope: signature/operator_scope.h).
struct ProfiledLaunch {
  LaunchRecord launch;
  std::vector<signature::KernelSignature> kernels;
  signature::OperatorSignature op;
  const signature::KernelSignature& primary() const { return kernels.front(); }
  const signature::KernelSignature& at(signature::Scope scope) const {
    return scope == signature::Scope::kOperator ? op.signature : primary();
  }
};

struct ProfileMapping {
  std::vector<ProfiledLaunch> launches;  // launches with at least one profiled kernel
  // Launches in which ncu saw no kernel: the candidate answered without running one on the GPU
  // (a cached copy, a host computation). Left out of `launches`; the driver fails their checks.
  std::vector<LaunchRecord> kernelless;
  std::string method;  // "stream id" or "stream order"
  // False when ncu profiled only some kernels of each launch (ncu_command's only_kernels): the
  // launches' operators are then incomplete and operator scope is refused.
  bool every_kernel = true;
};

// Assigns each CSV row to the launch whose stream it ran on (by cudaStreamGetId, falling back
// to the order of stream runs). A launch without rows goes to `kernelless` (one candidate's
// trick must not cost the batch its profiles). WorkError naming the CSV when rows and launches do not match;
// derive errors (a missing counter) propagate and name the counter.
ProfileMapping map_profile(const signature::NcuTable& table, const std::vector<LaunchRecord>& launches,
                           const signature::DeriveOptions& options);

struct MetricSpread {
  int n = 0;
  double mean = 0, min = 0, max = 0, stddev = 0;
  double spread_distance = 0;  // metric_distance(max, min): the spread in D's own units
};

struct SegmentSummary {
  std::string segment, op, candidate;
  std::string primary_kernel;
  std::vector<std::string> other_kernels;
  int repeats = 0;
  std::array<MetricSpread, signature::kMetricCount> metrics{};
  std::vector<double> d_to_reference;  // per repeat (empty for the reference itself or without one)
  std::optional<double> d_of_means;    // D between the candidate's and the reference's mean metrics
  std::vector<double> d_between_repeats;  // D for every pair of repeats of this segment
  double duration_ns_mean = 0;  // of the primary kernel
  // Whole operator (every kernel of a launch), means over the repeats.
  double operator_duration_ns_mean = 0;
  std::optional<double> operator_dram_bytes_mean;
  // Operator over the in-job vendor operator's (and over the workload reference's, when it has
  // an operator): time and DRAM bytes.
  std::optional<double> time_ratio, dram_ratio, workload_time_ratio, workload_dram_ratio;
  // D at the other scope than the summary's (kernel D when the summary is at operator scope),
  // to the workload reference: the paper's hot-kernel D beside the operator D.
  std::vector<double> d_to_workload_other_scope;
  // D of each repeat to the workload reference of the segment's op (summarize_profile's
  // `workload`): the suite's D, which can differ from D to the vendor operator profiled in
  // isolation in this job.
  std::string workload_reference;
  std::vector<double> d_to_workload;
};

struct ProfileSummary {
  signature::Scope scope = signature::Scope::kOperator;  // what the metrics and D are of
  std::string mapping_method;
  std::vector<SegmentSummary> segments;
  double retention_margin = 0.005;
  // Noise of D: largest D between two repeats of one kernel, and the largest spread (max - min)
  // of a candidate's D to its reference over repeats.
  double max_d_between_repeats = 0;
  double max_d_spread = 0;
  Json to_json() const;
  std::string text() const;
};

// A workload reference (a suite benchmark's reference.json): its hot kernel's signature and, when
// captured with it, its operator's.
struct WorkloadReference {
  std::string file;
  signature::MetricValues kernel{};
  std::optional<signature::OperatorSignature> op;
  static WorkloadReference read(const std::string& file);
};
// By op name (e.g. a suite benchmark's folder).
using WorkloadReferences = std::map<std::string, WorkloadReference>;

// Every candidate segment whose op has a workload reference also gets d_to_workload. At operator
// scope, WorkError when the mapping's operators are incomplete, and InputError naming a workload
// reference without an operator.
ProfileSummary summarize_profile(const ProfileMapping& mapping, const signature::DistanceConfig& config,
                                 const WorkloadReferences& workload = {},
                                 signature::Scope scope = signature::Scope::kOperator);

// The ncu command line (argv) that profiles `harness job.json` with the project's metrics.
// only_kernels: when not empty, ncu replays only kernels with one of these function names
// (C identifiers, any namespace); the other kernels of a launch run unprofiled. Each profiled
// kernel costs about 15 replay passes, so skipping a candidate's auxiliary passes (padding,
// split-K reduction, im2col) shortens a profile job by their share. InputError for a name that
// is not an identifier.
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& harness, const std::string& job,
                                     const std::vector<std::string>& only_kernels = {});

// The ncu --kernel-name value that selects only_kernels (above); "" when it is empty.
std::string ncu_kernel_filter(const std::vector<std::string>& only_kernels);

}  // namespace vxsynth::gpu
