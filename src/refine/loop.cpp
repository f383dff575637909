#include "refine/loop.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "codegen/emit.h"
#include "common/error.h"
#include "common/text_file.h"
#include "design/seed.h"
#include "refine/platform_check.h"
#include "signature/signature.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

std::string fmt(double v, int digits = 4) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string signed_fmt(double v) { return (v >= 0 ? "+" : "") + fmt(v); }

struct Chain {
  ChainState state;
  std::unique_ptr<RecordFile> file;
  int attempts = 0;  // revisions after the start
};

struct Pending {
  Chain* chain;
  Proposal proposal;
  Candidate candidate;
  int revision;
  Evaluation evaluation;
  RevisionRecord record;
  bool may_retain = false;
  // Screening: why a candidate within the band of a fall was not profiled again (empty when it
  // was, or when it was not within the band).
  std::string unconfirmed;
  bool at_once = false;  // profiled `repeats` times in its (small) round's one job
};

Candidate candidate_for(const ChainState& c, const Proposal& p, int revision) {
  Candidate k;
  k.chain = c.name;
  k.revision = revision;
  k.design = p.design;
  k.cuda_source = p.cuda_source;
  k.vortex_kernel = p.vortex_kernel;
  if (!k.vortex_kernel.empty()) k.vortex_sha256 = sha256_file(k.vortex_kernel);
  const std::string cuda = k.cuda_source.empty() ? codegen::emit_cuda(k.design) : read_text_file(k.cuda_source);
  k.key = k.cuda_source.empty() ? design_key(k.design) : source_key(cuda);
  k.cuda_sha256 = sha256_hex(cuda);
  return k;
}

}  // namespace

