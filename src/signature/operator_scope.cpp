#include "signature/operator_scope.h"

#include <algorithm>

#include "common/error.h"
#include "signature/derive.h"

namespace vxsynth::signature {

namespace {

constexpr double kSectorBytes = 32.0;  // the arithmetic-intensity floor: one sector

std::optional<double> dram_bytes_of(const KernelSignature& k) {
  const auto names = dram_byte_counters();
  const auto r = k.counters.find(std::string(names[0])), w = k.counters.find(std::string(names[1]));
  if (r == k.counters.end() || w == k.counters.end()) return std::nullopt;
  return r->second + w->second;
}

}  // namespace

std::string_view scope_key(Scope s) { return s == Scope::kOperator ? "operator" : "kernel"; }

Scope scope_from_key(const std::string& key, const std::string& file, const std::string& field) {
  if (key == "operator") return Scope::kOperator;
  if (key == "kernel") return Scope::kKernel;
  throw InputError(file, field, "expected \"kernel\" or \"operator\", found \"" + key + "\"");
}

KernelWeight operator_weight(const KernelSignature& k, OperatorWeight w) {
  const double duration = k.duration_ns.value_or(0);
  if (w == OperatorWeight::kDuration) return {duration, true};
  if (w == OperatorWeight::kDramBytes) {
    const auto bytes = dram_bytes_of(k);
    return bytes ? KernelWeight{std::max(*bytes, kSectorBytes), true} : KernelWeight{duration, false};
  }
  const auto it = k.counters.find(std::string(*weight_counter(w)));
  return it != k.counters.end() ? KernelWeight{it->second, true} : KernelWeight{duration, false};
}

bool OperatorSignature::exact() const {
  return std::all_of(approximate.begin(), approximate.end(), [](const std::string& s) { return s.empty(); });
}

OperatorSignature aggregate_operator(const std::vector<KernelSignature>& kernels, const std::string& name,
                                     const std::string& source) {
  if (kernels.empty()) throw InputError(source, "", "an operator needs at least one kernel");
  OperatorSignature op;
  const KernelSignature* longest = &kernels.front();
  bool all_bytes = true;
  double bytes = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    if (!k.duration_ns)
      throw InputError(source, "kernels[" + std::to_string(i) + "].duration_ns",
                       "kernel '" + k.name + "' has no duration (gpu__time_duration.sum): an operator's time is their sum");
    op.kernels.push_back({k.name, k.ncu_id, *k.duration_ns, dram_bytes_of(k)});
    op.duration_ns += *k.duration_ns;
    if (const auto b = op.kernels.back().dram_bytes) bytes += *b;
    else all_bytes = false;
    if (*k.duration_ns > longest->duration_ns.value_or(0)) longest = &k;
  }
  if (all_bytes) op.dram_bytes = bytes;

  KernelSignature& s = op.signature;
  s.name = name;
  s.duration_ns = op.duration_ns;
  s.engine = longest->engine;
  s.engine_basis = longest->engine_basis.empty() ? "" : "its longest kernel's: " + longest->engine_basis;
  s.name_reading = longest->name_reading;
  const std::string n = std::to_string(kernels.size());
  for (const MetricInfo& m : metric_table()) {
    const auto i = index_of(m.id);
    std::string unmeasured_in;
    for (const auto& k : kernels)
      if (!k.values[i]) unmeasured_in += (unmeasured_in.empty() ? "" : ", ") + k.name;
    if (!unmeasured_in.empty()) {
      s.unmeasured_reason[i] = "unmeasured in kernel(s) " + unmeasured_in;
      continue;
    }
    // One weight for all kernels: sectors for one and nanoseconds for another do not mix, so a
    // kernel without the table's weight counter sends every kernel to its duration.
    std::string fallback;
    for (const auto& k : kernels)
      if (fallback.empty() && !operator_weight(k, m.weight).as_table_says) fallback = k.name;
    const OperatorWeight weight = fallback.empty() ? m.weight : OperatorWeight::kDuration;
    double sum_w = 0, sum_wv = 0, plain = 0;
    for (const auto& k : kernels) {
      const double w = operator_weight(k, weight).value;
      sum_w += w;
      sum_wv += w * *k.values[i];
      plain += *k.values[i];
    }
    // No kernel carries any of the weight (no global loads at all): every kernel's value is over
    // nothing, and their plain mean is what is left (0 for coalescing).
    s.values[i] = sum_w > 0 ? sum_wv / sum_w : plain / static_cast<double>(kernels.size());
    s.formula[i] = "mean of " + n + " kernel(s) weighted by " + std::string(weight_key(m.weight));
    if (!fallback.empty() && kernels.size() > 1) {
      op.approximate[i] = std::string(weight_key(m.weight)) + " not collected for kernel '" + fallback +
                          "': weighted by duration instead";
      s.formula[i] += " (duration where absent)";
    }
  }
  return op;
}

