#include "signature/signature.h"

#include "common/error.h"

namespace vxsynth::signature {

Json LaunchGeometry::to_json() const {
  Json j{{"grid", grid}, {"block", block}, {"grid_size", grid_size}, {"block_size", block_size}};
  j["registers_per_thread"] = registers_per_thread ? Json(*registers_per_thread) : Json(nullptr);
  j["shared_static_bytes"] = shared_static_bytes ? Json(*shared_static_bytes) : Json(nullptr);
  j["shared_dynamic_bytes"] = shared_dynamic_bytes ? Json(*shared_dynamic_bytes) : Json(nullptr);
  return j;
}

LaunchGeometry LaunchGeometry::from_json(const Json& j, const std::string& file) {
  LaunchGeometry g;
  g.grid = get_field<std::array<long long, 3>>(j, "grid", file);
  g.block = get_field<std::array<long long, 3>>(j, "block", file);
  g.grid_size = get_field<long long>(j, "grid_size", file);
  g.block_size = get_field<long long>(j, "block_size", file);
  auto opt = [&](const char* key, std::optional<long long>& out) {
    if (j.contains(key) && !j[key].is_null()) out = get_field<long long>(j, key, file);
  };
  opt("registers_per_thread", g.registers_per_thread);
  opt("shared_static_bytes", g.shared_static_bytes);
  opt("shared_dynamic_bytes", g.shared_dynamic_bytes);
  return g;
}

Json KernelSignature::to_json() const {
  Json metrics = Json::object(), unmeasured = Json::object(), formulas = Json::object();
  for (const MetricInfo& m : metric_table()) {
    const auto i = index_of(m.id);
    const std::string key(m.key);
    metrics[key] = values[i] ? Json(*values[i]) : Json(nullptr);
    if (!values[i]) unmeasured[key] = unmeasured_reason[i];
    if (values[i] && !formula[i].empty()) formulas[key] = formula[i];
  }
  Json j{{"name", name}, {"ncu_id", ncu_id}, {"metrics", metrics}, {"unmeasured", unmeasured}};
  j["engine"] = Json{{"class", engine_key(engine)}, {"basis", engine_basis}};
  j["launch"] = launch ? launch->to_json() : Json(nullptr);
  j["duration_ns"] = duration_ns ? Json(*duration_ns) : Json(nullptr);
  j["sm_clock_hz"] = sm_clock_hz ? Json(*sm_clock_hz) : Json(nullptr);
  j["kernel_name_reading"] = name_reading.to_json();
  j["formulas"] = formulas;
  j["counters"] = counters;
  return j;
}

KernelSignature KernelSignature::from_json(const Json& j, const std::string& file, const std::string& where) {
  const std::string loc = file + " (" + where + ")";
  if (!j.is_object()) throw InputError(loc, "", "expected a kernel signature object");
  KernelSignature k;
  k.name = get_field<std::string>(j, "name", loc);
  if (j.contains("ncu_id") && j["ncu_id"].is_string()) k.ncu_id = j["ncu_id"].get<std::string>();
  const Json metrics = get_field<Json>(j, "metrics", loc);
  if (!metrics.is_object()) throw InputError(loc, "metrics", "expected an object of metric id -> number|null");
  for (const auto& [key, v] : metrics.items())
    if (!metric_from_key(key)) throw InputError(loc, "metrics." + key, "unknown metric id");
  for (const MetricInfo& m : metric_table()) {
    const std::string key(m.key);
    const auto i = index_of(m.id);
    if (!metrics.contains(key)) throw InputError(loc, "metrics." + key, "missing (use null for an unmeasured metric)");
    const Json& v = metrics[key];
    if (v.is_null()) {
      k.unmeasured_reason[i] = "unmeasured";
      if (j.contains("unmeasured") && j["unmeasured"].contains(key) && j["unmeasured"][key].is_string())
        k.unmeasured_reason[i] = j["unmeasured"][key].get<std::string>();
    } else if (v.is_number()) {
      k.values[i] = v.get<double>();
    } else {
      throw InputError(loc, "metrics." + key, "expected a number or null");
    }
  }
  if (j.contains("launch") && !j["launch"].is_null()) k.launch = LaunchGeometry::from_json(j["launch"], loc + " launch");
  if (j.contains("duration_ns") && j["duration_ns"].is_number()) k.duration_ns = j["duration_ns"].get<double>();
  if (j.contains("sm_clock_hz") && j["sm_clock_hz"].is_number()) k.sm_clock_hz = j["sm_clock_hz"].get<double>();
  if (j.contains("counters") && j["counters"].is_object())
    for (const auto& [c, v] : j["counters"].items())
      if (v.is_number()) k.counters[c] = v.get<double>();
  if (j.contains("engine") && j["engine"].is_object()) {
    const std::string cls = j["engine"].value("class", "unknown");
    k.engine = cls == "tensor_core" ? EngineClass::kTensorCore : cls == "simt" ? EngineClass::kSimt : EngineClass::kUnknown;
    k.engine_basis = j["engine"].value("basis", "");
  }
  return k;
}

Json SignatureFile::to_json() const {
  Json kernels_json = Json::array();
  for (const auto& k : kernels) kernels_json.push_back(k.to_json());
  Json j{{"schema", schema_id("signature", 1)}, {"source", source}, {"kernels", kernels_json}};
  if (platform.known()) j["platform"] = platform_to_json(platform);
  return j;
}

Platform read_platform(const std::string& spec) {
  const std::string path = spec.substr(0, spec.find('#'));
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return {};
  const Json j = read_json_file(path);
  if (!j.is_object()) return {};
  if (!j.contains("platform") || j["platform"].is_null()) {
    // A locked signature names the device its profiles ran on in its origin.
    return j.contains("origin") && j["origin"].is_string() ? platform_from_origin(j["origin"].get<std::string>()) : Platform{};
  }
  return platform_from_json(j["platform"], path, "platform");
}

std::vector<KernelSignature> read_signatures(const std::string& path) {
  const Json j = read_json_file(path);
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string())
    throw InputError(path, "schema",
                     "missing (expected \"vxsynth.signature/1\", \"vxsynth.reference/1\" or \"vxsynth.locked-signature/1\")");
  const std::string schema = j["schema"].get<std::string>();
  if (schema.rfind("vxsynth.locked-signature/", 0) == 0) {
    // A locked benchmark's signature.json: the mean of the lock's profiles, named by its design.
    require_schema(j, "locked-signature", 1, path);
    Json kernel{{"name", get_field<std::string>(j, "design", path)}, {"metrics", get_field<Json>(j, "signature", path)}};
    return {KernelSignature::from_json(kernel, path, "signature")};
  }
  if (schema.rfind("vxsynth.reference/", 0) == 0) {
    require_schema(j, "reference", 1, path);
    return {KernelSignature::from_json(get_field<Json>(j, "signature", path), path, "signature")};
  }
  require_schema(j, "signature", 1, path);
  const Json kernels = get_field<Json>(j, "kernels", path);
  if (!kernels.is_array()) throw InputError(path, "kernels", "expected an array");
  if (kernels.empty()) throw InputError(path, "kernels", "is empty");
  std::vector<KernelSignature> out;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    out.push_back(KernelSignature::from_json(kernels[i], path, "kernels[" + std::to_string(i) + "]"));
  return out;
}

}  // namespace vxsynth::signature
