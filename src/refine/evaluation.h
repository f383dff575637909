// What one evaluation of a candidate is, and the store that keeps evaluations on disk.
//
// A candidate is a CUDA source and its Vortex counterpart: generated from a design point
// (built-in strategy) or written by an external generator. Its evaluation = the source-output
// check against the vendor operator, R profiles of the CUDA candidate and their mean metric
// values; the candidate check (Vortex benchmark on the embedded simulator vs the CUDA
// candidate's own output on the same input bits) is added for candidates that may be retained.
//
// An EvaluationStore is a folder of vxsynth.evaluation/1 files, one per candidate key. The GPU
// evaluator writes one as each evaluation finishes (so `refine --resume` never repeats it), and
// the replay evaluator answers from such a folder (docs/refine.md, "Replay store").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/generator.h"
#include "common/json_io.h"
#include "design/design_point.h"
#include "signature/metrics.h"
#include "signature/operator_scope.h"
#include "signature/platform.h"

namespace vxsynth::refine {

struct Candidate {
  std::string chain;     // the chain's name (the reference benchmark)
  int revision = 0;
  // Evaluation key: the CUDA side's identity (design_key of a design, or source_key of a CUDA
  // source an external generator wrote); the profile depends on nothing else.
  std::string key;
  design::DesignPoint design;  // the design; for sources that match no design, the parent's (op, Vortex machine)
  std::string cuda_source;     // "" = generated from `design`
  std::string vortex_kernel;   // "" = generated from `design`; else a kernel.cpp for the design's benchmark
  std::string vortex_sha256;   // of vortex_kernel ("" when generated): a recorded candidate check must match it
  // Of the CUDA source this candidate is now ("" unknown): a stored evaluation is reused only
  // for the same source, so a generator that writes other text for the design profiles again.
  std::string cuda_sha256;
  int repeats = 0;             // profiles wanted; 0 = the evaluator's own number
};


// "design-<16 hex>": the design's JSON without its "reference" (the same design serves every
// chain with the same op), hashed.
std::string design_key(const design::DesignPoint& d);
// "source-<16 hex>" of a CUDA source text.
std::string source_key(const std::string& cuda_text);
std::string sha256_hex(const std::string& text);
std::string sha256_file(const std::string& path);  // "" when the file does not exist

struct CheckOutcome {
  std::string status = "not-run";  // "passed", "failed", "error", "not-run", "skipped", "deferred"
  std::string against;             // what the output was compared with
  double max_abs_error = 0, max_rel_error = 0, worst_ratio = 0;
  std::int64_t count = 0, failed = 0;
  std::string message;             // why it failed / was skipped
  bool passed() const { return status == "passed"; }

  Json to_json() const;
  static CheckOutcome from_json(const Json& j, const std::string& file, const std::string& where);
};

struct Evaluation {
  std::string key;
  std::string design_name;  // procedural name ("" for external sources)
  CheckOutcome source_check;
  std::vector<signature::MetricValues> profiles;  // one per profile repeat
  signature::MetricValues mean{};                 // mean over the repeats (nullopt: unmeasured)
  int launch_block_size = 0;                      // threads per block of the profiled launch (0 unknown)
  double device_seconds = 0;                      // build + check + profile share of this candidate
  double build_seconds = 0;                       // of which the build (nvcc, sandbox inspection)
  std::optional<CheckOutcome> candidate_check;    // once run
  double sim_seconds = 0;                         // of the candidate check
  std::string cuda_sha256, vortex_sha256;         // of the sources evaluated ("" unknown)
  codegen::GeneratorId generator;                 // that wrote them (version 0: before versions)
  std::string origin;                             // where the numbers were measured
  signature::Platform platform;                   // the GPU they were measured on (unknown for none)

  // Operator scope: every kernel of each profiled launch aggregated, one entry per repeat, with
  // the operator's summed time and DRAM bytes. Empty in evaluations made before operator scope
  // (`profiles` is then all there is: the longest kernel's).
  std::vector<signature::MetricValues> operator_profiles;
  std::vector<double> operator_duration_ns;
  std::vector<std::optional<double>> operator_dram_bytes;
  signature::MetricValues operator_mean{};

  // Whether this evaluation measured candidate c's CUDA source (by digest, when both are known).
  bool measured(const Candidate& c) const { return cuda_sha256.empty() || c.cuda_sha256.empty() || cuda_sha256 == c.cuda_sha256; }

  bool profiled() const { return !profiles.empty(); }
  bool profiled_at(signature::Scope s) const {
    return s == signature::Scope::kOperator ? !operator_profiles.empty() && operator_profiles.size() == profiles.size()
                                            : profiled();
  }
  const signature::MetricValues& mean_at(signature::Scope s) const {
    return s == signature::Scope::kOperator ? operator_mean : mean;
  }
  // Appends one repeat's operator (its metrics, time and DRAM bytes).
  void add_operator(const signature::OperatorSignature& op);
  // Means over the repeats of the operator's time and DRAM bytes (nullopt without them).
  std::optional<double> operator_duration_mean() const;
  std::optional<double> operator_dram_bytes_mean() const;
  void set_mean();  // both means from their profiles
  Json to_json() const;
  static Evaluation from_json(const Json& j, const std::string& file);
};

// The confirmation of a screened candidate: more profiles of the same CUDA side, stored under a
// key of their own so a resumed run finds both passes.
Candidate confirmation_of(const Candidate& c, int repeats);
// A screened evaluation with its confirmation: profiles appended, the mean recomputed, device
// time summed; a confirmation whose check did not pass decides the check.
void merge_confirmation(Evaluation& screen, const Evaluation& confirm);

class EvaluationStore {
 public:
  explicit EvaluationStore(std::string dir, bool create = false);
  const std::string& dir() const { return dir_; }
  std::optional<Evaluation> get(const std::string& key) const;
  // Written to a temporary file and renamed, so a kill leaves the old entry or the new one.
  void put(const Evaluation& e) const;
  std::vector<std::string> keys() const;
  // Moves key's entry to superseded/<key>-<digest>.json (kept, never read again as the key's):
  // the candidate's source is no longer the one it measured.
  void supersede(const std::string& key) const;

 private:
  std::string path_of(const std::string& key) const;
  std::string dir_;
};

// Copies into `into` the evaluations of `from` (another run's store) that `into` lacks and whose
// source check passed; returns how many. A run given earlier runs' stores (`refine --known`)
// profiles none of the candidates they measured again. Failed or errored evaluations are left
// behind: the check may have been fixed since, and a fresh evaluation costs only device time.
int import_evaluations(const EvaluationStore& from, const EvaluationStore& into);

}  // namespace vxsynth::refine