LoopResult run_refinement(const std::vector<ChainSpec>& specs, std::unique_ptr<Evaluator> inner, Strategy& strategy,
                          const LoopOptions& options, std::ostream* progress) {
  if (specs.empty()) throw InputError("--reference", "", "no chain to refine");
  const auto start_time = std::chrono::steady_clock::now();
  LoopResult result;
  // Every chain's input is read before anything is written: a bad one leaves no folder behind.
  std::vector<std::unique_ptr<Chain>> chains;
  std::map<std::string, int> names;
  for (const auto& spec : specs) {
    auto c = std::make_unique<Chain>();
    ChainState& s = c->state;
    s.reference_path = spec.reference;
    s.name = spec.name.empty() ? fs::absolute(spec.reference).parent_path().filename().string() : spec.name;
    if (names[s.name]++ > 0) throw InputError("--reference", spec.reference, "two chains named " + s.name);
    using signature::Scope;
    const Scope other = signature::other_scope(options.scope);
    const auto sigs = signature::read_signatures_at(spec.reference, options.scope);
    if (sigs.empty()) throw InputError(spec.reference, "signature", "no signature");
    s.reference = sigs.front().values;
    s.reference_platform = reference_platform(spec.reference);
    const Json ref = read_json_file(spec.reference);
    if (other == Scope::kKernel || ref.contains("operator")) s.reference_other = signature::read_signatures_at(spec.reference, other).front().values;
    if (ref.contains("operator")) {
      const auto op = signature::OperatorSignature::from_json(ref["operator"], spec.reference, "operator");
      s.reference_duration_ns = op.duration_ns;
      s.reference_dram_bytes = op.dram_bytes;
    }
    for (const char* k : {"workload", "kernel", "op", "launch", "fixed_properties"}) {
      if (ref.contains(k)) s.reference_context[k] = ref[k];
    }
    s.current = spec.start_design.empty() ? design::seed_from_reference(spec.reference) : design::read_design(spec.start_design);
    s.dir = (fs::path(options.out_dir) / s.name).string();
    chains.push_back(std::move(c));
  }
  fs::create_directories(options.out_dir);
  CachingEvaluator evaluator(std::move(inner), EvaluationStore((fs::path(options.out_dir) / "evaluations").string(), true),
                             options.scope);
  for (const auto& dir : options.known) {
    const int n = import_evaluations(EvaluationStore(dir), evaluator.store());
    if (progress) *progress << "known: " << n << " evaluation(s) with a passed source check taken from " << dir << "\n";
  }
  for (auto& c : chains) {
    fs::create_directories(c->state.dir);
    c->file = std::make_unique<RecordFile>((fs::path(c->state.dir) / "revisions.jsonl").string(), options.resume);
  }
  double device = 0, sim = 0, builds = 0;
  int confirmations = 0;  // confirmation evaluations made now (not candidates of their own)

  auto score = [&](const ChainState& s, Pending& p) {
    RevisionRecord& r = p.record;
    r.chain = s.name;
    r.revision = p.revision;
    r.parent = p.revision == 0 ? -1 : s.current_revision;
    r.kind = p.revision == 0 ? "start" : p.proposal.kind;
    r.moves = p.proposal.moves;
    r.targets = p.proposal.targets;
    r.why = p.proposal.why;
    r.same_operator = p.proposal.same_operator;
    const bool evaluated = p.proposal.rejected.empty();
    r.design_name = evaluated && p.candidate.cuda_source.empty() ? design::procedural_name(p.candidate.design) : "";
    r.key = p.candidate.key;
    r.retention = options.retention;
    r.evaluator = evaluator.name();
    r.note = p.proposal.note;
    r.candidate_check.message = "run only for candidates that may be retained";
    if (!evaluated) {
      r.decision = "rejected";
      r.reason = p.proposal.rejected;
      r.source_check.message = "not run: rejected before evaluation";
      return;
    }
    const Evaluation& e = p.evaluation;
    r.cuda_sha256 = e.cuda_sha256;
    r.vortex_sha256 = p.candidate.vortex_sha256;
    r.generator = e.generator;
    r.source_check = e.source_check;
    const signature::Scope scope = options.scope;
    r.scope = scope;
    r.signature = e.mean_at(scope);
    r.profiles = static_cast<int>(e.profiles.size());
    r.device_seconds = e.device_seconds;
    if (e.profiled_at(scope)) {
      require_same_gpu(e.platform, "r" + std::to_string(p.revision) + " of chain " + s.name + " (" + e.origin + ")",
                       s.reference_platform, s.reference_path);
      const auto report = signature::compute_distance(e.mean_at(scope), s.reference, options.distance);
      r.distances = report.per_metric;
      r.d = report.d;
      const signature::Scope other = signature::other_scope(scope);
      if (s.reference_other && e.profiled_at(other))
        r.other_d = signature::compute_distance(e.mean_at(other), *s.reference_other, options.distance).d;
      const auto ns = e.operator_duration_mean(), bytes = e.operator_dram_bytes_mean();
      if (ns && s.reference_duration_ns && *s.reference_duration_ns > 0) r.time_ratio = *ns / *s.reference_duration_ns;
      if (bytes && s.reference_dram_bytes && *s.reference_dram_bytes > 0) r.dram_ratio = *bytes / *s.reference_dram_bytes;
    }
    if (p.revision > 0) {
      r.parent_d = s.current_d;
      if (r.d) r.delta_d = *r.d - s.current_d;
    }
    const int block = p.candidate.design.fixed.block_size;
    if (!e.source_check.passed()) {
      r.decision = "rejected";
      r.reason = "source-output check " + e.source_check.status + (e.source_check.message.empty() ? "" : ": " + e.source_check.message);
    } else if (e.profiled() && !e.profiled_at(scope)) {
      r.decision = "rejected";
      r.reason = "measured on its longest kernel only (an evaluation made before operator scope, or by a job that "
                 "profiled some kernels): replay it at kernel scope (--scope kernel), or profile it again";
    } else if (!e.profiled() || !r.d) {
      r.decision = "rejected";
      r.reason = "no profile with a metric measured on both sides";
    } else if (e.launch_block_size != 0 && e.launch_block_size != block) {
      r.decision = "rejected";
      r.reason = "the launch uses " + std::to_string(e.launch_block_size) + " threads per block; the fixed block size is " +
                 std::to_string(block);
    } else if (p.revision > 0 && options.retention.screens() && r.profiles < options.retention.repeats &&
               options.retention.retains(s.current_d, *r.d)) {
      // A fall on the screening profile alone is not a fall on the mean: never retained on it.
      r.decision = "reverted";
      r.reason = "delta D " + signed_fmt(*r.delta_d) + " on " + std::to_string(r.profiles) +
                 " screening profile(s), not confirmed: " +
                 (p.unconfirmed.empty() ? std::string("its confirmation was not available") : p.unconfirmed);
    } else if (p.revision == 0 || options.retention.retains(s.current_d, *r.d)) {
      p.may_retain = true;
    } else {
      r.decision = "reverted";
      r.reason = "delta D " + signed_fmt(*r.delta_d) + " is not a fall of more than the margin " + fmt(options.retention.margin);
      if (p.at_once && r.profiles >= options.retention.repeats) {
        r.reason += "; decided on " + std::to_string(r.profiles) + " profiles: a round of at most " +
                    std::to_string(options.retention.full_below) + " candidates is profiled in full at once";
      }
      if (options.retention.screens() && r.profiles < options.retention.repeats) {
        r.reason += "; screened on " + std::to_string(r.profiles) + " profile(s): " +
                    (p.unconfirmed.empty() ? "not within " + fmt(options.retention.screen_band) + " of a fall"
                                           : p.unconfirmed) +
                    ", so not profiled again";
      }
    }
  };

  auto settle = [&](std::vector<Pending>& round, int round_number) {
    // Candidate check for every candidate that may be retained, all chains at once.
    std::vector<Candidate> check;
    std::vector<Pending*> which;
    for (auto& p : round) {
      if (p.may_retain) {
        check.push_back(p.candidate);
        which.push_back(&p);
      }
    }
    if (!check.empty()) {
      const auto outcomes = evaluator.candidate_check(check);
      for (std::size_t i = 0; i < outcomes.size(); ++i) {
        which[i]->record.candidate_check = outcomes[i].first;
        which[i]->record.sim_seconds = outcomes[i].second;
        sim += outcomes[i].second;
      }
    }
    for (auto& c : chains) {
      ChainState& s = c->state;
      std::vector<Pending*> mine;
      for (auto& p : round) {
        if (p.chain == c.get()) mine.push_back(&p);
      }
      if (mine.empty()) continue;
      std::vector<Pending*> ranked;
      for (auto* p : mine) {
        if (!p->may_retain) continue;
        const CheckOutcome& cc = p->record.candidate_check;
        // skipped (replay without the simulator) and deferred (no Vortex toolchain on the GPU
        // machine; --check-deferred completes it) retain on D; the record says which.
        if (cc.passed() || cc.status == "skipped" || cc.status == "deferred") {
          ranked.push_back(p);
        } else {
          p->record.decision = "rejected";
          p->record.reason = "candidate check " + cc.status + (cc.message.empty() ? "" : ": " + cc.message);
        }
      }
      std::stable_sort(ranked.begin(), ranked.end(), [](Pending* a, Pending* b) { return *a->record.d < *b->record.d; });
      Pending* kept = ranked.empty() ? nullptr : ranked.front();
      for (auto* p : ranked) {
        if (p == kept) {
          p->record.decision = p->revision == 0 ? "start" : "retained";
          p->record.reason = p->revision == 0 ? "the chain's start design"
                                              : "D fell by " + fmt(-*p->record.delta_d) + " > margin " + fmt(options.retention.margin);
        } else {
          p->record.decision = "reverted";
          p->record.reason = "r" + std::to_string(kept->revision) + " of the same round fell further (D " + fmt(*kept->record.d) + ")";
        }
      }
      if (kept != nullptr) {
        // Every design the chain retained, by revision: `suite lock` commits the one it locks.
        // Written before the record line, and again on --resume (same content).
        const fs::path designs = fs::path(s.dir) / "designs";
        fs::create_directories(designs);
        design::write_design((designs / ("r" + std::to_string(kept->revision) + ".json")).string(), kept->candidate.design);
      }
      for (auto* p : mine) {
        p->record.round = round_number;
        s.records.push_back(p->record);
        if (!p->record.key.empty()) s.evaluated.insert(p->record.key);
        c->file->append(p->record.to_json());
        if (p->revision > 0) ++c->attempts;
      }
      if (kept != nullptr) {
        s.current = kept->candidate.design;
        s.current_revision = kept->revision;
        s.current_d = *kept->record.d;
        s.current_distances = kept->record.distances;
        s.current_signature = kept->record.signature;
      } else if (mine.front()->revision == 0) {
        s.done = true;
        s.stop_reason = "the start design was rejected: " + mine.front()->record.reason;
      }
    }
  };

  auto evaluate_round = [&](std::vector<Pending>& round) {
    std::vector<Candidate> batch;
    std::vector<Pending*> which;
    for (auto& p : round) {
      if (!p.proposal.rejected.empty()) continue;
      batch.push_back(p.candidate);
      which.push_back(&p);
    }
    const RetentionRule& rule = options.retention;
    if (!batch.empty()) {
      if (rule.screens()) {
        // A round of at most full_below candidates: every profile in this one job. (The round's
        // size, not what the store holds, decides, so a resumed run decides the same way; a
        // candidate answered from the store keeps the profiles it has.)
        const bool at_once = rule.full_below > 0 && batch.size() <= static_cast<std::size_t>(rule.full_below);
        for (std::size_t i = 0; i < batch.size(); ++i) {
          batch[i].repeats = at_once ? rule.repeats : rule.screen_repeats;
          which[i]->at_once = at_once;
        }
      }
      const auto evals = evaluator.evaluate(batch);
      for (std::size_t i = 0; i < evals.size(); ++i) {
        which[i]->evaluation = evals[i];
        device += evals[i].device_seconds;
        builds += evals[i].build_seconds;
      }
    }
    if (rule.screens()) {
      // Screening: only a start, or a candidate whose screening D is within the band of a fall,
      // is profiled again; the rest are decided on their screening profiles.
      std::vector<std::pair<double, Pending*>> near;  // (screening D, candidate) within the band
      for (Pending* p : which) {
        const Evaluation& e = p->evaluation;
        const int have = static_cast<int>(e.profiles.size());
        if (!e.source_check.passed() || have == 0 || have >= rule.repeats || !e.profiled_at(options.scope)) continue;
        const ChainState& s = p->chain->state;
        require_same_gpu(e.platform, "r" + std::to_string(p->revision) + " of chain " + s.name + " (" + e.origin + ")",
                         s.reference_platform, s.reference_path);
        const auto d = signature::compute_distance(e.mean_at(options.scope), s.reference, options.distance).d;
        if (!d || (p->revision > 0 && !rule.worth_confirming(s.current_d, *d))) continue;
        near.emplace_back(*d, p);
      }
      if (rule.confirm_best > 0) {
        // Of each chain's round, only the confirm_best lowest screening D go on (a start always).
        std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::map<const Chain*, std::vector<std::pair<double, Pending*>>> taken;
        std::vector<std::pair<double, Pending*>> kept;
        for (const auto& n : near) {
          auto& mine = taken[n.second->chain];
          if (n.second->revision == 0 || static_cast<int>(mine.size()) < rule.confirm_best) {
            mine.push_back(n);
            kept.push_back(n);
            continue;
          }
          const auto& best = mine.front();
          n.second->unconfirmed = "r" + std::to_string(best.second->revision) + " of the same round screened lower (D " +
                                  fmt(best.first) + ") and only " + (rule.confirm_best == 1 ? std::string("the lowest") : "the " + std::to_string(rule.confirm_best) + " lowest") +
                                  " of a chain's round is profiled again";
        }
        near = std::move(kept);
      }
      std::vector<Candidate> more;
      std::vector<Pending*> whose;
      for (const auto& n : near) {
        Pending* p = n.second;
        const Candidate k = confirmation_of(p->candidate, rule.repeats - static_cast<int>(p->evaluation.profiles.size()));
        if (!evaluator.available(k)) continue;  // a replay store without the confirmation
        more.push_back(k);
        whose.push_back(p);
      }
      if (!more.empty()) {
        const int made_before = evaluator.evaluated();
        const auto extra = evaluator.evaluate(more);
        confirmations += evaluator.evaluated() - made_before;
        for (std::size_t i = 0; i < extra.size(); ++i) {
          merge_confirmation(whose[i]->evaluation, extra[i]);
          device += extra[i].device_seconds;
          builds += extra[i].build_seconds;
        }
      }
    }
    for (auto& p : round) score(p.chain->state, p);
  };

  auto say = [&](const std::string& line) {
    if (progress) *progress << line << std::endl;
  };

  // Round 0: the start designs.
  {
    std::vector<Pending> round;
    for (auto& c : chains) {
      Pending p;
      p.chain = c.get();
      p.revision = c->state.next_revision++;
      p.proposal.kind = "start";
      p.proposal.design = c->state.current;
      p.proposal.why = "the chain's start design";
      p.proposal.same_operator = "generated for the reference's op with its fixed properties (engine class, data types, block size, shape)";
      p.candidate = candidate_for(c->state, p.proposal, p.revision);
      round.push_back(std::move(p));
    }
    evaluate_round(round);
    settle(round, 0);
    std::string line = "round 0: start designs evaluated |";
    for (auto& c : chains) line += " " + c->state.name + " D " + (c->state.done ? "-" : fmt(c->state.current_d));
    say(line);
  }

  for (int round_number = 1;; ++round_number) {
    if (options.budget.rounds > 0 && round_number > options.budget.rounds) {
      for (auto& c : chains) {
        if (!c->state.done) c->state.stop_reason = "round budget spent";
      }
      break;
    }
    if (options.budget.device_seconds > 0 && device >= options.budget.device_seconds) {
      for (auto& c : chains) {
        if (!c->state.done) c->state.stop_reason = "device-time budget spent (" + fmt(device, 1) + " s)";
      }
      break;
    }
    std::vector<Pending> round;
    for (auto& c : chains) {
      ChainState& s = c->state;
      if (s.done) continue;
      const int left = options.budget.revisions - c->attempts;
      if (left <= 0) {
        s.done = true;
        s.stop_reason = "revision budget spent (" + std::to_string(options.budget.revisions) + ")";
        continue;
      }
      const auto proposals =
          strategy.propose(s, std::min(options.width, left), [&evaluator](const Candidate& k) { return evaluator.available(k); });
      if (proposals.empty()) {
        s.done = true;
        // A replay proposes only what its store holds: its end is the store's, not the space's.
        s.stop_reason = evaluator.measures_sources() ? "no untried move left"
                                                     : "no untried move whose evaluation the replay store holds";
        continue;
      }
      for (const auto& prop : proposals) {
        Pending p;
        p.chain = c.get();
        p.revision = s.next_revision++;
        p.proposal = prop;
        if (prop.rejected.empty()) p.candidate = candidate_for(s, prop, p.revision);
        round.push_back(std::move(p));
      }
    }
    if (round.empty()) break;
    evaluate_round(round);
    settle(round, round_number);
    int retained = 0;
    for (const auto& p : round) retained += p.record.decision == "retained";
    std::string line = "round " + std::to_string(round_number) + ": " + std::to_string(round.size()) + " revisions, " +
                       std::to_string(retained) + " retained | best D:";
    for (auto& c : chains) line += " " + c->state.name + " " + fmt(c->state.current_d) + " (r" + std::to_string(c->state.current_revision) + ")";
    line += " | device " + fmt(device, 1) + " s";
    if (options.budget.device_seconds > 0) line += " of " + fmt(options.budget.device_seconds, 0) + " s";
    if (builds > 0) line += " (builds " + fmt(builds, 1) + " s)";
    line += ", simulator " + fmt(sim, 1) + " s, wall " +
            fmt(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count(), 1) + " s";
    say(line);
  }

  for (auto& c : chains) {
    ChainResult r;
    r.name = c->state.name;
    r.records = c->state.records;
    r.best_revision = c->state.current_revision;
    r.start_d = !r.records.empty() ? r.records.front().d : std::nullopt;
    if (r.start_d) r.best_d = c->state.current_d;
    r.stop_reason = c->state.stop_reason;
    r.record_file = (fs::path(c->state.dir) / "revisions.jsonl").string();
    // The retained design, next to the record.
    design::write_design((fs::path(c->state.dir) / "best-design.json").string(), c->state.current);
    result.chains.push_back(std::move(r));
  }
  result.evaluated = evaluator.evaluated();
  result.reused = evaluator.reused();
  result.superseded = evaluator.superseded();
  result.confirmations = confirmations;
  result.device_seconds = device;
  result.build_seconds = builds;
  result.sim_seconds = sim;
  return result;
}

