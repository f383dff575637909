#include "refine/vortex_side.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "common/error.h"
#include "refine/evaluation.h"
#include "refine/vortex_signature.h"
#include "vxsim/timing/params.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

Json distance_json(const signature::DistanceReport& r, const std::string& against) {
  Json per = Json::object();
  for (const auto& m : signature::metric_table()) {
    const auto& v = r.per_metric[signature::index_of(m.id)];
    per[std::string(m.key)] = v ? Json(*v) : Json(nullptr);
  }
  return {{"against", against}, {"d", r.d ? Json(*r.d) : Json(nullptr)}, {"distances", per}, {"scored", r.scored}};
}

bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

std::string fixed(double v, int digits) {
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(digits) << v;
  return ss.str();
}

}  // namespace

signature::MetricValues metric_values(const Json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "expected an object of the ten metrics");
  signature::MetricValues v{};
  for (const auto& m : signature::metric_table()) {
    const std::string key(m.key);
    if (!j.contains(key) || j[key].is_null()) continue;
    if (!j[key].is_number()) throw InputError(file, where + "." + key, "expected a number or null");
    v[signature::index_of(m.id)] = j[key].get<double>();
  }
  return v;
}

Json folder_digests(const fs::path& dir) {
  Json out = Json::object();
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) out[e.path().filename().string()] = sha256_file(e.path().string());
  }
  return out;
}

Json vortex_side_document(const fs::path& bench_dir, const VortexSideRun& r) {
  const std::string bench = bench_dir.filename().string();
  const Json design = read_json_file((bench_dir / "design.json").string());
  const std::string sig_file = (bench_dir / "signature.json").string();
  const Json locked = read_json_file(sig_file);
  const Json validation = read_json_file((bench_dir / "validation.json").string());
  const std::string ref_file = (bench_dir / "reference.json").string();
  // The Vortex side is every launch of the benchmark: the reference's whole call where it has
  // one (its hot kernel where it was captured before operator scope).
  const bool ref_operator = read_json_file(ref_file).contains("operator");
  const auto reference =
      signature::read_signatures_at(ref_file, ref_operator ? signature::Scope::kOperator : signature::Scope::kKernel).at(0);
  const std::string cuda_scope = locked.value("scope", "kernel");

  VortexSignatureOptions so;
  so.clock_mhz = r.clock_mhz;
  signature::KernelSignature k = vortex_signature(r.run, bench + "/vortex", so);
  k.name = bench + " (Vortex side: " + design.value("name", "") + ")";
  const signature::DistanceConfig cfg;
  const auto cuda = metric_values(locked.value("signature", Json()), sig_file, "signature");
  const auto to_cuda = signature::compute_distance(k.values, cuda, cfg);
  const auto to_ref = signature::compute_distance(k.values, reference.values, cfg);

  signature::SignatureFile f;
  f.source = bench + "/vortex at its profiled shape, vortex2 timing model (vxsynth suite run --signature)";
  f.kernels.push_back(k);
  Json doc = f.to_json();
  const Json& t = r.run["timing"];
  doc["vortex_side"] = {
      {"schema", schema_id("vortex-side", 1)},
      {"benchmark", bench},
      {"design", design.value("name", "")},
      {"revision", locked.value("revision", -1)},
      {"key", locked.value("key", "")},
      {"machine", r.run["config"]},
      {"timing_model", t.value("model", "")},
      {"timing_params", t["params"]},
      {"clock_mhz", r.clock_mhz},
      {"input_seed", validation.value("input_seed", Json())},
      {"vortex_sources", folder_digests(bench_dir / "vortex")},
      {"cycles", r.run["cycles"]},
      {"instrs", r.run["instrs"]},
      {"ipc", r.run["ipc"]},
      {"launches", r.run.value("launches", 1)},
      {"check", r.check},
      // What each side covers: the Vortex side sums every launch (operator scope).
      {"scopes", {{"vortex", "operator"}, {"cuda", cuda_scope}, {"reference", ref_operator ? "operator" : "kernel"}}},
      {"distance_to_cuda", distance_json(to_cuda, "signature.json (the locked CUDA proxy's signature, " + cuda_scope + " scope)")},
      {"distance_to_reference",
       distance_json(to_ref, std::string("reference.json (the vendor ") + (ref_operator ? "call's" : "kernel's") + " signature)")},
      {"proxy_d", locked.value("d", Json())},
      // Measured on the machine that made the file (shared and noisy: docs/measurements/vortex-suite-signatures.md).
      {"wall_seconds", {{"build", r.build_seconds}, {"simulate", r.run_seconds}}},
      {"cpu_seconds", {{"simulate", r.run_cpu_seconds}}},
      {"command", r.command},
      {"run", r.run}};
  return doc;
}

