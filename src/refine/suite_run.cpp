#include "refine/suite_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>
#include <unistd.h>

#include "codegen/benchmark.h"
#include "codegen/generator.h"
#include "common/error.h"
#include "design/design_point.h"
#include "design/no_op.h"
#include "design/sample.h"
#include "design/seed.h"
#include "common/process.h"
#include "common/text_file.h"
#include "ops/equivalence.h"
#include "refine/gpu_evaluator.h"
#include "refine/lock_sources.h"
#include "refine/platform_check.h"
#include "refine/record.h"
#include "refine/sim_run.h"
#include "refine/suite_effort.h"
#include "refine/suite_run_cluster.h"
#include "refine/vortex_side.h"
#include "signature/distance.h"
#include "signature/metrics.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

Json tolerance_json(const ops::Tolerance& t) {
  return {{"atol", t.atol}, {"rtol", t.rtol}, {"max_bias", t.max_bias}, {"exact", t.exact}};
}

// RUN/suite-run.json: which worker owns which chain, fixed on the first run so --resume finds
// every chain where it was.
const char* kRunFile = "suite-run.json";

std::vector<SuiteWorker> read_workers(const fs::path& run) {
  const std::string file = (run / kRunFile).string();
  const Json j = read_json_file(file);
  if (j.value("schema", "") != schema_id("suite-run", 1)) {
    throw InputError(file, "schema", "expected \"" + schema_id("suite-run", 1) + "\"");
  }
  std::vector<SuiteWorker> workers;
  for (const auto& w : j.at("workers")) {
    SuiteWorker s;
    s.index = w.at("index").get<int>();
    s.gpu = w.at("gpu").get<std::string>();
    s.dir = (run / w.at("dir").get<std::string>()).string();
    s.chains = w.at("chains").get<std::vector<std::string>>();
    workers.push_back(s);
  }
  return workers;
}

// The refine folder holding a chain: a suite run's worker folder, or `run` itself when it is
// a single `vxsynth refine` OUT folder.
std::string chain_folder(const fs::path& run, const std::string& chain) {
  if (fs::is_regular_file(run / kRunFile)) {
    for (const auto& w : read_workers(run)) {
      if (std::find(w.chains.begin(), w.chains.end(), chain) != w.chains.end()) return w.dir;
    }
    return "";
  }
  return fs::is_regular_file(run / chain / "revisions.jsonl") ? run.string() : "";
}

std::string fixed(double v, int digits) {
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(digits) << v;
  return ss.str();
}

// Column-friendly metric names for the table.
std::string short_metric(const std::string& key) {
  static const std::map<std::string, std::string> names = {
      {"l1_hit_rate", "L1"}, {"l2_hit_rate", "L2"}, {"coalescing", "coal"}, {"compute_throughput", "SM"},
      {"tensor_utilization", "TC"}, {"atomics_per_instruction", "atom"}, {"arithmetic_intensity", "AI"},
      {"dram_bandwidth", "DRAM"}, {"active_lane_fraction", "lanes"}, {"occupancy", "occ"}};
  const auto it = names.find(key);
  return it == names.end() ? key : it->second;
}

std::string short_precision(const std::string& math) {
  if (math == "bfloat16") return "bf16";
  if (math == "float16") return "fp16";
  return math;
}

}  // namespace

std::vector<std::string> visible_gpus() {
  std::vector<std::string> gpus;
  if (const char* env = std::getenv("CUDA_VISIBLE_DEVICES"); env != nullptr) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (!item.empty()) gpus.push_back(item);
    }
    return gpus;
  }
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty()) return gpus;
  std::string text;
  ProcessOptions po;
  po.capture = &text;
  po.timeout_seconds = 60;
  if (run_process({smi, "--query-gpu=index", "--format=csv,noheader"}, po).exit_code == 0) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      line.erase(std::remove_if(line.begin(), line.end(), ::isspace), line.end());
      if (!line.empty()) gpus.push_back(line);
    }
  }
  return gpus;
}

std::vector<SuiteWorker> read_suite_workers(const std::string& run) { return read_workers(run); }

namespace {

constexpr std::string_view kSuffix = ".start";  // of a benchmark's later chains: BENCH.start<k>

// Where ".start<k>" begins in a chain's name (npos for a benchmark's first chain).
std::size_t start_suffix(const std::string& chain) {
  const auto dot = chain.rfind(kSuffix);
  if (dot == std::string::npos || dot + kSuffix.size() >= chain.size()) return std::string::npos;
  for (std::size_t i = dot + kSuffix.size(); i < chain.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(chain[i]))) return std::string::npos;
  return dot;
}

}  // namespace

std::string multi_start_chain(const std::string& bench, int k) { return bench + std::string(kSuffix) + std::to_string(k); }

std::string chain_benchmark(const std::string& chain) {
  const auto dot = start_suffix(chain);
  return dot == std::string::npos ? chain : chain.substr(0, dot);
}

int chain_start_index(const std::string& chain) {
  const auto dot = start_suffix(chain);
  return dot == std::string::npos ? 1 : std::stoi(chain.substr(dot + kSuffix.size()));
}

design::DesignPoint multi_start_design(const design::DesignPoint& first, const std::string& bench, int k) {
  // A fixed hash of the name (std::hash may differ between builds): the same starts on every machine.
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : bench) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  const auto walks = design::random_designs(first, k, h, 3);
  for (auto it = walks.rbegin(); it != walks.rend(); ++it)
    if (design::procedural_name(*it) != design::procedural_name(first)) return *it;
  throw WorkError("no start for chain " + multi_start_chain(bench, k) + ": the design space around " +
                  design::procedural_name(first) + " has no other valid design");
}