Json OperatorSignature::to_json() const {
  Json ks = Json::array();
  for (const auto& k : kernels)
    ks.push_back({{"name", k.name}, {"ncu_id", k.ncu_id}, {"duration_ns", k.duration_ns},
                  {"dram_bytes", k.dram_bytes ? Json(*k.dram_bytes) : Json(nullptr)}});
  Json approx = Json::object();
  for (const MetricInfo& m : metric_table())
    if (!approximate[index_of(m.id)].empty()) approx[std::string(m.key)] = approximate[index_of(m.id)];
  Json j = signature.to_json();
  j.erase("launch");
  j.erase("counters");
  j.erase("ncu_id");
  j["scope"] = "operator";
  j["kernels"] = ks;
  j["duration_ns"] = duration_ns;
  j["dram_bytes"] = dram_bytes ? Json(*dram_bytes) : Json(nullptr);
  j["approximate"] = approx;
  return j;
}

OperatorSignature OperatorSignature::from_json(const Json& j, const std::string& file, const std::string& where) {
  OperatorSignature op;
  op.signature = KernelSignature::from_json(j, file, where);
  const std::string loc = file + " (" + where + ")";
  if (j.contains("scope") && get_field<std::string>(j, "scope", loc) != "operator")
    throw InputError(loc, "scope", "expected \"operator\"");
  const Json ks = get_field<Json>(j, "kernels", loc);
  if (!ks.is_array() || ks.empty()) throw InputError(loc, "kernels", "expected a non-empty array of the operator's kernels");
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const std::string kl = loc + " kernels[" + std::to_string(i) + "]";
    OperatorKernel k;
    k.name = get_field<std::string>(ks[i], "name", kl);
    if (ks[i].contains("ncu_id") && ks[i]["ncu_id"].is_string()) k.ncu_id = ks[i]["ncu_id"].get<std::string>();
    k.duration_ns = get_field<double>(ks[i], "duration_ns", kl);
    if (ks[i].contains("dram_bytes") && !ks[i]["dram_bytes"].is_null()) k.dram_bytes = get_field<double>(ks[i], "dram_bytes", kl);
    op.kernels.push_back(k);
  }
  op.duration_ns = get_field<double>(j, "duration_ns", loc);
  if (j.contains("dram_bytes") && !j["dram_bytes"].is_null()) op.dram_bytes = get_field<double>(j, "dram_bytes", loc);
  if (j.contains("approximate") && j["approximate"].is_object())
    for (const auto& [key, v] : j["approximate"].items()) {
      const auto id = metric_from_key(key);
      if (!id || !v.is_string()) throw InputError(loc, "approximate." + key, "expected a metric id and a reason");
      op.approximate[index_of(*id)] = v.get<std::string>();
    }
  return op;
}

std::vector<KernelSignature> read_signatures_at(const std::string& path, Scope scope) {
  if (scope == Scope::kKernel) {
    const Json j = read_json_file(path);
    const bool lock = j.is_object() && j.contains("schema") && j["schema"] == schema_id("locked-signature", 1);
    if (lock && j.contains("scope") && scope_from_key(get_field<std::string>(j, "scope", path), path, "scope") != scope)
      throw InputError(path, "scope", "this lock's signature is of the whole operator; compare it at operator scope");
    return read_signatures(path);
  }
  const Json j = read_json_file(path);
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string()) return read_signatures(path);  // its error
  const std::string schema = j["schema"].get<std::string>();
  if (schema == schema_id("locked-signature", 1)) {
    const std::string locked_at = j.contains("scope") ? get_field<std::string>(j, "scope", path) : "kernel";
    if (scope_from_key(locked_at, path, "scope") != Scope::kOperator)
      throw InputError(path, "scope",
                       "this lock was measured on its longest kernel only (locked before operator scope): re-lock "
                       "it, or compare at kernel scope (--scope kernel)");
    return read_signatures(path);
  }
  if (schema == schema_id("reference", 1)) {
    if (!j.contains("operator") || !j["operator"].is_object())
      throw InputError(path, "operator",
                       "missing: this reference names its hot kernel only (captured before operator scope); "
                       "write it again from its capture with `python3 -m vxsynth.capture --finalize`, or compare "
                       "at kernel scope (--scope kernel)");
    return {OperatorSignature::from_json(j["operator"], path, "operator").signature};
  }
  read_signatures(path);  // the schema's own checks
  std::vector<KernelSignature> out;
  if (j.contains("operators") && j["operators"].is_array()) {
    for (std::size_t i = 0; i < j["operators"].size(); ++i)
      out.push_back(OperatorSignature::from_json(j["operators"][i], path, "operators[" + std::to_string(i) + "]").signature);
  } else if (j.contains("operator") && j["operator"].is_object()) {
    out.push_back(OperatorSignature::from_json(j["operator"], path, "operator").signature);
  }
  if (out.empty())
    throw InputError(path, "operators",
                     "missing: this signature file holds single kernels only; aggregate an operator with "
                     "`vxsynth signature --operator`, or compare at kernel scope (--scope kernel)");
  return out;
}

}  // namespace vxsynth::signature
