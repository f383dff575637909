#include "refine/evaluator.h"

#include <map>

#include "common/error.h"

namespace vxsynth::refine {

CachingEvaluator::CachingEvaluator(std::unique_ptr<Evaluator> inner, EvaluationStore store, signature::Scope scope)
    : inner_(std::move(inner)), store_(std::move(store)), scope_(scope) {}

bool CachingEvaluator::answers(const Evaluation& e, const Candidate& c) const {
  if (!inner_->measures_sources()) return true;  // a replay answers with what it holds
  // A failed check needs no profile; a passed one needs profiles at this run's scope.
  return e.measured(c) && (!e.source_check.passed() || e.profiled_at(scope_));
}

bool CachingEvaluator::available(const Candidate& c) const {
  const auto e = store_.get(c.key);
  return (e && answers(*e, c)) || inner_->available(c);
}

std::vector<Evaluation> CachingEvaluator::evaluate(const std::vector<Candidate>& batch) {
  std::vector<Evaluation> out(batch.size());
  std::vector<Candidate> pending;
  std::vector<std::size_t> where;
  std::map<std::string, std::size_t> first;  // one evaluation per key, even if two chains ask
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto e = store_.get(batch[i].key);
    if (e && answers(*e, batch[i])) {
      out[i] = *e;
      ++reused_;
      continue;
    }
    if (e) {
      // Another source under the same design (another generator's text), or profiles of another
      // scope: measured again, the old evaluation kept aside.
      store_.supersede(batch[i].key);
      ++superseded_;
    }
    if (!first.count(batch[i].key)) {
      first[batch[i].key] = pending.size();
      pending.push_back(batch[i]);
      where.push_back(i);
    }
  }
  if (!pending.empty()) {
    const auto fresh = inner_->evaluate(pending);
    if (fresh.size() != pending.size()) throw WorkError("evaluator " + inner_->name() + " returned the wrong number of results");
    for (std::size_t j = 0; j < fresh.size(); ++j) {
      store_.put(fresh[j]);
      out[where[j]] = fresh[j];
      ++evaluated_;
    }
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (out[i].key.empty()) out[i] = out[where[first.at(batch[i].key)]];
  }
  return out;
}

std::vector<std::pair<CheckOutcome, double>> CachingEvaluator::candidate_check(const std::vector<Candidate>& batch) {
  std::vector<std::pair<CheckOutcome, double>> out(batch.size());
  std::vector<Candidate> pending;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto e = store_.get(batch[i].key);
    if (e && e->candidate_check && e->vortex_sha256 == batch[i].vortex_sha256) {
      out[i] = {*e->candidate_check, e->sim_seconds};
    } else {
      pending.push_back(batch[i]);
      where.push_back(i);
    }
  }
  if (!pending.empty()) {
    const auto fresh = inner_->candidate_check(pending);
    for (std::size_t j = 0; j < fresh.size(); ++j) {
      out[where[j]] = fresh[j];
      auto e = store_.get(pending[j].key);
      if (!e) throw WorkError("candidate check of " + pending[j].key + " before its evaluation");
      e->candidate_check = fresh[j].first;
      e->sim_seconds = fresh[j].second;
      e->vortex_sha256 = pending[j].vortex_sha256;
      store_.put(*e);
    }
  }
  return out;
}

}  // namespace vxsynth::refine
