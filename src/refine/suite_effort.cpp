#include "refine/suite_effort.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "common/error.h"
#include "design/design_point.h"
#include "design/seed.h"
#include "refine/record.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

struct Tally {
  std::set<std::string> runs, chains, retained;
  std::map<std::string, double> device;  // design key -> its largest recorded device seconds
  std::optional<double> seed_d;           // the reference's seed design, as first profiled
};

std::vector<fs::path> chain_dirs(const fs::path& run) {
  std::vector<fs::path> out;
  auto add_chains = [&out](const fs::path& dir) {
    for (const auto& c : fs::directory_iterator(dir)) {
      if (c.is_directory() && fs::is_regular_file(c.path() / "revisions.jsonl")) out.push_back(c.path());
    }
  };
  add_chains(run);
  for (const auto& w : fs::directory_iterator(run)) {
    if (w.is_directory() && w.path().filename().string().rfind("worker-", 0) == 0) add_chains(w.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Json suite_effort(const SuitePlan& plan, const std::string& runs_dir) {
  if (!fs::is_directory(runs_dir)) throw InputError(runs_dir, "", "no such folder of runs");
  std::map<std::string, std::string> bench_of;  // benchmark or served reference folder -> benchmark
  std::map<std::string, std::string> seed_of;   // benchmark -> its seed design's name
  for (const auto& b : plan.benchmarks) {
    bench_of[b.name] = b.name;
    seed_of[b.name] = design::procedural_name(design::seed_from_reference(b.reference));
    for (const auto& r : b.serves) bench_of[r.folder] = b.name;
  }
  std::map<std::string, Tally> tally;
  Json unattributed = Json::array();
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(runs_dir)) {
    if (e.is_directory()) runs.push_back(e.path());
  }
  std::sort(runs.begin(), runs.end());
  for (const auto& run : runs) {
    for (const auto& chain : chain_dirs(run)) {
      std::string bench;
      if (auto it = bench_of.find(chain.filename().string()); it != bench_of.end()) bench = it->second;
      const fs::path start = chain / "designs" / "r0.json";
      if (bench.empty() && fs::is_regular_file(start)) {
        const Json d = read_json_file(start.string());
        if (auto it = bench_of.find(d.value("reference", "")); it != bench_of.end()) bench = it->second;
      }
      const std::string name = run.filename().string() + "/" + fs::relative(chain, run).string();
      if (bench.empty()) {
        unattributed.push_back(name);
        continue;
      }
      Tally& t = tally[bench];
      t.runs.insert(run.filename().string());
      t.chains.insert(name);
      const std::string file = (chain / "revisions.jsonl").string();
      for (const Json& r : read_records(file)) {
        if (!r.contains("key") || !r["key"].is_string()) throw InputError(file, "key", "expected each record's design key (a string)");
        const std::string key = r["key"].get<std::string>();
        double& dev = t.device[key];
        dev = std::max(dev, r.value("device_seconds", 0.0));
        if (r.value("decision", "") == "retained") t.retained.insert(key);
        if (!t.seed_d && r.value("design", "") == seed_of[bench] && r.contains("d") && r["d"].is_number()) t.seed_d = r["d"].get<double>();
      }
    }
  }
  Json out{{"schema", schema_id("suite-effort", 1)}, {"runs_dir", runs_dir}, {"runs", runs.size()},
           {"benchmarks", Json::object()}, {"unattributed_chains", unattributed}};
  for (const auto& b : plan.benchmarks) {
    const Tally& t = tally[b.name];
    double device = 0;
    for (const auto& [key, s] : t.device) device += s;
    out["benchmarks"][b.name] = Json{{"runs", Json(std::vector<std::string>(t.runs.begin(), t.runs.end()))},
                                     {"chains", t.chains.size()},
                                     {"designs", t.device.size()},
                                     {"retained", t.retained.size()},
                                     {"device_seconds", device},
                                     {"seed_d", t.seed_d ? Json(*t.seed_d) : Json(nullptr)}};
  }
  return out;
}

std::vector<std::string> write_suite_effort(const SuitePlan& plan, const Json& effort) {
  std::vector<std::string> written;
  for (const auto& b : plan.benchmarks) {
    const fs::path dir = fs::path(plan.dir) / b.name;
    if (!fs::is_regular_file(dir / "signature.json") || !effort["benchmarks"].contains(b.name)) continue;
    Json e = effort["benchmarks"][b.name];
    e["schema"] = schema_id("effort", 1);
    e["benchmark"] = b.name;
    // The lock it was counted for: a later re-lock (from a run not counted yet) makes it stale.
    e["locked_key"] = read_json_file((dir / "signature.json").string()).value("key", "");
    e["runs_dir"] = effort["runs_dir"];
    write_json_file((dir / kEffortFile).string(), e);
    written.push_back(b.name);
  }
  return written;
}

}  // namespace vxsynth::refine
