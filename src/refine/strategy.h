// The strategy interface of the refinement loop and the built-in deterministic strategy.
//
// A strategy sees a chain's state (the retained design, its per-metric distances to the
// reference, every record so far) and proposes the next revisions. Everything it knows is
// derived from the records, so the same record always gives the same proposals (resume relies
// on it). docs/refine.md describes the built-in strategy and its response table.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "design/move.h"
#include "refine/evaluation.h"
#include "refine/record.h"
#include "signature/distance.h"
#include "signature/platform.h"

namespace vxsynth::refine {

struct ChainState {
  std::string name;
  std::string reference_path;
  Json reference_context;              // op, kernel, launch, fixed properties of reference.json
  signature::MetricValues reference{};  // the workload reference's signature, at the run's scope
  // At the other scope (nullopt: the reference has none), and the reference operator's time and
  // DRAM bytes (nullopt: captured before operator scope).
  std::optional<signature::MetricValues> reference_other;
  std::optional<double> reference_duration_ns, reference_dram_bytes;
  signature::Platform reference_platform;  // the GPU it was captured on (unknown: no platform block)
  design::DesignPoint current;         // the retained design
  int current_revision = 0;
  double current_d = 0;
  std::array<std::optional<double>, signature::kMetricCount> current_distances{};
  signature::MetricValues current_signature{};
  std::vector<RevisionRecord> records;
  std::set<std::string> evaluated;  // keys evaluated in this chain (never proposed again)
  int next_revision = 0;
  bool done = false;
  std::string stop_reason;
  std::string dir;  // OUT/<chain>
};

struct Proposal {
  std::string kind;  // "single", "pair", "external"
  std::vector<design::Move> moves;
  design::DesignPoint design;
  std::vector<std::string> targets;
  std::string why, same_operator;
  // External generators: the files written, the note, and a verdict reached before any
  // evaluation (a sandbox violation rejects the revision without running it).
  std::string cuda_source, vortex_kernel;
  Json note;
  std::string rejected;
};

using AvailableFn = std::function<bool(const Candidate&)>;

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // Up to `width` proposals for the chain's next round; none = the chain is finished.
  virtual std::vector<Proposal> propose(const ChainState& chain, int width, const AvailableFn& available) = 0;
};

// Expected size of each axis's effect on each metric, in distance units (the metric's own
// distance between before and after), as published for the method, before any observation.
using ResponseTable = std::array<std::array<double, signature::kMetricCount>, design::kAxisCount>;
const ResponseTable& prior_responses();

struct BuiltinOptions {
  int pair_after = 3;  // reverted single moves from one retained design before a pair is tried
  signature::DistanceConfig distance;
};

class BuiltinStrategy : public Strategy {
 public:
  explicit BuiltinStrategy(BuiltinOptions options = {}) : options_(std::move(options)) {}
  std::string name() const override { return "builtin"; }
  std::vector<Proposal> propose(const ChainState& chain, int width, const AvailableFn& available) override;
  // The table after the chain's own single-axis records: the mean of the prior and every
  // observed response of that axis.
  ResponseTable responses(const ChainState& chain) const;

 private:
  BuiltinOptions options_;
};

// Why a candidate changed along these axes still implements the same operator (one sentence
// per axis, for the record).
std::string same_operator_reason(const std::vector<design::Move>& moves, const design::DesignPoint& d);

}  // namespace vxsynth::refine