std::vector<SuiteWorker> prepare_suite_run(const SuitePlan& plan, const SuiteRefineOptions& o, bool one_chain_per_worker) {
  if (o.out.empty()) throw InputError("--out", "", "required (the run folder)");
  const fs::path run = o.out;
  for (const auto& [bench, design] : o.starts) {
    if (std::none_of(plan.benchmarks.begin(), plan.benchmarks.end(), [&](const auto& b) { return b.name == bench; })) {
      throw InputError("--start", bench, "no such benchmark in " + plan.dir);
    }
  }
  std::vector<const SuiteBenchmark*> chosen;
  for (const auto& b : plan.benchmarks) {
    if (o.only.empty() || std::find(o.only.begin(), o.only.end(), b.name) != o.only.end()) chosen.push_back(&b);
  }
  for (const auto& name : o.only) {
    if (std::none_of(chosen.begin(), chosen.end(), [&](const auto* b) { return b->name == name; })) {
      throw InputError("--bench", name, "not a benchmark of " + plan.dir + " (merged references are refined through their benchmark)");
    }
  }
  std::vector<SuiteWorker> workers;
  if (fs::is_regular_file(run / kRunFile)) {
    if (!o.resume) throw InputError(o.out, "", "holds a suite run already: give --resume to continue it, or another --out");
    workers = read_workers(run);
    std::set<std::string> had, want;
    for (const auto& w : workers) had.insert(w.chains.begin(), w.chains.end());
    for (const auto* b : chosen) {
      want.insert(b->name);
      for (int k = 2; k <= o.multi_start; ++k) want.insert(multi_start_chain(b->name, k));
    }
    if (had != want) {
      throw InputError((run / kRunFile).string(), "workers",
                       "the run's chains differ from the suite's benchmarks now (the suite or --bench changed): start a new --out");
    }
    const Json j = read_json_file((run / kRunFile).string());
    const bool was_slurm = j.value("scheduler", "local") == "slurm";
    if (was_slurm != one_chain_per_worker) {
      throw InputError((run / kRunFile).string(), "scheduler",
                       std::string("the run was made ") + (was_slurm ? "with --slurm: resume it with --slurm" : "without --slurm: resume it without"));
    }
    return workers;
  }
  std::vector<std::string> gpus;
  int n = o.workers;
  if (o.multi_start < 1) throw InputError("--multi-start", std::to_string(o.multi_start), "expected at least 1 chain a benchmark");
  if (one_chain_per_worker) {
    // A Slurm array task per chain: the scheduler gives each its GPU.
    n = static_cast<int>(chosen.size()) * o.multi_start;
  } else if (!o.replay) {
    gpus = visible_gpus();
    if (gpus.empty()) throw WorkError("no GPU visible (nvidia-smi lists none): `vxsynth suite refine` profiles on the GPU, or give --replay STORE");
    if (n == 0 || n > static_cast<int>(gpus.size())) n = static_cast<int>(gpus.size());
  } else if (n == 0) {
    n = 1;
  }
  // Chains dealt out by share (largest first), so each worker gets a similar mix.
  std::vector<const SuiteBenchmark*> by_share = chosen;
  std::stable_sort(by_share.begin(), by_share.end(), [](const auto* a, const auto* b) { return a->share > b->share; });
  std::vector<std::string> chain_names;  // a benchmark's chains side by side, by share
  for (const auto* b : by_share) {
    chain_names.push_back(b->name);
    for (int k = 2; k <= o.multi_start; ++k) chain_names.push_back(multi_start_chain(b->name, k));
  }
  n = std::max(1, std::min<int>(n, static_cast<int>(chain_names.size())));
  workers.resize(n);
  for (int i = 0; i < n; ++i) {
    workers[i].index = i;
    workers[i].gpu = gpus.empty() ? "" : gpus[i];
    workers[i].dir = (run / ("worker-" + std::to_string(i))).string();
  }
  for (std::size_t k = 0; k < chain_names.size(); ++k) workers[k % n].chains.push_back(chain_names[k]);
  fs::create_directories(run);
  Json ws = Json::array();
  for (const auto& w : workers) {
    ws.push_back({{"index", w.index}, {"gpu", w.gpu}, {"dir", fs::path(w.dir).filename().string()}, {"chains", w.chains}});
  }
  write_json_file((run / kRunFile).string(), {{"schema", schema_id("suite-run", 1)},
                                              {"scheduler", one_chain_per_worker ? "slurm" : "local"},
                                              {"plan", plan.to_json()},
                                              {"workers", ws},
                                              {"refine_args", o.refine_args}});
  return workers;
}

std::vector<std::string> worker_refine_args(const SuitePlan& plan, const SuiteRefineOptions& o, const SuiteWorker& w) {
  const fs::path run = o.out;
  std::vector<std::string> argv = {"refine", "--out", w.dir};
  // Several chains of one benchmark are told apart by name, and each has its own start.
  const bool multi = std::any_of(w.chains.begin(), w.chains.end(), [](const auto& c) { return chain_benchmark(c) != c; });
  for (const auto& chain : w.chains) {
    const std::string bench = chain_benchmark(chain);
    const auto it = std::find_if(plan.benchmarks.begin(), plan.benchmarks.end(), [&](const auto& b) { return b.name == bench; });
    if (it == plan.benchmarks.end()) throw InputError((run / kRunFile).string(), "workers", "chain " + chain + " is not a benchmark of " + plan.dir);
    argv.insert(argv.end(), {"--reference", it->reference});
    if (!o.starts.empty() || multi) {
      // `vxsynth refine` takes a start for every chain or none: the others start from their
      // seed, written out here; a benchmark's later chains from walks away from its first start.
      const auto s = o.starts.find(bench);
      std::string start;
      if (s != o.starts.end() && chain == bench) {
        start = s->second;
      } else {
        start = (run / "starts" / (chain + ".json")).string();
        fs::create_directories(run / "starts");
        const design::DesignPoint first =
            s != o.starts.end() ? design::read_design(s->second) : design::seed_from_reference(it->reference);
        const int k = chain_start_index(chain);
        design::write_design(start, k == 1 ? first : multi_start_design(first, bench, k));
      }
      argv.insert(argv.end(), {"--start", start});
    }
    if (multi) argv.insert(argv.end(), {"--name", chain});
  }
  argv.insert(argv.end(), o.refine_args.begin(), o.refine_args.end());
  return argv;
}

std::string next_worker_log(const std::string& run, int index) {
  int attempt = 1;
  auto name = [&] { return fs::path(run) / ("worker-" + std::to_string(index) + ".run" + std::to_string(attempt) + ".log"); };
  while (fs::exists(name())) ++attempt;
  return name().string();
}

std::vector<SuiteWorker> refine_suite(const SuitePlan& plan, const SuiteRefineOptions& o, std::ostream& progress) {
  const fs::path run = o.out;
  std::vector<SuiteWorker> workers = prepare_suite_run(plan, o, false);
  std::mutex mu;
  std::vector<std::thread> threads;
  for (auto& w : workers) {
    std::vector<std::string> argv = worker_refine_args(plan, o, w);
    argv.insert(argv.begin(), o.self);
    if (o.resume && fs::exists(fs::path(w.dir))) argv.push_back("--resume");
    w.log = next_worker_log(o.out, w.index);
    progress << "worker " << w.index << (w.gpu.empty() ? "" : " (GPU " + w.gpu + ")") << ": " << w.chains.size()
             << " chain(s), log " << w.log << "\n";
    threads.emplace_back([&w, argv, &mu, &progress, run] {
      ProcessOptions po;
      po.stdout_path = w.log;
      po.stderr_path = w.log;
      if (!w.gpu.empty()) po.env.push_back("CUDA_VISIBLE_DEVICES=" + w.gpu);
      const auto start = std::chrono::steady_clock::now();
      {
        std::lock_guard<std::mutex> lock(mu);
        begin_task_attempt(run.string(), w, w.log);
      }
      const auto r = run_process(argv, po);
      w.exit_code = r.exit_code;
      w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard<std::mutex> lock(mu);
      end_task_attempt(run.string(), w.index, w.exit_code);
      progress << "worker " << w.index << " finished: exit " << w.exit_code << " after " << fixed(w.seconds, 1) << " s\n";
      progress.flush();
    });
  }
  progress.flush();
  for (auto& t : threads) t.join();
  return workers;
}

