// vxsynth refine: the refinement loop (docs/refine.md).
//   refine --reference R.json [--reference R2.json ...] --out DIR [--budget revisions=12,device=300,rounds=0]
//          [--start D.json ...] [--name CHAIN ...]   (one each per --reference, in order)
//          [--resume] [--generator CMD] [--replay STORE]
//   refine --import-profile PROFILE_DIR --store STORE     (a `gpu profile` folder -> replay store)
//   refine --check-deferred OUT                           (candidate checks a GPU machine deferred)
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "common/error.h"
#include "refine/external.h"
#include "refine/gpu_evaluator.h"
#include "refine/loop.h"
#include "refine/platform_check.h"
#include "refine/record.h"
#include "refine/replay.h"
#include "refine/suite_run.h"

namespace vxsynth::cli {
namespace {

struct RefineOptions {
  std::vector<std::string> references, starts, names;
  std::vector<std::string> replay, known;
  std::string out, budget, generator, sim_check = "run", retention = "averaged";
  std::string import_profile, store, cache_dir, check_deferred;
  double margin = -1, pace = 0, generator_timeout = 900;
  int repeats = 0, width = 4, pair_after = 3;
  std::uint64_t seed = 0;
  bool resume = false;
  bool profile_every_kernel = false;
  std::string scope = "operator";
};

refine::Budget parse_budget(const std::string& text) {
  refine::Budget b;
  if (text.empty()) return b;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError("--budget", item, "expected KEY=VALUE (revisions=N, device=SECONDS, rounds=N)");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    try {
      std::size_t used = 0;
      const double v = std::stod(value, &used);
      if (used != value.size() || v < 0) throw std::invalid_argument("bad");
      if (key == "revisions") b.revisions = static_cast<int>(v);
      else if (key == "device") b.device_seconds = v;
      else if (key == "rounds") b.rounds = static_cast<int>(v);
      else throw InputError("--budget", key, "unknown budget (revisions, device, rounds)");
    } catch (const InputError&) {
      throw;
    } catch (const std::exception&) {
      throw InputError("--budget", key, "expected a non-negative number, got \"" + value + "\"");
    }
  }
  return b;
}

// --check-deferred OUT: the candidate checks a GPU machine without the Vortex toolchain left
// deferred, run here from the CUDA outputs it kept (OUT/checks/<key>/); one line per check in
// OUT/<chain>/deferred-checks.jsonl.
int check_deferred(const std::string& out) {
  const auto s = refine::complete_deferred_checks(out, std::cout);
  std::cout << s.checked << " deferred candidate check(s) run; " << s.failed_kept
            << " retained revision(s) failed (their chains must be rerun from the revision before)";
  if (s.missing) std::cout << "; " << s.missing << " without the CUDA output (not brought back from the GPU machine)";
  std::cout << "\n";
  return s.failed_kept == 0 ? kExitOk : kExitWorkFailed;
}

int run_refine(const RefineOptions& o) {
  if (!o.check_deferred.empty()) return check_deferred(o.check_deferred);
  if (!o.import_profile.empty()) {
    if (o.store.empty()) throw InputError("--store", "", "required with --import-profile (the replay store to write)");
    const auto keys = refine::import_profile(o.import_profile, o.store);
    std::cout << "imported " << keys.size() << " evaluations from " << o.import_profile << " into " << o.store << "\n";
    return kExitOk;
  }
  if (o.references.empty()) throw InputError("--reference", "", "required (reference.json of each chain)");
  if (o.out.empty()) throw InputError("--out", "", "required (the folder for records and evaluations)");
  if (!o.starts.empty() && o.starts.size() != o.references.size()) {
    throw InputError("--start", "", "give one --start per --reference, in the same order, or none");
  }
  if (!o.names.empty() && o.names.size() != o.references.size()) {
    throw InputError("--name", "", "give one --name per --reference, in the same order, or none");
  }
  for (const auto& n : o.names) {
    // A chain's name is its folder and the op file stem of its GPU jobs.
    const bool ok = !n.empty() && n != "." && n != ".." && n != "work" && n != "checks" && n != "evaluations" &&
                    n.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
    if (!ok) {
      throw InputError("--name", n, "expected letters, digits, '.', '_' or '-' (and not work, checks or evaluations, the run's own folders)");
    }
  }
  if (o.sim_check != "run" && o.sim_check != "skip") throw InputError("--sim-check", o.sim_check, "expected run or skip");
  refine::LoopOptions lo;
  lo.out_dir = o.out;
  lo.resume = o.resume;
  lo.budget = parse_budget(o.budget);
  lo.width = o.width;
  lo.known = o.known;
  lo.scope = signature::scope_from_key(o.scope, "", "--scope");
  if (lo.width < 1) throw InputError("--width", "", "must be at least 1");
  lo.retention = refine::retention_preset(o.retention);
  if (o.margin >= 0 || o.repeats > 0) {
    lo.retention.name = "custom";
    if (o.margin >= 0) lo.retention.margin = o.margin;
    if (o.repeats > 0) lo.retention.repeats = o.repeats;
  }
  std::vector<refine::ChainSpec> chains;
  for (std::size_t i = 0; i < o.references.size(); ++i) {
    chains.push_back({o.references[i], o.starts.empty() ? "" : o.starts[i], o.names.empty() ? "" : o.names[i]});
  }
  const std::string work = o.out + "/work";
  std::unique_ptr<refine::Evaluator> evaluator;
  if (!o.replay.empty()) {
    evaluator = std::make_unique<refine::ReplayEvaluator>(o.replay, work,
                                                          o.sim_check == "run" ? refine::SimCheck::run : refine::SimCheck::skip,
                                                          o.pace);
  } else {
    // A GPU run compares this machine's profiles with the references: refused before any
    // device time when they were captured on another GPU model.
    std::vector<std::string> references;
    for (const auto& c : chains) references.push_back(c.reference);
    refine::require_references_of_this_gpu(references);
    gpu::DriverOptions d;
    d.cache_dir = o.cache_dir;
    d.seed = o.seed;
    auto gpu = std::make_unique<refine::GpuEvaluator>(work, o.out + "/checks", lo.retention.repeats, d);
    // An operator is every kernel: none may run unprofiled.
    gpu->set_profile_every_kernel(o.profile_every_kernel || lo.scope == signature::Scope::kOperator);
    evaluator = std::move(gpu);
  }
  std::unique_ptr<refine::Strategy> strategy;
  if (!o.generator.empty()) {
    strategy = std::make_unique<refine::ExternalGenerator>(refine::ExternalOptions{o.generator, o.generator_timeout});
  } else {
    refine::BuiltinOptions bo;
    bo.pair_after = o.pair_after;
    strategy = std::make_unique<refine::BuiltinStrategy>(bo);
  }
  std::cout << "refine: " << chains.size() << " chain(s), evaluator " << evaluator->name() << ", strategy "
            << strategy->name() << ", D at " << signature::scope_key(lo.scope) << " scope, retention " << lo.retention.name
            << " (D of the mean of "
            << (o.replay.empty() ? std::to_string(lo.retention.repeats) + " profile(s)"
                                 : "the profiles the replay store holds, up to " + std::to_string(lo.retention.repeats))
            << ", margin " << lo.retention.margin
            << (lo.retention.screens() ? ", screened on " + std::to_string(lo.retention.screen_repeats) + " profile(s) first" : "")
            << ")" << (o.resume ? ", resuming" : "") << std::endl;
  const auto result = refine::run_refinement(chains, std::move(evaluator), *strategy, lo, &std::cout);
  std::cout << refine::format_table(result);
  const bool replay = !o.replay.empty();
  std::cout << "\nevaluations: " << result.evaluated << " made (" << result.evaluated - result.confirmations
            << (replay ? " candidates looked up in the replay store, " : " candidates profiled, ") << result.confirmations
            << " confirmations of screened ones), " << result.reused << " reused from " << o.out << "/evaluations"
            << (result.superseded > 0 ? " (" + std::to_string(result.superseded) +
                                            " stored for another source of the same design, measured again; kept in evaluations/superseded)"
                                      : std::string())
            << (replay ? "; device time as recorded in the store " : "; device ") << result.device_seconds << " s"
            << (result.build_seconds > 0 ? " (builds " + std::to_string(static_cast<int>(result.build_seconds + 0.5)) + " s)" : "")
            << ", simulator " << result.sim_seconds << " s\n";
  std::cout << "records:";
  for (const auto& c : result.chains) std::cout << " " << c.record_file;
  std::cout << "\n";
  // Nothing was refined when no chain's start could be scored: the run did not do its work.
  bool any_scored = false;
  for (const auto& c : result.chains) any_scored = any_scored || c.start_d.has_value();
  if (!any_scored) {
    std::cout << "no chain's start design could be scored (see each chain's stop reason)\n";
    return kExitWorkFailed;
  }
  return kExitOk;
}

const CommandRegistrar reg(
    "refine", "refinement loop: revise designs, profile, retain or revert, record every revision (resumable)", 60,
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<RefineOptions>();
      sub.add_option("--reference", o->references, "reference.json of a workload kernel (repeatable: one chain each)");
      sub.add_option("--start", o->starts, "start design per --reference (default: the reference's seed design)");
      sub.add_option("--name", o->names,
                     "chain name per --reference (default: the reference's folder name); several chains of one reference, "
                     "e.g. from several starts, need names of their own");
      sub.add_option("--out", o->out, "output folder: <chain>/revisions.jsonl, evaluations/, work/");
      sub.add_option("--budget", o->budget, "revisions=N (per chain, default 12), device=SECONDS (whole run), rounds=N");
      sub.add_flag("--resume", o->resume, "continue the run in --out after an interruption (kill -9 included)");
      sub.add_option("--generator", o->generator,
                     "external generator command (sh -c) instead of the built-in strategy; protocol in docs/refine.md");
      sub.add_option("--generator-timeout", o->generator_timeout, "seconds one generator run may take")->capture_default_str();
      sub.add_option("--replay", o->replay, "answer from this evaluation store instead of the GPU (repeatable: the first holding a candidate answers)");
      sub.add_option("--sim-check", o->sim_check,
                     "replay: run (the candidate check on the simulator when none is recorded) | skip")
          ->capture_default_str();
      sub.add_option("--replay-pace", o->pace, "replay: seconds per evaluation (to watch progress or test interruption)");
      sub.add_option("--retention", o->retention, "averaged (mean of 3 profiles, margin 0.005) | single (1 profile, 0.013) | screened (averaged's decision; "
                     "a candidate clearly worse after 1 profile is not profiled again)")
          ->capture_default_str();
      sub.add_option("--margin", o->margin, "retention margin (overrides the rule's)");
      sub.add_option("--repeats", o->repeats, "profiles per candidate (overrides the rule's)");
      sub.add_option("--width", o->width, "revisions per chain per round")->capture_default_str();
      sub.add_option("--pair-after", o->pair_after, "reverted single moves before two are combined")->capture_default_str();
      sub.add_option("--seed", o->seed, "GPU: input seed of the checks (0 = fresh)");
      sub.add_option("--cache-dir", o->cache_dir, "GPU: nvcc build cache");
      sub.add_option("--known", o->known,
                     "an earlier run's evaluation store (RUN/evaluations, repeatable): its evaluations whose source check "
                     "passed are taken over, so their candidates are not profiled again");
      sub.add_option("--scope", o->scope,
                     "what D is taken at: operator (every kernel a candidate launches against every kernel of the "
                     "reference's call, the default) or kernel (the longest kernel against the reference's hot kernel, the "
                     "paper's scope; stores made before operator scope replay only at this scope)")
          ->check(CLI::IsMember({"operator", "kernel"}))
          ->capture_default_str();
      sub.add_flag("--profile-every-kernel", o->profile_every_kernel,
                   "GPU, --scope kernel: replay every kernel of a profiled launch under ncu, auxiliary passes included "
                   "(default there: only a generated candidate's main kernel, the one D compares; operator scope always "
                   "profiles every kernel)");
      sub.add_option("--import-profile", o->import_profile, "make replay-store entries from a `gpu profile` folder of one-axis sets");
      sub.add_option("--store", o->store, "with --import-profile: the store to write");
      sub.add_option("--check-deferred", o->check_deferred,
                     "run the candidate checks a GPU run deferred (no Vortex toolchain there) in this run folder");
      sub.footer("Exit codes: 0 success, 1 the work failed, 2 bad usage or bad input.");
      return [o] { return run_refine(*o); };
    });

}  // namespace
}  // namespace vxsynth::cli