VortexSideStatus read_vortex_side(const fs::path& bench_dir) {
  VortexSideStatus s;
  const fs::path path = bench_dir / kVortexSignatureFile;
  if (!fs::is_regular_file(path)) return s;
  const std::string file = path.string();
  const Json doc = read_json_file(file);
  if (!doc.contains("vortex_side") || !doc["vortex_side"].is_object() ||
      doc["vortex_side"].value("schema", "") != schema_id("vortex-side", 1)) {
    throw InputError(file, "vortex_side.schema", "expected \"" + schema_id("vortex-side", 1) + "\" (written by `vxsynth suite run --signature`)");
  }
  s.present = true;
  const Json& v = doc["vortex_side"];
  const auto kernels = signature::read_signatures(file);
  const auto& k = kernels.at(0);
  s.cycles = v.value("cycles", 0.0);
  s.ipc = v.value("ipc", 0.0);
  s.run_seconds = v["wall_seconds"].value("simulate", 0.0);
  const Json& m = v["machine"];
  s.machine = std::to_string(m.value("cores", 0)) + "x" + std::to_string(m.value("warps", 0)) + "x" +
              std::to_string(m.value("threads", 0));
  std::vector<std::string> why;
  // The sources it ran are the committed ones.
  const Json now = folder_digests(bench_dir / "vortex");
  if (now != v["vortex_sources"]) {
    std::string changed;
    for (const auto& [name, sha] : now.items()) {
      if (!v["vortex_sources"].contains(name) || v["vortex_sources"][name] != sha) changed += " " + name;
    }
    for (const auto& [name, sha] : v["vortex_sources"].items()) {
      if (!now.contains(name)) changed += " " + name + "(gone)";
    }
    why.push_back("the Vortex sources changed since it ran:" + changed);
  }
  const Json design = read_json_file((bench_dir / "design.json").string());
  if (design.value("name", "") != v.value("design", "")) why.push_back("design.json is another design now");
  // The cycles come from today's timing model (files before the field: revision 1).
  const Json timing = v.contains("run") && v["run"].is_object() ? v["run"].value("timing", Json()) : Json();
  const uint64_t revision = timing.is_object() ? timing.value("revision", uint64_t{1}) : uint64_t{1};
  if (revision != vxsim::timing::kModelRevision) {
    why.push_back("it ran on the timing model's revision " + std::to_string(revision) + ", today's is " +
                  std::to_string(vxsim::timing::kModelRevision) + " (other cycles: docs/vxsim-timing.md)");
  }
  // The values are what today's formulas give for the recorded counters.
  VortexSignatureOptions so;
  so.clock_mhz = v.value("clock_mhz", 200.0);
  const auto again = vortex_signature(v["run"], file, so);
  for (const auto& mi : signature::metric_table()) {
    const auto i = signature::index_of(mi.id);
    if (again.values[i].has_value() != k.values[i].has_value() ||
        (again.values[i] && !same(*again.values[i], *k.values[i]))) {
      why.push_back(std::string(mi.key) + " is not what the recorded counters give (the Vortex-side formulas changed)");
    }
  }
  // D to both sides, from today's files.
  const signature::DistanceConfig cfg;
  const std::string sig_file = (bench_dir / "signature.json").string();
  const Json locked = read_json_file(sig_file);
  const auto cuda = metric_values(locked.value("signature", Json()), sig_file, "signature");
  // The reference at the scope the file compared with (files without "scopes": its hot kernel).
  const std::string ref_scope = v.contains("scopes") ? v["scopes"].value("reference", "kernel") : "kernel";
  const auto ref = signature::read_signatures_at((bench_dir / "reference.json").string(),
                                                 signature::scope_from_key(ref_scope, file, "vortex_side.scopes.reference"))
                       .at(0);
  s.d_cuda = signature::compute_distance(k.values, cuda, cfg).d;
  s.d_reference = signature::compute_distance(k.values, ref.values, cfg).d;
  auto recorded = [&](const char* key) -> std::optional<double> {
    const Json& d = v[key]["d"];
    return d.is_number() ? std::optional<double>(d.get<double>()) : std::nullopt;
  };
  const auto rc = recorded("distance_to_cuda"), rr = recorded("distance_to_reference");
  if (rc.has_value() != s.d_cuda.has_value() || (rc && !same(*rc, *s.d_cuda))) {
    why.push_back("signature.json changed since it ran (recorded D to the CUDA side " + (rc ? fixed(*rc, 4) : "-") +
                  ", today " + (s.d_cuda ? fixed(*s.d_cuda, 4) : "-") + ")");
  }
  if (rr.has_value() != s.d_reference.has_value() || (rr && !same(*rr, *s.d_reference))) {
    why.push_back("reference.json changed since it ran");
  }
  for (const auto& w : why) s.stale += (s.stale.empty() ? "" : "; ") + w;
  return s;
}

}  // namespace vxsynth::refine
