#include "refine/evaluation.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "gpu/sha256.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

constexpr const char* kEvaluationKind = "evaluation";
constexpr int kEvaluationVersion = 1;

Json values_to_json(const signature::MetricValues& v) {
  Json j = Json::object();
  for (const auto& m : signature::metric_table()) {
    const auto i = signature::index_of(m.id);
    j[std::string(m.key)] = v[i] ? Json(*v[i]) : Json(nullptr);
  }
  return j;
}

signature::MetricValues values_from_json(const Json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "expected an object of metric id -> number|null");
  signature::MetricValues v{};
  for (const auto& [key, value] : j.items()) {
    const auto id = signature::metric_from_key(key);
    if (!id) throw InputError(file, where + "." + key, "unknown metric id");
    if (value.is_null()) continue;
    if (!value.is_number()) throw InputError(file, where + "." + key, "expected a number or null");
    v[signature::index_of(*id)] = value.get<double>();
  }
  for (const auto& m : signature::metric_table()) {
    if (!j.contains(std::string(m.key))) throw InputError(file, where + "." + std::string(m.key), "missing (null if unmeasured)");
  }
  return v;
}

double number_or(const Json& j, const char* key, double fallback) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : fallback;
}

std::string text_or(const Json& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

}  // namespace

std::string sha256_hex(const std::string& text) {
  gpu::Sha256 h;
  h.update(text);
  return h.hex_digest();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return sha256_hex(ss.str());
}

std::string design_key(const design::DesignPoint& d) {
  Json j = design::design_to_json(d);
  j.erase("reference");
  return "design-" + sha256_hex(j.dump()).substr(0, 16);
}

std::string source_key(const std::string& cuda_text) { return "source-" + sha256_hex(cuda_text).substr(0, 16); }

Json CheckOutcome::to_json() const {
  Json j{{"status", status}, {"against", against}};
  if (status == "passed" || status == "failed") {
    j["max_abs_error"] = max_abs_error;
    j["max_rel_error"] = max_rel_error;
    j["worst_ratio"] = worst_ratio;
    j["count"] = count;
    j["failed"] = failed;
  }
  if (!message.empty()) j["message"] = message;
  return j;
}

CheckOutcome CheckOutcome::from_json(const Json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "expected a check object {\"status\": ...}");
  CheckOutcome c;
  c.status = text_or(j, "status");
  if (c.status != "passed" && c.status != "failed" && c.status != "error" && c.status != "not-run" && c.status != "skipped" &&
      c.status != "deferred") {
    throw InputError(file, where + ".status",
                     "expected passed, failed, error, not-run, skipped or deferred, got \"" + c.status + "\"");
  }
  c.against = text_or(j, "against");
  c.max_abs_error = number_or(j, "max_abs_error", 0);
  c.max_rel_error = number_or(j, "max_rel_error", 0);
  c.worst_ratio = number_or(j, "worst_ratio", 0);
  c.count = static_cast<std::int64_t>(number_or(j, "count", 0));
  c.failed = static_cast<std::int64_t>(number_or(j, "failed", 0));
  c.message = text_or(j, "message");
  return c;
}

Candidate confirmation_of(const Candidate& c, int repeats) {
  Candidate k = c;
  k.key = c.key + "-confirm" + std::to_string(repeats);
  k.repeats = repeats;
  return k;
}

void merge_confirmation(Evaluation& screen, const Evaluation& confirm) {
  if (screen.source_check.passed() && !confirm.source_check.passed()) {
    screen.source_check = confirm.source_check;
    screen.source_check.message = "confirmation profiles: " + screen.source_check.message;
  }
  screen.profiles.insert(screen.profiles.end(), confirm.profiles.begin(), confirm.profiles.end());
  screen.operator_profiles.insert(screen.operator_profiles.end(), confirm.operator_profiles.begin(),
                                  confirm.operator_profiles.end());
  screen.operator_duration_ns.insert(screen.operator_duration_ns.end(), confirm.operator_duration_ns.begin(),
                                     confirm.operator_duration_ns.end());
  screen.operator_dram_bytes.insert(screen.operator_dram_bytes.end(), confirm.operator_dram_bytes.begin(),
                                    confirm.operator_dram_bytes.end());
  screen.device_seconds += confirm.device_seconds;
  screen.build_seconds += confirm.build_seconds;
  screen.set_mean();
}

