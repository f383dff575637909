#include "refine/replay.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "codegen/benchmark.h"
#include "common/error.h"
#include "design/move.h"
#include "gpu/job.h"
#include "ops/tensor_file.h"
#include "refine/sim_run.h"
#include "signature/signature.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

ReplayEvaluator::ReplayEvaluator(const std::vector<std::string>& store_dirs, std::string work_dir, SimCheck sim,
                                 double pace_seconds)
    : work_dir_(std::move(work_dir)), sim_(sim), pace_seconds_(pace_seconds) {
  for (const auto& d : store_dirs) stores_.emplace_back(d);
}

std::optional<Evaluation> ReplayEvaluator::find(const std::string& key) const {
  for (const auto& s : stores_) {
    if (auto e = s.get(key)) {
      e->origin = "replay of " + s.dir() + (e->origin.empty() ? "" : " (" + e->origin + ")");
      return e;
    }
  }
  return std::nullopt;
}

bool ReplayEvaluator::available(const Candidate& c) const { return find(c.key).has_value(); }

std::vector<Evaluation> ReplayEvaluator::evaluate(const std::vector<Candidate>& batch) {
  std::vector<Evaluation> out;
  for (const auto& c : batch) {
    if (pace_seconds_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(pace_seconds_));
    if (auto e = find(c.key)) {
      e->candidate_check.reset();  // the check is asked for separately (and maybe answered from here)
      out.push_back(*e);
      continue;
    }
    Evaluation e;
    e.key = c.key;
    e.design_name = c.cuda_source.empty() ? design::procedural_name(c.design) : "";
    e.source_check.status = "error";
    e.source_check.message = "not in the replay store (no recorded evaluation of this candidate)";
    e.origin = "replay";
    out.push_back(e);
  }
  return out;
}