DeferredSummary complete_deferred_checks(const std::string& out, std::ostream& progress, const std::vector<std::string>& only_keys,
                                         bool recheck) {
  if (!fs::is_directory(out)) throw InputError(out, "", "no such run folder");
  DeferredSummary s;
  bool toolchain_checked = false;
  for (const auto& entry : fs::directory_iterator(out)) {
    const fs::path records = entry.path() / "revisions.jsonl";
    if (!fs::is_regular_file(records)) continue;
    const fs::path result_path = entry.path() / "deferred-checks.jsonl";
    std::set<int> done;
    for (const auto& l : read_records(result_path.string())) done.insert(l.value("revision", -1));
    for (const auto& r : read_records(records.string())) {
      if (r["checks"]["candidate"].value("status", "") != "deferred") continue;
      const int revision = r["revision"].get<int>();
      const std::string key = r["key"].get<std::string>();
      if (done.count(revision) && !recheck) continue;
      if (!only_keys.empty() && std::find(only_keys.begin(), only_keys.end(), key) == only_keys.end()) continue;
      const fs::path saved = fs::path(out) / "checks" / key;
      if (!fs::is_regular_file(saved / "y_candidate.tensor") && !fs::is_regular_file(saved / "y_candidate.payload.sha256")) {
        ++s.missing;
        continue;
      }
      if (!toolchain_checked) {
        if (!vortex_toolchain_present()) {
          throw WorkError("no Vortex kernel toolchain (riscv64-unknown-elf-gcc) here either: scripts/install-deps installs it");
        }
        toolchain_checked = true;
      }
      const auto [outcome, seconds] = check_saved(saved.string(), (fs::path(out) / "work" / "deferred").string());
      // The Vortex sources the check ran: a lock commits them only if they are these.
      Json sources = Json::object();
      const fs::path vdir = fs::path(out) / "work" / "deferred" / ("sim-" + key) / "vortex";
      if (fs::is_directory(vdir)) {
        for (const auto& f : fs::directory_iterator(vdir)) {
          if (f.is_regular_file()) sources[f.path().filename().string()] = sha256_file(f.path().string());
        }
      }
      Json line{{"schema", schema_id("deferred-check", 1)}, {"chain", r["chain"]}, {"revision", revision},
                {"key", key}, {"decision", r["decision"]}, {"candidate_check", outcome.to_json()}, {"sim_seconds", seconds},
                {"vortex_sources", sources}};
      std::ofstream(result_path, std::ios::app) << dump_json(line, -1) << "\n";
      const std::string decision = r["decision"].get<std::string>();
      progress << r["chain"].get<std::string>() << " r" << revision << " (" << decision << "): candidate check "
               << outcome.status << ", max abs error " << outcome.max_abs_error << ", worst/allowed " << outcome.worst_ratio
               << (outcome.message.empty() ? "" : " -- " + outcome.message.substr(0, 200)) << "\n";
      ++s.checked;
      if (!outcome.passed() && (decision == "retained" || decision == "start")) ++s.failed_kept;
    }
  }
  return s;
}

namespace {

// A passed candidate check made in another run (lock_suite's `checks_from`).
struct BorrowedCheck {
  Json check;    // the candidate check
  Json sources;  // the Vortex sources it ran (file -> sha256)
  std::string from;  // deferred-checks.jsonl, revision
};

// Every deferred-checks.jsonl under `dirs` (found once per lock, however many revisions ask).
std::vector<fs::path> deferred_check_files(const std::vector<std::string>& dirs) {
  std::vector<fs::path> out;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().filename() == "deferred-checks.jsonl" && it->is_regular_file()) out.push_back(it->path());
    }
    if (ec) throw InputError(dir, "", "cannot be read for --checks-from: " + ec.message());
  }
  return out;
}