namespace {

signature::MetricValues mean_of(const std::vector<signature::MetricValues>& profiles) {
  signature::MetricValues mean{};
  for (std::size_t i = 0; i < signature::kMetricCount; ++i) {
    double sum = 0;
    int n = 0;
    for (const auto& p : profiles) {
      if (p[i]) {
        sum += *p[i];
        ++n;
      }
    }
    // A metric counts only when every repeat measured it.
    if (n > 0 && n == static_cast<int>(profiles.size())) mean[i] = sum / n;
  }
  return mean;
}

}  // namespace

void Evaluation::set_mean() {
  mean = mean_of(profiles);
  operator_mean = mean_of(operator_profiles);
}

void Evaluation::add_operator(const signature::OperatorSignature& op) {
  operator_profiles.push_back(op.signature.values);
  operator_duration_ns.push_back(op.duration_ns);
  operator_dram_bytes.push_back(op.dram_bytes);
}

std::optional<double> Evaluation::operator_duration_mean() const {
  if (operator_duration_ns.empty()) return std::nullopt;
  double sum = 0;
  for (double v : operator_duration_ns) sum += v;
  return sum / static_cast<double>(operator_duration_ns.size());
}

std::optional<double> Evaluation::operator_dram_bytes_mean() const {
  if (operator_dram_bytes.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& v : operator_dram_bytes) {
    if (!v) return std::nullopt;
    sum += *v;
  }
  return sum / static_cast<double>(operator_dram_bytes.size());
}

Json Evaluation::to_json() const {
  Json j{{"schema", schema_id(kEvaluationKind, kEvaluationVersion)},
         {"key", key},
         {"design_name", design_name},
         {"origin", origin},
         {"source_check", source_check.to_json()}};
  Json p = Json::array();
  for (const auto& v : profiles) p.push_back(values_to_json(v));
  j["profiles"] = p;
  if (!operator_profiles.empty()) {
    Json op = Json::array(), bytes = Json::array();
    for (const auto& v : operator_profiles) op.push_back(values_to_json(v));
    for (const auto& b : operator_dram_bytes) bytes.push_back(b ? Json(*b) : Json(nullptr));
    j["operator_profiles"] = op;
    j["operator_duration_ns"] = operator_duration_ns;
    j["operator_dram_bytes"] = bytes;
  }
  j["launch_block_size"] = launch_block_size;
  j["device_seconds"] = device_seconds;
  if (build_seconds > 0) j["build_seconds"] = build_seconds;  // absent in stores made before it was split out
  j["candidate_check"] = candidate_check ? candidate_check->to_json() : Json(nullptr);
  j["sim_seconds"] = sim_seconds;
  j["cuda_sha256"] = cuda_sha256;
  j["vortex_sha256"] = vortex_sha256;
  if (!generator.unversioned()) j["generator"] = codegen::generator_to_json(generator);
  if (platform.known()) j["platform"] = signature::platform_to_json(platform);
  return j;
}

