// The revision record: one JSONL file per chain (OUT/<chain>/revisions.jsonl), one line per
// attempt (retained, reverted and rejected ones), appended and flushed to disk line by line.
//
// Resume: the loop is deterministic for a given record, so `refine --resume` runs it again
// from the start with every finished evaluation answered from OUT/evaluations; RecordFile then
// checks each regenerated line against the line already on disk (it must be the same, apart
// from the "at" time stamp) and appends only the lines past the end. A line cut short by a kill
// is dropped and written again. While a RecordFile is open it holds a write lock on the file
// (an open-file-description lock, which NFS honours too): a second writer, such as a requeued
// cluster task whose earlier attempt has not ended, is refused instead of interleaving lines.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "codegen/generator.h"
#include "common/json_io.h"
#include "design/move.h"
#include "refine/evaluation.h"
#include "refine/retention.h"
#include "signature/metrics.h"
#include "signature/operator_scope.h"

namespace vxsynth::refine {

inline constexpr const char* kRevisionKind = "revision";
inline constexpr int kRevisionVersion = 1;

struct RevisionRecord {
  std::string chain;
  int revision = 0;
  int parent = -1;  // the retained revision it started from (-1 for the start)
  int round = 0;
  std::string kind;  // "start", "single", "pair", "external"
  std::vector<design::Move> moves;
  std::vector<std::string> targets;  // metric keys the revision aims at
  std::string why;                   // why these metrics, why this move
  std::string same_operator;         // why the candidate still implements the same operator
  std::string design_name, key, cuda_sha256, vortex_sha256;
  codegen::GeneratorId generator;  // of the evaluation (version 0: unversioned, or not evaluated)
  CheckOutcome source_check, candidate_check;
  signature::MetricValues signature{};
  int profiles = 0;
  std::array<std::optional<double>, signature::kMetricCount> distances{};
  std::optional<double> d, parent_d, delta_d;
  // What `d` is taken at, and D at the other scope beside it (the paper's hot-kernel D beside
  // the operator D); the operator's summed time and DRAM bytes over the reference operator's.
  signature::Scope scope = signature::Scope::kKernel;
  std::optional<double> other_d;
  std::optional<double> time_ratio, dram_ratio;
  RetentionRule retention;
  std::string decision;  // "start", "retained", "reverted", "rejected"
  std::string reason;
  double device_seconds = 0, sim_seconds = 0;
  std::string evaluator;
  Json note;  // an external generator's revision note (null otherwise)

  Json to_json() const;  // without "at"; RecordFile adds it
};

class RecordFile {
 public:
  // resume = false: the file must not exist yet or be empty (never overwrite a record).
  RecordFile(std::string path, bool resume);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;
  // Appends (or, while resuming, checks against the line on disk). WorkError when a line on
  // disk differs from the regenerated one.
  void append(const Json& line);
  int existing() const { return static_cast<int>(lines_.size()); }  // complete lines found at open
  int written() const { return next_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<Json> lines_;
  std::size_t good_bytes_ = 0;
  int next_ = 0;
  bool truncated_ = false;
  int lock_fd_ = -1;
};

// The records of one file (complete lines only), for tests and tools.
std::vector<Json> read_records(const std::string& path);

}  // namespace vxsynth::refine