// The passed candidate check of `rec`'s key in `files` whose sibling record of the same revision
// has `rec`'s CUDA digest and which recorded its Vortex sources; the last line of a revision in
// a file counts (a recheck may have failed it).
std::optional<BorrowedCheck> borrowed_check(const std::vector<fs::path>& files, const Json& rec) {
  const std::string key = rec.value("key", "");
  const std::string sha = rec.contains("sources") ? rec["sources"].value("cuda_sha256", "") : "";
  if (key.empty() || sha.empty()) return std::nullopt;
  for (const auto& file : files) {
    std::map<int, Json> last;
    for (const auto& l : read_records(file.string())) {
      if (l.value("key", "") == key) last[l.value("revision", -1)] = l;
    }
    if (last.empty()) continue;
    const fs::path records = file.parent_path() / "revisions.jsonl";
    if (!fs::is_regular_file(records)) continue;
    const auto recs = read_records(records.string());
    for (const auto& [revision, l] : last) {
      if (l["candidate_check"].value("status", "") != "passed") continue;
      if (!l.contains("vortex_sources") || !l["vortex_sources"].is_object() || l["vortex_sources"].empty()) continue;
      for (const auto& r : recs) {
        if (r.value("revision", -2) != revision || r.value("key", "") != key || !r.contains("sources")) continue;
        if (r["sources"].value("cuda_sha256", "") != sha) continue;
        return BorrowedCheck{l["candidate_check"], l["vortex_sources"], file.string() + " r" + std::to_string(revision)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<const Json*> lock_candidates(const std::vector<Json>& lines) {
  std::vector<const Json*> kept;
  for (const auto& l : lines) {
    const std::string decision = l.value("decision", "");
    if ((decision == "start" || decision == "retained") && l.contains("checks") &&
        l["checks"].value("source", Json::object()).value("status", "") == "passed" && l.contains("d") && l["d"].is_number()) {
      kept.push_back(&l);
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Json* a, const Json* c) { return (*a)["d"].get<double>() < (*c)["d"].get<double>(); });
  return kept;
}

LockChoice choose_lock_revision(const std::vector<const Json*>& candidates,
                                const std::function<ResolvedCheck(const Json&)>& check_of) {
  LockChoice choice;
  for (const Json* l : candidates) {
    ResolvedCheck r = check_of(*l);
    const std::string status = r.check.value("status", "");
    if (status == "passed") {
      choice.record = l;
      choice.check = std::move(r);
      return choice;
    }
    std::string why = "r" + std::to_string((*l)["revision"].get<int>()) + " (candidate check " + (status.empty() ? "?" : status);
    if (!r.why_not.empty()) why += ": " + r.why_not;
    choice.passed_over.push_back(why + ")");
  }
  return choice;
}

std::vector<LockResult> lock_suite(const SuitePlan& plan, const std::string& run_dir, const std::vector<std::string>& benches,
                                   std::ostream& progress, bool recheck, const std::string& chain,
                                   const std::vector<std::string>& checks_from) {
  const fs::path run = run_dir;
  if (!fs::is_directory(run)) throw InputError(run_dir, "", "no such run folder");
  for (const auto& dir : checks_from) {
    if (!fs::is_directory(dir)) throw InputError("--checks-from", dir, "no such folder");
  }
  std::optional<std::vector<fs::path>> borrowable;  // checks_from's deferred-checks.jsonl files, found when first needed
  if (!chain.empty() && benches.size() != 1) {
    throw InputError("--chain", chain, "locks one benchmark from that chain: give exactly one --bench");
  }
  for (const auto& name : benches) {
    if (std::none_of(plan.benchmarks.begin(), plan.benchmarks.end(), [&](const auto& b) { return b.name == name; })) {
      throw InputError("--bench", name, "not a benchmark of " + plan.dir);
    }
  }
  // One chain's lock choice: its deferred checks completed, its revisions in order of D.
  struct ChainChoice {
    std::string name, folder;
    fs::path dir;
    std::vector<Json> lines;
    LockChoice choice;
  };
  auto choose_in_chain = [&](const std::string& chain_name, const std::string& folder) {
    ChainChoice cc;
    cc.name = chain_name;
    cc.folder = folder;
    cc.dir = fs::path(folder) / chain_name;
    cc.lines = read_records((cc.dir / "revisions.jsonl").string());
    const auto& lines = cc.lines;
    const fs::path chain_dir = cc.dir;
    const std::vector<const Json*> kept = lock_candidates(lines);
    // Complete the deferred candidate checks of these revisions (here, where the toolchain is).
    std::vector<std::string> keys;
    for (const Json* l : kept) keys.push_back((*l)["key"].get<std::string>());
    complete_deferred_checks(folder, progress, keys, recheck);
    std::map<int, Json> deferred;  // the last line of each revision counts
    for (const auto& l : read_records((chain_dir / "deferred-checks.jsonl").string())) deferred[l.value("revision", -1)] = l;
    cc.choice = choose_lock_revision(kept, [&](const Json& l) {
      const int rev = l["revision"].get<int>();
      ResolvedCheck r;
      r.check = l["checks"]["candidate"];
      if (r.check.value("status", "") == "deferred" && deferred.count(rev)) {
        r.sources = deferred[rev].value("vortex_sources", Json());
        r.check = deferred[rev]["candidate_check"];
      }
      if (r.check.value("status", "") == "deferred" && !checks_from.empty()) {
        if (!borrowable) borrowable = deferred_check_files(checks_from);
        if (const auto borrowed = borrowed_check(*borrowable, l)) {
          r.check = borrowed->check;
          r.sources = borrowed->sources;
          r.from = borrowed->from;
        } else {
          r.why_not = "its CUDA output was not kept, and --checks-from holds no passed check of the same CUDA source";
        }
      } else if (r.check.value("status", "") == "deferred") {
        r.why_not = "its CUDA output was not kept; --checks-from RUN takes a passed check of the same CUDA source from an earlier run";
      }
      return r;
    });
    return cc;
  };
  std::vector<LockResult> results;
  for (const auto& b : plan.benchmarks) {
    if (!benches.empty() && std::find(benches.begin(), benches.end(), b.name) == benches.end()) continue;
    LockResult lr;
    lr.bench = b.name;
    // The chain named by hand, else every chain of the benchmark (its seed's and, with
    // --multi-start, the others): the lock is the best checked revision of any of them.
    std::vector<std::string> names = {chain.empty() ? b.name : chain};
    if (chain.empty())
      for (int k = 2; !chain_folder(run, multi_start_chain(b.name, k)).empty(); ++k) names.push_back(multi_start_chain(b.name, k));
    std::vector<ChainChoice> chains;
    for (const auto& n : names)
      if (const std::string folder = chain_folder(run, n); !folder.empty()) chains.push_back(choose_in_chain(n, folder));
    if (chains.empty()) {
      lr.why = chain.empty() ? "no chain in " + run_dir : "no chain " + chain + " in " + run_dir;
      results.push_back(lr);
      continue;
    }
    std::size_t best = 0;
    for (std::size_t i = 0; i < chains.size(); ++i) {
      const auto* r = chains[i].choice.record;
      const auto* cur = chains[best].choice.record;
      if (r && (!cur || (*r)["d"].get<double>() < (*cur)["d"].get<double>())) best = i;
    }
    Json starts = Json::array();
    for (const auto& c : chains) {
      starts.push_back({{"chain", c.name}, {"d", c.choice.record ? (*c.choice.record)["d"] : Json(nullptr)}});
    }
    const std::string& chain_name = chains[best].name;
    const std::string& folder = chains[best].folder;
    const fs::path& chain_dir = chains[best].dir;
    const std::vector<Json>& lines = chains[best].lines;
    const LockChoice& choice = chains[best].choice;
    if (choice.record == nullptr) {
      lr.why = "no revision with both checks passed";
      for (const auto& p : choice.passed_over) lr.why += "; " + p;
      results.push_back(lr);
      continue;
    }
    const Json& rec = *choice.record;
    const Json& candidate_check = choice.check.check;
    const Json& checked_sources = choice.check.sources;
    const std::string& check_from = choice.check.from;
    // A chain of another name may have been scored against another reference: its D must be the
    // benchmark's D, recomputed from the record's signature.
    if (chain_name != b.name) {
      const std::string records = (chain_dir / "revisions.jsonl").string();
      const auto ref =
          signature::read_signatures_at(b.reference, signature::scope_from_key(rec.value("scope", "kernel"), records, "scope")).at(0);
      const auto d = signature::compute_distance(metric_values(rec["signature"], records, "signature"), ref.values,
                                                 signature::DistanceConfig{})
                         .d;
      if (!d || std::abs(*d - rec["d"].get<double>()) > 1e-9) {
        lr.why = "chain " + chain_name + " was not scored against " + b.reference + ": r" + std::to_string(rec["revision"].get<int>()) +
                 " records D " + fixed(rec["d"].get<double>(), 4) + ", its signature is at D " + (d ? fixed(*d, 4) : std::string("-")) +
                 " from the benchmark's reference";
        results.push_back(lr);
        continue;
      }
    }
    const std::string key = rec["key"].get<std::string>();
    const fs::path saved = fs::path(folder) / "checks" / key;
    // The design: the loop keeps every retained one (designs/rN.json); a GPU run's check folder has it too.
    fs::path design_file = chain_dir / "designs" / ("r" + std::to_string(rec["revision"].get<int>()) + ".json");
    if (!fs::is_regular_file(design_file)) design_file = saved / "design.json";
    if (!fs::is_regular_file(design_file)) {
      lr.why = "r" + std::to_string(rec["revision"].get<int>()) + ": its design is in neither " +
               (chain_dir / "designs").string() + " nor " + saved.string();
      results.push_back(lr);
      continue;
    }
    const design::DesignPoint d = design::read_design(design_file.string());
    // A benchmark holds no value that only moves a counter (design/no_op.h).
    if (const auto noop = design::no_op_values(d); !noop.empty()) {
      lr.why = "r" + std::to_string(rec["revision"].get<int>()) + " holds values that do nothing at its shape (" +
               design::describe(noop) + "): refine on (the built-in strategy proposes no such move) or start from "
               "a design without them";
      results.push_back(lr);
      continue;
    }
    if (design::procedural_name(d) != rec.value("design", "")) {
      lr.why = design_file.string() + ": design " + design::procedural_name(d) + " is not r" +
               std::to_string(rec["revision"].get<int>()) + "'s (" + rec.value("design", "") + ")";
      results.push_back(lr);
      continue;
    }
    // Everything is written to a staging folder first and moves into place only when the lock
    // is complete: a lock that fails leaves an earlier lock as it was.
    const fs::path final_dest = fs::path(plan.dir) / b.name;
    const fs::path dest = final_dest / ".lock-stage";
    fs::remove_all(dest);
    codegen::BenchmarkOptions bo;
    bo.write_data = false;
    const auto files = codegen::write_benchmark(d, dest.string(), bo);
    // The CUDA side that was profiled, byte for byte: the kept source when the GPU run saved it,
    // else the regenerated one, which must hash the same.
    const std::string want_sha = rec["sources"].value("cuda_sha256", "");
    if (fs::is_regular_file(saved / "candidate.cu")) fs::copy_file(saved / "candidate.cu", files.cuda_source, fs::copy_options::overwrite_existing);
    const std::string got_sha = sha256_file(files.cuda_source);
    if (!want_sha.empty() && got_sha != want_sha) {
      fs::remove_all(dest);
      lr.why = "the CUDA source " + codegen::describe(codegen::current_generator()) + " writes differs from the one profiled (sha256 " +
               got_sha.substr(0, 12) + " vs " + want_sha.substr(0, 12) + ", written by " +
               codegen::describe(codegen::generator_from_json(rec, chain_dir.string() + "/revisions.jsonl")) +
               "), and the run folder does not hold the profiled source (" + (saved / "candidate.cu").string() + "): refine again";
      results.push_back(lr);
      continue;
    }
    // The Vortex sources committed must be the ones the candidate check ran (when the check
    // recorded them): a generator change since needs the check again (`--recheck`).
    std::string changed;
    if (checked_sources.is_object()) {
      for (const auto& [name, sha] : checked_sources.items()) {
        if (sha256_file((fs::path(files.vortex_dir) / name).string()) != sha.get<std::string>()) changed += (changed.empty() ? "" : ", ") + name;
      }
    }
    if (!changed.empty()) {
      fs::remove_all(dest);
      lr.why = "the Vortex sources generated now (" + changed + ") differ from those r" + std::to_string(rec["revision"].get<int>()) +
               "'s candidate check ran: check again with --recheck (it needs the CUDA output in " + saved.string() + ")";
      results.push_back(lr);
      continue;
    }
    fs::copy_file(chain_dir / "revisions.jsonl", dest / "revisions.jsonl", fs::copy_options::overwrite_existing);
    if (fs::is_regular_file(chain_dir / "deferred-checks.jsonl")) {
      fs::copy_file(chain_dir / "deferred-checks.jsonl", dest / "deferred-checks.jsonl", fs::copy_options::overwrite_existing);
    }
    // signature.json: the retained signature with every profile it is the mean of.
    EvaluationStore store((fs::path(folder) / "evaluations").string());
    const auto eval = store.get(key);
    // A lock's signature is a profile of its reference's GPU.
    if (const std::string why = eval ? gpu_mismatch(eval->platform, "r" + std::to_string(rec["revision"].get<int>()),
                                                    reference_platform(b.reference), b.reference)
                                     : std::string();
        !why.empty()) {
      fs::remove_all(dest);
      lr.why = why;
      results.push_back(lr);
      continue;
    }
    double device_seconds = 0;
    int retained = 0;
    for (const auto& l : lines) {
      device_seconds += l.value("device_seconds", 0.0);
      if (l.value("decision", "") == "retained") ++retained;
    }
    Json sig{{"schema", schema_id("locked-signature", 1)},
             {"benchmark", b.name},
             {"chain", chain_name},
             {"reference", fs::path(b.reference).filename().string()},
             {"revision", rec["revision"]},
             {"key", key},
             {"design", rec["design"]},
             {"signature", rec["signature"]},
             {"profiles", rec["profiles"]},
             {"distances", rec["distances"]},
             {"d", rec["d"]},
             {"seed_d", lines.front()["d"]},
             // The chain may start from another design than the reference's seed (--start).
             {"start_is_seed", lines.front().value("design", "") == design::procedural_name(design::seed_from_reference(b.reference))},
             {"retention", rec["retention"]},
             // The generator of the profiled CUDA source (absent: the unversioned one).
             {"generator", rec.contains("generator") ? rec["generator"] : Json(nullptr)},
             // What the signature and D are of: every kernel of the proxy's launch against the
             // reference's call (operator), or the longest kernel (kernel: locks made before it).
             {"scope", rec.value("scope", "kernel")},
             {"nearest_reference", b.nearest},
             {"nearest_reference_d", b.nearest_d},
             // Every chain of the benchmark in the run and its best checked D (multi-start).
             {"chains", starts},
             {"revisions", static_cast<int>(lines.size()) - 1},
             {"retained", retained},
             {"device_seconds", device_seconds}};
    for (const char* k : {"kernel_d", "time_ratio", "dram_ratio"})
      if (rec.contains(k) && !rec[k].is_null()) sig[k] = rec[k];
    if (eval) {
      const Json e = eval->to_json();
      const bool op = rec.value("scope", "kernel") == "operator";
      sig["profile_values"] = op ? e["operator_profiles"] : e["profiles"];
      if (op) {
        sig["kernel_profile_values"] = e["profiles"];
        sig["operator_duration_ns"] = e["operator_duration_ns"];
        sig["operator_dram_bytes"] = e["operator_dram_bytes"];
      }
      sig["origin"] = eval->origin;
    }
    // Repeat profiles of the same CUDA proxy (scripts/suite-repeats-apply) stay valid across a
    // re-lock of the same revision: keep them.
    if (fs::is_regular_file(final_dest / "signature.json")) {
      const Json before = read_json_file((final_dest / "signature.json").string());
      if (before.value("key", "") == key && before.contains("repeats")) sig["repeats"] = before["repeats"];
    }
    write_json_file((dest / "signature.json").string(), sig);
    // validation.json: both checks at the design's shape (the reference's profiled shape).
    Json seed = nullptr;
    if (fs::is_regular_file(saved / "check.json")) seed = read_json_file((saved / "check.json").string()).value("seed", Json());
    Json val{{"schema", schema_id("validation", 1)},
             {"benchmark", b.name},
             {"revision", rec["revision"]},
             {"key", key},
             {"op", ops::op_spec_to_json(d.op)},
             {"precision", {{"cuda", ops::to_string(d.op.precision)}, {"vortex", ops::to_string(d.op.vortex_precision)}}},
             {"source_check", rec["checks"]["source"]},
             {"source_tolerance", tolerance_json(ops::tolerance_for(d.op, ops::Check::source))},
             {"candidate_check", candidate_check},
             {"candidate_tolerance", tolerance_json(ops::tolerance_for(d.op, ops::Check::candidate))},
             {"input_seed", seed},
             {"cuda_sha256", got_sha},
             // Whether the committed CUDA file is byte for byte the one evaluated (the record's digest).
             {"cuda_source_verified", !want_sha.empty()},
             // The Vortex sources the candidate check ran, when it recorded them (equal to the committed ones).
             {"vortex_sources_checked", checked_sources.is_object() ? checked_sources : Json()},
             // Which generators wrote the committed sources: the CUDA side is the profiled text,
             // the Vortex side is written by this lock (and equals the checked one).
             {"cuda_generator", rec.contains("generator") ? rec["generator"] : Json(nullptr)},
             {"vortex_generator", codegen::generator_to_json(codegen::current_generator())}};
    // A check made in another run (--checks-from) says where it is.
    if (!check_from.empty()) val["candidate_check_from"] = check_from;
    write_json_file((dest / "validation.json").string(), val);
    // The files a lock writes replace an earlier lock's (never the reference).
    for (const char* old : {"design.json", "cuda", "vortex", "revisions.jsonl", "deferred-checks.jsonl", "signature.json",
                            "validation.json"}) {
      fs::remove_all(final_dest / old);
    }
    for (const auto& entry : fs::directory_iterator(dest)) fs::rename(entry.path(), final_dest / entry.path().filename());
    fs::remove_all(dest);
    lr.locked = true;
    lr.revision = rec["revision"].get<int>();
    lr.d = rec["d"].get<double>();
    const Json& start_d = lines.front()["d"];  // null when the start was rejected before profiling
    lr.why = "r" + std::to_string(lr.revision) + " D " + fixed(lr.d, 4) + " (start D " +
             (start_d.is_number() ? fixed(start_d.get<double>(), 4) : std::string("-")) + ")";
    if (!choice.passed_over.empty()) {
      lr.why += "; passed over";
      for (const auto& p : choice.passed_over) lr.why += " " + p;
    }
    results.push_back(lr);
    progress << b.name << ": locked " << lr.why << "\n";
  }
  return results;
}

Json suite_status(const SuitePlan& plan) {
  Json rows = Json::array();
  std::vector<double> finals, vortex_d;
  for (const auto& b : plan.benchmarks) {
    const fs::path dir = fs::path(plan.dir) / b.name;
    const Json ref = read_json_file(b.reference);
    Json row{{"benchmark", b.name},
             {"workload", b.serves.front().workload},
             {"op", b.serves.front().op_kind},
             {"shape", b.serves.front().shape},
             {"share", b.share},
             {"serves", Json::array()},
             {"precision", short_precision(ref["op"].value("math", ""))},
             {"nearest_reference", b.nearest},
             {"nearest_reference_d", b.nearest_d},
             {"locked", false}};
    for (const auto& r : b.serves) row["serves"].push_back(r.folder);
    if (fs::is_regular_file(dir / "signature.json") && fs::is_regular_file(dir / "validation.json")) {
      const Json sig = read_json_file((dir / "signature.json").string());
      const Json val = read_json_file((dir / "validation.json").string());
      row["locked"] = true;
      row["revision"] = sig["revision"];
      row["revisions"] = sig.value("revisions", 0);
      row["retained"] = sig.value("retained", 0);
      row["seed_d"] = sig["seed_d"];
      row["start_is_seed"] = sig.value("start_is_seed", true);
      row["final_d"] = sig["d"];
      row["device_seconds"] = sig.value("device_seconds", 0.0);
      row["effort"] = "lock's run";
      // Over every committed run (`vxsynth suite effort`), when measured: what the benchmark cost.
      if (fs::is_regular_file(dir / kEffortFile)) {
        const Json e = read_json_file((dir / kEffortFile).string());
        row["effort"] = e.value("locked_key", "") == sig.value("key", "") ? "every run" : "stale";
        row["revisions"] = e.value("designs", 0);
        row["retained"] = e.value("retained", 0);
        row["device_seconds"] = e.value("device_seconds", 0.0);
        row["runs"] = e.contains("runs") ? e["runs"].size() : 0;
        if (e.contains("seed_d") && e["seed_d"].is_number()) {
          row["seed_d"] = e["seed_d"];
          row["start_is_seed"] = true;
        }
      }
      row["profiles"] = sig["profiles"];
      // Values of the locked design that do nothing at its shape (design/no_op.h): locks made
      // before the rule; the re-lock drops them.
      const std::string noop = design::describe(design::no_op_values(design::read_design((dir / "design.json").string())));
      row["no_op_values"] = noop.empty() ? Json(nullptr) : Json(noop);
      // What the lock's D is of (kernel: a lock made before operator scope), and the whole
      // operator's time and DRAM bytes over the reference call's where the lock measured them.
      row["scope"] = sig.value("scope", "kernel");
      for (const char* k : {"kernel_d", "time_ratio", "dram_ratio"}) row[k] = sig.contains(k) ? sig[k] : Json(nullptr);
      // The largest remaining metric distances.
      std::vector<std::pair<double, std::string>> dist;
      for (const auto& [k, v] : sig["distances"].items()) {
        if (v.is_number()) dist.emplace_back(v.get<double>(), k);
      }
      std::sort(dist.rbegin(), dist.rend());
      Json worst = Json::array();
      for (std::size_t i = 0; i < dist.size() && i < 3; ++i) worst.push_back({{"metric", dist[i].second}, {"distance", dist[i].first}});
      row["largest_distances"] = worst;
      row["source_check"] = val["source_check"].value("status", "?");
      row["source_worst_ratio"] = val["source_check"].value("worst_ratio", 0.0);
      row["candidate_check"] = val["candidate_check"].value("status", "?");
      row["candidate_worst_ratio"] = val["candidate_check"].value("worst_ratio", 0.0);
      double fd = sig["d"].get<double>();
      // Profiled again N times after the lock (scripts/h200-suite-repeats): the mean D, and in how
      // many of the profiles the proxy is nearest its own reference of all the suite's.
      if (sig.contains("repeats") && sig["repeats"].is_object()) {
        const Json& rep = sig["repeats"];
        fd = rep.value("d_mean", fd);
        row["repeats"] = rep.value("profiles", 0);
        row["d_min"] = rep.value("d_min", fd);
        row["d_max"] = rep.value("d_max", fd);
        row["nearest_is_own"] = rep.value("nearest_is_own_reference", 0);
        row["final_d"] = fd;
      }
      row["goal_met"] = fd <= 0.05 && fd < 0.5 * b.nearest_d;
      // The Vortex side at the profiled shape with the vortex2 timing model (suite run --signature).
      const VortexSideStatus vs = read_vortex_side(dir);
      if (vs.present) {
        row["vortex"] = {{"file", kVortexSignatureFile},
                         {"machine", vs.machine},
                         {"cycles", vs.cycles},
                         {"ipc", vs.ipc},
                         {"d_cuda", vs.d_cuda ? Json(*vs.d_cuda) : Json(nullptr)},
                         {"same_scope", sig.value("scope", "kernel") == "operator"},
                         {"d_reference", vs.d_reference ? Json(*vs.d_reference) : Json(nullptr)},
                         {"simulate_seconds", vs.run_seconds},
                         {"stale", vs.stale.empty() ? Json(nullptr) : Json(vs.stale)}};
      } else {
        row["vortex"] = nullptr;
      }
      finals.push_back(fd);
      if (row["vortex"].is_object() && row["vortex"]["d_cuda"].is_number()) vortex_d.push_back(row["vortex"]["d_cuda"].get<double>());
    }
    rows.push_back(row);
  }
  std::set<std::string> workloads;
  for (const auto& b : plan.benchmarks) workloads.insert(b.serves.front().workload);
  Json per_workload = Json::object();
  for (const auto& w : workloads) {
    int n = 0, refs = 0;
    for (const auto& b : plan.benchmarks) {
      if (b.serves.front().workload != w) continue;
      ++n;
      refs += static_cast<int>(b.serves.size());
    }
    per_workload[w] = {{"benchmarks", n}, {"references", refs}};
  }
  Json summary{{"benchmarks", rows.size()}, {"locked", finals.size()}, {"per_workload", per_workload}};
  if (!finals.empty()) {
    std::sort(finals.begin(), finals.end());
    const std::size_t m = finals.size();
    summary["median_final_d"] = m % 2 ? finals[m / 2] : 0.5 * (finals[m / 2 - 1] + finals[m / 2]);
  }
  summary["vortex_signatures"] = vortex_d.size();
  if (!vortex_d.empty()) {
    std::sort(vortex_d.begin(), vortex_d.end());
    const std::size_t m = vortex_d.size();
    summary["median_vortex_d"] = m % 2 ? vortex_d[m / 2] : 0.5 * (vortex_d[m / 2 - 1] + vortex_d[m / 2]);
  }
  return {{"schema", schema_id("suite-status", 1)}, {"dir", plan.dir}, {"rows", rows}, {"summary", summary}};
}

std::string format_suite_status(const Json& status) {
  std::ostringstream out;
  out << "suite " << status["dir"].get<std::string>() << "\n";
  out << std::left << std::setw(27) << "benchmark" << std::setw(16) << "op" << std::setw(15) << "shape" << std::right
      << std::setw(6) << "share" << std::setw(6) << "path" << std::setw(10) << "tried" << std::setw(9) << "seed D"
      << std::setw(8) << "final D" << std::setw(6) << "scope" << std::setw(7) << "time" << std::setw(7) << "bytes"
      << std::setw(6) << "own" << std::setw(9) << "nearest" << std::setw(8) << "vx D" << "  " << std::left << std::setw(10) << "checks"
      << std::setw(7) << "dev s" << "largest remaining distances\n";
  for (const auto& r : status["rows"]) {
    std::string op = r["op"].get<std::string>();
    out << std::left << std::setw(27) << r["benchmark"].get<std::string>() << std::setw(16) << op << std::setw(15)
        << r["shape"].get<std::string>() << std::right << std::setw(5) << fixed(100 * r["share"].get<double>(), 1) << "%"
        << std::setw(6) << r["precision"].get<std::string>();
    if (!r["locked"].get<bool>()) {
      out << std::setw(10) << "-" << std::setw(9) << "-" << std::setw(8) << "-" << std::setw(6) << "-" << std::setw(7) << "-"
          << std::setw(7) << "-" << std::setw(6) << "-" << std::setw(9)
          << fixed(r["nearest_reference_d"].get<double>(), 3) << std::setw(8) << "-" << "  not locked";
    } else {
      const std::string tried = std::to_string(r["revisions"].get<int>()) + "/" + std::to_string(r["retained"].get<int>()) +
                                (r.value("effort", "") == "every run" ? " " : r.value("effort", "") == "stale" ? "!" : "r");
      const std::string checks = std::string(r["source_check"] == "passed" ? "ok" : "FAIL") + "/" +
                                 (r["candidate_check"] == "passed" ? "ok" : "FAIL");
      out << std::setw(10) << tried << std::setw(9)
          << fixed(r["seed_d"].get<double>(), 3) + (r.value("start_is_seed", true) ? " " : "s") << std::setw(7)
          << fixed(r["final_d"].get<double>(), 3) << (r["goal_met"].get<bool>() ? " " : "*") << std::setw(6)
          << (r.value("scope", "kernel") == "operator" ? "op" : "kern");
      auto ratio = [&](const char* k) { return r.contains(k) && r[k].is_number() ? fixed(r[k].get<double>(), 2) : std::string("-"); };
      out << std::setw(7) << ratio("time_ratio") << std::setw(7) << ratio("dram_ratio") << std::setw(6)
          << (r.contains("repeats") ? std::to_string(r["nearest_is_own"].get<int>()) + "/" + std::to_string(r["repeats"].get<int>())
                                    : std::string("-"))
          << std::setw(9)
          << fixed(r["nearest_reference_d"].get<double>(), 3);
      const Json& vx = r.value("vortex", Json());
      std::string vxd = "-";
      if (vx.is_object()) {
        vxd = vx["d_cuda"].is_number() ? fixed(vx["d_cuda"].get<double>(), 3) : "n/a";
        vxd += !vx["stale"].is_null() ? "!" : vx.value("same_scope", true) ? " " : "~";
      }
      out << std::setw(8) << vxd << "  " << std::left << std::setw(10) << checks << std::setw(7)
          << fixed(r["device_seconds"].get<double>(), 0);
      std::string worst;
      for (const auto& w : r["largest_distances"]) {
        worst += (worst.empty() ? "" : ", ") + short_metric(w["metric"].get<std::string>()) + " " +
                 fixed(w["distance"].get<double>(), 2);
      }
      out << worst;
    }
    out << "\n";
    if (r.contains("no_op_values") && r["no_op_values"].is_string()) {
      out << "    holds values that do nothing at its shape: " << r["no_op_values"].get<std::string>() << "\n";
    }
    if (r.contains("vortex") && r["vortex"].is_object() && !r["vortex"]["stale"].is_null()) {
      out << "    Vortex-side signature stale: " << r["vortex"]["stale"].get<std::string>()
          << " (run `vxsynth suite run SUITE --signature --bench " << r["benchmark"].get<std::string>() << "`)\n";
    }
    if (r["serves"].size() > 1) {
      std::string also;
      for (std::size_t i = 1; i < r["serves"].size(); ++i) also += (also.empty() ? "" : ", ") + r["serves"][i].get<std::string>();
      out << "    also serves (signature within profiling noise): " << also << "\n";
    }
  }
  const Json& s = status["summary"];
  out << "\n" << s["locked"].get<int>() << " of " << s["benchmarks"].get<int>() << " benchmarks locked";
  if (s.contains("median_final_d")) out << "; median final D " << fixed(s["median_final_d"].get<double>(), 4);
  if (s.contains("median_vortex_d")) {
    out << "; Vortex-side signatures " << s["vortex_signatures"].get<int>() << ", median vx D "
        << fixed(s["median_vortex_d"].get<double>(), 4);
  }
  out << "\ndistinct kernels per workload:";
  for (const auto& [w, v] : s["per_workload"].items()) {
    out << " " << w << " " << v["benchmarks"].get<int>() << " (of " << v["references"].get<int>() << " references)";
  }
  // One column a line, each at most 100 characters (the table's legend, not a paragraph).
  out << "\ncolumns:\n"
         "  share    of the workload's GPU time (merged references added)\n"
         "  path     the reference's math path\n"
         "  tried    designs tried/retained over every committed run (effort.json, `vxsynth suite effort`);\n"
         "           r: in the lock's run only; ! the lock is newer than effort.json (run `suite effort`)\n"
         "  seed D   the seed design's D; s: the D of the lock's chain's start (another design) when the\n"
         "           seed's is not known\n"
         "  nearest  D from the reference to the nearest other reference\n"
         "  final D  the mean over the repeat profiles where there are, else the locked profile's;\n"
         "           * when it misses the goal (<= 0.05 and below half of nearest)\n"
         "  scope    what final D is of: op = every kernel of the proxy against every kernel of the\n"
         "           reference's call; kern = the longest kernel (a lock made before operator scope)\n"
         "  time     the proxy operator's summed kernel time over the reference call's (op locks)\n"
         "  bytes    the same for DRAM bytes read and written\n"
         "  own      in how many repeat profiles the proxy is nearest its own reference\n"
         "  vx D     D between the Vortex side (vortex2 timing model at the profiled shape,\n"
         "           vortex-signature.json, every launch) and the locked CUDA side; ! stale, - not made,\n"
         "           ~ the CUDA side is one kernel, the Vortex side every launch (a kern lock)\n"
         "           (`suite run --signature`)\n"
         "  checks   source/candidate check status\n"
         "  dev s    device seconds, counted over the same runs as tried\n";
  return out.str();
}

}  // namespace vxsynth::refine

namespace vxsynth::refine {

std::vector<LockedRun> run_locked_suite(const SuitePlan& plan, const LockedRunOptions& options, std::ostream& progress) {
  const std::string& work = options.work;
  const std::vector<std::string>& benches = options.benches;
  const int jobs = options.jobs;
  for (const auto& name : benches) {
    if (std::none_of(plan.benchmarks.begin(), plan.benchmarks.end(), [&](const auto& b) { return b.name == name; })) {
      throw InputError("--bench", name, "not a benchmark of " + plan.dir);
    }
  }
  std::vector<const SuiteBenchmark*> todo;
  for (const auto& b : plan.benchmarks) {
    if (!benches.empty() && std::find(benches.begin(), benches.end(), b.name) == benches.end()) continue;
    todo.push_back(&b);
  }
  std::vector<LockedRun> results(todo.size());
  std::mutex mu;
  std::size_t next = 0;
  auto one = [&](std::size_t i) {
    const SuiteBenchmark& b = *todo[i];
    LockedRun& r = results[i];
    r.bench = b.name;
    const fs::path locked = fs::path(plan.dir) / b.name;
    if (!fs::is_regular_file(locked / "design.json") || !fs::is_directory(locked / "vortex")) {
      r.detail = "not locked";
      return;
    }
    try {
      const design::DesignPoint d = design::read_design((locked / "design.json").string());
      codegen::BenchmarkOptions bo;
      const std::string vfile = (locked / "validation.json").string();
      if (fs::is_regular_file(vfile)) {
        const Json v = read_json_file(vfile);
        if (v.contains("input_seed") && v["input_seed"].is_number_unsigned()) bo.seed = v["input_seed"].get<std::uint64_t>();
      }
      const fs::path dir = fs::path(work) / b.name;
      fs::remove_all(dir);
      const auto files = codegen::write_benchmark(d, dir.string(), bo);
      // Run the committed sources, not today's generator's: copy them over the generated ones.
      int differ = 0;
      for (const auto& e : fs::directory_iterator(locked / "vortex")) {
        if (!e.is_regular_file()) continue;
        const fs::path mine = fs::path(files.vortex_dir) / e.path().filename();
        if (compare_source(e.path().filename().string(), read_text_file(e.path().string()), read_text_file(mine.string())) ==
            Sameness::differs) {
          ++differ;
        }
        fs::copy_file(e.path(), mine, fs::copy_options::overwrite_existing);
      }
      SimRunOptions so;
      so.build_dir = (dir / "build").string();
      const bool timed = options.signature || !options.timing_out.empty();
      if (timed) {
        so.timing = true;
        so.run_json = (dir / "build" / "vxsim-run.json").string();
      }
      const auto sr = run_on_simulator(d, files, so);
      r.passed = sr.passed;
      r.build_seconds = sr.build_seconds;
      r.run_seconds = sr.run_seconds;
      r.run_cpu_seconds = sr.run_cpu_seconds;
      r.thread_instructions = sr.thread_instructions;
      std::string first = sr.check_text.substr(0, sr.check_text.find('\n'));
      r.detail = first;
      if (!sr.passed && first.empty()) r.detail = "exit " + std::to_string(sr.exit_code) + ": " + sr.output.substr(0, 300);
      if (differ) r.detail += " (" + std::to_string(differ) + " committed Vortex file(s) hold other code than today's generator writes)";
      if (timed && sr.passed) {
        if (!fs::is_regular_file(so.run_json)) throw WorkError("the benchmark wrote no " + so.run_json + " (VXSIM_RUN_JSON)");
        VortexSideRun vr;
        vr.run = read_json_file(so.run_json);
        vr.clock_mhz = options.clock_mhz;
        vr.build_seconds = sr.build_seconds;
        vr.run_seconds = sr.run_seconds;
        vr.run_cpu_seconds = sr.run_cpu_seconds;
        vr.check = first;
        vr.command = "vxsynth suite run " + plan.dir + " --signature --bench " + b.name +
                     (options.clock_mhz != 200.0 ? " --clock-mhz " + fixed(options.clock_mhz, 1) : std::string());
        const Json doc = vortex_side_document(locked, vr);
        if (!options.timing_out.empty()) {
          const fs::path out = fs::path(options.timing_out) / b.name;
          fs::create_directories(out);
          write_json_file((out / "vxsim-run.json").string(), vr.run);
          write_json_file((out / kVortexSignatureFile).string(), doc);
          r.signature_file = (out / kVortexSignatureFile).string();
        }
        if (options.signature) {
          // Written beside the other files, in one step (a reader never sees half a file).
          const fs::path tmp = locked / (std::string(kVortexSignatureFile) + ".tmp");
          write_json_file(tmp.string(), doc);
          fs::rename(tmp, locked / kVortexSignatureFile);
          r.signature_file = (locked / kVortexSignatureFile).string();
        }
        r.cycles = vr.run["cycles"].get<std::uint64_t>();
        const Json& dc = doc["vortex_side"]["distance_to_cuda"]["d"];
        if (dc.is_number()) r.d_cuda = dc.get<double>();
      }
    } catch (const std::exception& e) {
      r.passed = false;
      r.detail = e.what();
    }
    std::lock_guard<std::mutex> lock(mu);
    progress << (r.passed ? "PASS " : "FAIL ") << b.name << ": " << r.detail << " (build " << fixed(r.build_seconds, 1)
             << " s, run " << fixed(r.run_seconds, 1) << " s wall / " << fixed(r.run_cpu_seconds, 1) << " s CPU, "
             << r.thread_instructions << " thread-instructions";
    if (!r.signature_file.empty()) {
      progress << ", " << r.cycles << " cycles; D to the CUDA side " << (r.d_cuda ? fixed(*r.d_cuda, 4) : "-") << "; wrote "
               << r.signature_file;
    }
    progress << ")\n";
    progress.flush();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, jobs); ++t) {
    pool.emplace_back([&] {
      for (;;) {
        std::size_t i;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (next >= todo.size()) return;
          i = next++;
        }
        one(i);
      }
    });
  }
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace vxsynth::refine