Evaluation Evaluation::from_json(const Json& j, const std::string& file) {
  require_schema(j, kEvaluationKind, kEvaluationVersion, file);
  for (const auto& [k, _] : j.items()) {
    static const char* known[] = {"schema",          "key",             "design_name", "origin",
                                  "source_check",    "profiles",        "launch_block_size", "device_seconds",
                                  "build_seconds",   "candidate_check", "sim_seconds",     "cuda_sha256", "vortex_sha256",
                                  "generator",       "platform",        "operator_profiles", "operator_duration_ns",
                                  "operator_dram_bytes"};
    bool ok = false;
    for (const char* n : known) ok |= k == n;
    if (!ok) throw InputError(file, k, "unknown field");
  }
  Evaluation e;
  e.key = get_field<std::string>(j, "key", file);
  e.design_name = text_or(j, "design_name");
  e.origin = text_or(j, "origin");
  if (!j.contains("source_check")) throw InputError(file, "source_check", "missing");
  e.source_check = CheckOutcome::from_json(j.at("source_check"), file, "source_check");
  if (!j.contains("profiles") || !j.at("profiles").is_array()) throw InputError(file, "profiles", "expected an array");
  for (std::size_t i = 0; i < j.at("profiles").size(); ++i) {
    e.profiles.push_back(values_from_json(j.at("profiles")[i], file, "profiles[" + std::to_string(i) + "]"));
  }
  if (j.contains("operator_profiles")) {
    const Json& op = j.at("operator_profiles");
    const Json ns = get_field<Json>(j, "operator_duration_ns", file), bytes = get_field<Json>(j, "operator_dram_bytes", file);
    if (!op.is_array() || !ns.is_array() || !bytes.is_array() || ns.size() != op.size() || bytes.size() != op.size())
      throw InputError(file, "operator_profiles",
                       "expected arrays operator_profiles, operator_duration_ns and operator_dram_bytes of one entry per repeat");
    for (std::size_t i = 0; i < op.size(); ++i) {
      e.operator_profiles.push_back(values_from_json(op[i], file, "operator_profiles[" + std::to_string(i) + "]"));
      if (!ns[i].is_number()) throw InputError(file, "operator_duration_ns[" + std::to_string(i) + "]", "expected a number");
      e.operator_duration_ns.push_back(ns[i].get<double>());
      if (!bytes[i].is_null() && !bytes[i].is_number())
        throw InputError(file, "operator_dram_bytes[" + std::to_string(i) + "]", "expected a number or null");
      e.operator_dram_bytes.push_back(bytes[i].is_null() ? std::nullopt : std::optional<double>(bytes[i].get<double>()));
    }
  }
  e.set_mean();
  e.launch_block_size = static_cast<int>(number_or(j, "launch_block_size", 0));
  e.device_seconds = number_or(j, "device_seconds", 0);
  e.build_seconds = number_or(j, "build_seconds", 0);
  if (j.contains("candidate_check") && !j.at("candidate_check").is_null()) {
    e.candidate_check = CheckOutcome::from_json(j.at("candidate_check"), file, "candidate_check");
  }
  e.sim_seconds = number_or(j, "sim_seconds", 0);
  e.cuda_sha256 = text_or(j, "cuda_sha256");
  e.vortex_sha256 = text_or(j, "vortex_sha256");
  e.generator = codegen::generator_from_json(j, file);
  // Evaluations made before platforms were recorded name the device at the start of origin.
  e.platform = j.contains("platform") ? signature::platform_from_json(j.at("platform"), file, "platform")
                                      : signature::platform_from_origin(e.origin);
  return e;
}

EvaluationStore::EvaluationStore(std::string dir, bool create) : dir_(std::move(dir)) {
  std::error_code ec;
  if (create) fs::create_directories(dir_, ec);
  if (!fs::is_directory(dir_)) {
    throw InputError(dir_, "", create ? "cannot create the evaluation folder" : "no such evaluation store (a folder of vxsynth.evaluation/1 files)");
  }
}

std::string EvaluationStore::path_of(const std::string& key) const {
  for (const char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) {
      throw InputError("evaluation key", key, "only letters, digits, '-' and '_' are allowed");
    }
  }
  return (fs::path(dir_) / (key + ".json")).string();
}

std::optional<Evaluation> EvaluationStore::get(const std::string& key) const {
  const std::string path = path_of(key);
  if (!fs::is_regular_file(path)) return std::nullopt;
  Evaluation e = Evaluation::from_json(read_json_file(path), path);
  if (e.key != key) throw InputError(path, "key", "is \"" + e.key + "\", the file name says \"" + key + "\"");
  return e;
}

void EvaluationStore::put(const Evaluation& e) const { write_json_file(path_of(e.key), e.to_json()); }

std::vector<std::string> EvaluationStore::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void EvaluationStore::supersede(const std::string& key) const {
  const auto e = get(key);
  if (!e) return;
  const fs::path dir = fs::path(dir_) / "superseded";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string digest = e->cuda_sha256.empty() ? std::string("unknown") : e->cuda_sha256.substr(0, 12);
  fs::path to = dir / (key + "-" + digest + ".json");
  for (int n = 2; fs::exists(to); ++n) to = dir / (key + "-" + digest + "-" + std::to_string(n) + ".json");
  fs::rename(path_of(key), to, ec);
  if (ec) throw WorkError("cannot move " + path_of(key) + " to " + to.string() + ": " + ec.message());
}

int import_evaluations(const EvaluationStore& from, const EvaluationStore& into) {
  int copied = 0;
  for (const auto& key : from.keys()) {
    if (into.get(key)) continue;
    const auto e = from.get(key);
    if (!e || !e->source_check.passed() || e->profiles.empty()) continue;
    into.put(*e);
    ++copied;
  }
  return copied;
}

}  // namespace vxsynth::refine