std::string format_table(const LoopResult& result) {
  std::ostringstream s;
  for (const auto& c : result.chains) {
    if (c.start_d) {
      s << "\n" << c.name << ": D " << fmt(*c.start_d) << " -> " << fmt(*c.best_d) << " (best r" << c.best_revision << "); stopped: "
        << c.stop_reason << "\n";
    } else {
      s << "\n" << c.name << ": no D (the start was not scored); stopped: " << c.stop_reason << "\n";
    }
    char head[200];
    std::snprintf(head, sizeof head, "  %-4s %-6s %-8s %-48s %-8s %-9s %s\n", "rev", "parent", "kind", "move", "D", "delta", "decision");
    s << head;
    for (const auto& r : c.records) {
      std::string move = r.moves.empty() ? (r.kind == "start" ? "start" : "-") : design::to_string(r.moves);
      if (move.size() > 48) move = move.substr(0, 45) + "...";
      char line[400];
      std::snprintf(line, sizeof line, "  r%-3d %-6s %-8s %-48s %-8s %-9s %s\n", r.revision,
                    r.parent >= 0 ? ("r" + std::to_string(r.parent)).c_str() : "-", r.kind.c_str(), move.c_str(),
                    r.d ? fmt(*r.d).c_str() : "-", r.delta_d ? signed_fmt(*r.delta_d).c_str() : "-", r.decision.c_str());
      s << line;
    }
  }
  return s.str();
}

}  // namespace vxsynth::refine
