// An operator's signature: every kernel one call of the operator runs (cuDNN's layout transforms
// and its implicit GEMM, cuBLAS's GEMM and its split-K reduction, a proxy's pad and main kernels),
// as one profile. Each metric is the mean of the kernels' values weighted by the quantity the
// metric is a ratio over (the metric table's OperatorWeight column): a hit rate is summed hits
// over summed sectors, a bandwidth summed bytes over summed time, an occupancy time-weighted.
// The weights come from counters each kernel's signature keeps; a kernel signature of a profile
// collected before a weight counter was listed falls back to duration and says so.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "signature/metrics.h"
#include "signature/signature.h"

namespace vxsynth::signature {

// What a signature describes: the paper's one (hot, longest) kernel, or the whole operator.
enum class Scope : int { kKernel, kOperator };
std::string_view scope_key(Scope s);                                    // "kernel", "operator"
Scope scope_from_key(const std::string& key, const std::string& file, const std::string& field);
inline Scope other_scope(Scope s) { return s == Scope::kOperator ? Scope::kKernel : Scope::kOperator; }

struct OperatorKernel {
  std::string name, ncu_id;
  double duration_ns = 0;
  std::optional<double> dram_bytes;  // read + write; nullopt where DRAM is not measured
};

struct OperatorSignature {
  KernelSignature signature;            // the aggregate: values, duration (sum), no launch geometry
  std::vector<OperatorKernel> kernels;  // in launch order
  double duration_ns = 0;               // sum of the kernels' durations (one stream, serialised)
  std::optional<double> dram_bytes;     // sum over the kernels; nullopt if any kernel lacks it
  // Per metric: why its weight fell back to the kernels' durations ("" = weighted as the table
  // says, or a single kernel, whose value is its own whatever the weight).
  std::array<std::string, kMetricCount> approximate{};

  bool exact() const;
  Json to_json() const;
  static OperatorSignature from_json(const Json& j, const std::string& file, const std::string& where);
};

// Aggregates `kernels` (at least one; each with its duration) into the operator's signature,
// named `name`. A metric unmeasured in any kernel is unmeasured for the operator, with the
// kernels named. InputError (naming `source` and the kernel) for a kernel without a duration.
OperatorSignature aggregate_operator(const std::vector<KernelSignature>& kernels, const std::string& name,
                                     const std::string& source);

// The weight of one kernel for one metric, and whether it is the table's weight (false: the
// counter is absent and the kernel's duration stands in).
struct KernelWeight {
  double value = 0;
  bool as_table_says = true;
};
KernelWeight operator_weight(const KernelSignature& k, OperatorWeight w);

// The signatures a JSON file holds at `scope`:
//   a reference (vxsynth.reference/1): its hot kernel, or its "operator";
//   a signature file (vxsynth.signature/1): its "kernels", or its "operators" (one per profile
//     repeat) or "operator";
//   a lock's signature.json (vxsynth.locked-signature/1): its mean, which has the one scope it
//     names ("scope"; kernel when absent, as every lock made before operator scope).
// InputError naming the file when it has nothing at that scope, and what to do about it.
std::vector<KernelSignature> read_signatures_at(const std::string& path, Scope scope);

}  // namespace vxsynth::signature
