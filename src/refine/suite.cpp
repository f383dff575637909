#include "refine/suite.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "common/error.h"
#include "signature/signature.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

std::string shape_text(const Json& op) {
  if (op.contains("gemm") && op["gemm"].is_object()) {
    const Json& g = op["gemm"];
    std::string s = g.value("batch", 1) != 1 ? std::to_string(g.value("batch", 1)) + "x" : "";
    return s + std::to_string(g.value("M", 0)) + "x" + std::to_string(g.value("N", 0)) + "x" + std::to_string(g.value("K", 0));
  }
  return "-";
}

std::string text_field(const Json& j, const char* object, const char* field, const std::string& file) {
  if (!j.contains(object) || !j[object].is_object() || !j[object].contains(field) || !j[object][field].is_string()) {
    throw InputError(file, std::string(object) + "." + field, "expected a string");
  }
  return j[object][field].get<std::string>();
}

}  // namespace

Json SuitePlan::to_json() const {
  Json benches = Json::array();
  for (const auto& b : benchmarks) {
    Json serves = Json::array();
    for (const auto& r : b.serves) {
      serves.push_back({{"folder", r.folder}, {"shape", r.shape}, {"share", r.share}, {"kernel", r.kernel_name}});
    }
    benches.push_back({{"name", b.name}, {"reference", b.reference}, {"workload", b.serves.front().workload},
                       {"op", b.serves.front().op_kind}, {"share", b.share}, {"merge_d", b.merge_d}, {"serves", serves},
                       {"nearest", b.nearest}, {"nearest_d", b.nearest_d}});
  }
  return {{"schema", schema_id("suite-plan", 1)}, {"dir", dir}, {"merge_below", merge_below},
          {"scope", signature::scope_key(scope)}, {"benchmarks", benches}};
}

SuitePlan plan_suite(const std::string& dir, double merge_below, const signature::DistanceConfig& distance,
                     signature::Scope scope) {
  if (!fs::is_directory(dir)) throw InputError(dir, "", "no such suite folder (expected suite/<name>/<platform>)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (fs::is_regular_file(e.path() / "reference.json")) files.push_back(e.path() / "reference.json");
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw WorkError(dir + ": no */reference.json in this suite folder");

  std::vector<SuiteReference> refs;
  std::vector<signature::MetricValues> sigs;
  for (const auto& f : files) {
    const std::string file = f.string();
    const Json j = read_json_file(file);
    SuiteReference r;
    r.folder = f.parent_path().filename().string();
    r.reference = file;
    r.workload = text_field(j, "workload", "name", file);
    r.op_kind = text_field(j, "op", "kind", file);
    r.kernel_name = text_field(j, "kernel", "name", file);
    r.shape = shape_text(j["op"]);
    if (!j["kernel"].contains("gpu_time_share") || !j["kernel"]["gpu_time_share"].is_number()) {
      throw InputError(file, "kernel.gpu_time_share", "expected a number (the kernel's share of the workload's GPU time)");
    }
    r.share = j["kernel"]["gpu_time_share"].get<double>();
    const auto kernels = signature::read_signatures_at(file, scope);
    if (kernels.size() != 1) throw InputError(file, "signature", "expected exactly one kernel signature");
    refs.push_back(r);
    sigs.push_back(kernels.front().values);
  }
  const std::size_t n = refs.size();
  auto d_of = [&](std::size_t a, std::size_t b) {
    const auto rep = signature::compute_distance(sigs[a], sigs[b], distance);
    return rep.d.value_or(1.0);
  };
  // Representatives in order of share: each reference joins the first (largest-share)
  // representative of its workload and op kind that it is within noise of.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return refs[a].share > refs[b].share; });
  std::vector<int> owner(n, -1);
  std::vector<std::size_t> reps;
  for (const std::size_t i : order) {
    for (std::size_t k = 0; k < reps.size(); ++k) {
      const std::size_t r = reps[k];
      if (refs[r].workload == refs[i].workload && refs[r].op_kind == refs[i].op_kind && d_of(i, r) < merge_below) {
        owner[i] = static_cast<int>(k);
        break;
      }
    }
    if (owner[i] < 0) {
      owner[i] = static_cast<int>(reps.size());
      reps.push_back(i);
    }
  }
  SuitePlan plan;
  plan.dir = dir;
  plan.merge_below = merge_below;
  plan.scope = scope;
  for (std::size_t k = 0; k < reps.size(); ++k) {
    SuiteBenchmark b;
    const std::size_t r = reps[k];
    b.name = refs[r].folder;
    b.reference = refs[r].reference;
    b.serves.push_back(refs[r]);
    b.share = refs[r].share;
    for (const std::size_t i : order) {
      if (owner[i] != static_cast<int>(k) || i == r) continue;
      b.serves.push_back(refs[i]);
      b.share += refs[i].share;
      b.merge_d = std::max(b.merge_d, d_of(i, r));
    }
    b.nearest_d = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      if (owner[i] == static_cast<int>(k)) continue;
      const double d = d_of(r, i);
      if (d < b.nearest_d) {
        b.nearest_d = d;
        b.nearest = refs[i].folder;
      }
    }
    if (b.nearest.empty()) b.nearest_d = 0;
    plan.benchmarks.push_back(b);
  }
  std::sort(plan.benchmarks.begin(), plan.benchmarks.end(),
            [](const SuiteBenchmark& a, const SuiteBenchmark& b) { return a.name < b.name; });
  return plan;
}

}  // namespace vxsynth::refine