std::pair<CheckOutcome, double> simulator_check(const Candidate& c, const std::string& work_dir, std::uint64_t seed,
                                                const std::string& expected, const std::string& against) {
  const auto start = std::chrono::steady_clock::now();
  CheckOutcome out;
  out.against = against;
  try {
    codegen::BenchmarkOptions bo;
    bo.seed = seed;
    const fs::path dir = fs::path(work_dir) / ("sim-" + c.key);
    codegen::BenchmarkFiles files = codegen::write_benchmark(c.design, dir.string(), bo);
    if (!c.vortex_kernel.empty()) {
      // An external generator's kernel in the design's benchmark (main.cpp, common.h and the
      // data stay those of the design).
      fs::copy_file(c.vortex_kernel, fs::path(files.vortex_dir) / "kernel.cpp", fs::copy_options::overwrite_existing);
    }
    if (!expected.empty()) {
      fs::copy_file(expected, fs::path(files.vortex_dir) / "data" / "expected.vxt", fs::copy_options::overwrite_existing);
    }
    SimRunOptions so;
    const SimRunResult r = run_on_simulator(c.design, files, so);
    out.status = r.passed ? "passed" : "failed";
    out.max_abs_error = r.check.max_abs_error;
    out.max_rel_error = r.check.max_rel_error;
    out.worst_ratio = r.check.worst_ratio;
    out.count = r.check.count;
    out.failed = r.check.failed;
    if (!r.passed) {
      out.message = r.exit_code != 0 ? "the benchmark exited " + std::to_string(r.exit_code) + ": " + r.output.substr(0, 400)
                                     : r.check_text.substr(0, 400);
    }
  } catch (const std::exception& e) {
    out.status = "failed";
    out.message = std::string("the Vortex benchmark did not build or run: ") + e.what();
    if (out.message.size() > 600) out.message.resize(600);
  }
  return {out, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

std::vector<std::pair<CheckOutcome, double>> ReplayEvaluator::candidate_check(const std::vector<Candidate>& batch) {
  std::vector<std::pair<CheckOutcome, double>> out;
  for (const auto& c : batch) {
    const auto e = find(c.key);
    if (e && e->candidate_check && e->vortex_sha256 == c.vortex_sha256) {
      out.push_back({*e->candidate_check, e->sim_seconds});
    } else if (sim_ == SimCheck::skip) {
      CheckOutcome s;
      s.status = "skipped";
      s.message = "replay without the simulator (--sim-check skip) and no check recorded";
      out.push_back({s, 0.0});
    } else {
      out.push_back(simulator_check(c, work_dir_, 1, "", "cpu-reference (the replay store holds no CUDA output)"));
    }
  }
  return out;
}

std::vector<std::string> import_profile(const std::string& profile_dir, const std::string& store_dir) {
  const fs::path dir = profile_dir;
  const design::DesignPoint parent = design::read_design((dir / "parent-design.json").string());
  const std::string result_path = (dir / "result.json").string();
  const gpu::JobResult result = gpu::read_job_result(result_path);
  const Json summary = read_json_file((dir / "profile-summary.json").string());
  double total = 0;
  if (summary.contains("timing_seconds") && summary["timing_seconds"].contains("total")) {
    total = summary["timing_seconds"]["total"].get<double>();
  }
  const std::string device = result.device;
  fs::path norm = fs::absolute(dir).lexically_normal();
  if (norm.filename().empty()) norm = norm.parent_path();
  const std::string folder = norm.filename().string();
  EvaluationStore store(store_dir, true);
  std::vector<std::string> keys;
  std::size_t segments = 0;
  for (const auto& entry : fs::directory_iterator(dir / "signatures")) segments += entry.path().extension() == ".json";
  for (const auto& check : result.checks) {
    if (check.candidate == gpu::kReferenceName || check.status == "unsupported") continue;
    design::DesignPoint d = parent;
    if (check.candidate != "parent") {
      // "split_k-4" -> --set split_k=4; axis names contain '_' but never '-'.
      const auto dash = check.candidate.find('-');
      if (dash == std::string::npos) {
        throw InputError(result_path, "checks", "candidate \"" + check.candidate + "\" is not AXIS-VALUE or parent");
      }
      d = design::apply(parent, {design::parse_setting(check.candidate.substr(0, dash) + "=" + check.candidate.substr(dash + 1),
                                                       result_path)},
                        result_path);
    }
    Evaluation e;
    e.key = design_key(d);
    e.design_name = design::procedural_name(d);
    e.origin = device + ", gpu profile folder " + folder + ", candidate " + check.candidate;
    e.source_check.status = check.status == "passed" ? "passed" : check.status == "failed" ? "failed" : "error";
    e.source_check.against = "vendor operator";
    if (check.equivalence.is_object()) {
      const Json& q = check.equivalence;
      e.source_check.max_abs_error = q.value("max_abs_error", 0.0);
      e.source_check.max_rel_error = q.value("max_rel_error", 0.0);
      e.source_check.worst_ratio = q.value("worst_ratio", 0.0);
      e.source_check.count = q.value("count", std::int64_t{0});
      e.source_check.failed = q.value("failed", std::int64_t{0});
    }
    e.source_check.message = check.message;
    const fs::path sig = dir / "signatures" / (gpu::segment_name(check.candidate, check.op) + ".json");
    if (fs::is_regular_file(sig)) {
      for (const auto& k : signature::read_signatures(sig.string())) {
        e.profiles.push_back(k.values);
        if (k.launch) e.launch_block_size = static_cast<int>(k.launch->block_size);
      }
      // A job that profiled every kernel lists each repeat's operator too.
      const Json j = read_json_file(sig.string());
      if (j.contains("operators") && j["operators"].is_array()) {
        for (std::size_t i = 0; i < j["operators"].size(); ++i) {
          e.add_operator(signature::OperatorSignature::from_json(j["operators"][i], sig.string(),
                                                                  "operators[" + std::to_string(i) + "]"));
        }
      }
    }
    e.set_mean();
    // The job's wall time, shared evenly by the profiled segments (the reference included).
    e.device_seconds = segments > 0 ? total / static_cast<double>(segments) : 0;
    store.put(e);
    keys.push_back(e.key);
  }
  return keys;
}

}  // namespace vxsynth::refine
