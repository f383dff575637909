#include "signature/platform.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "common/error.h"
#include "common/json_io.h"

namespace vxsynth::signature {
namespace {

// GPU name fragments and the platform id they mean (python/vxsynth/reference.py's PLATFORMS).
struct KnownPlatform {
  const char* id;
  const char* fragments[2];
};
constexpr KnownPlatform kKnownPlatforms[] = {
    {"h200", {"H200", nullptr}},
    {"h100", {"H100", nullptr}},
    {"jetson-agx-orin", {"Orin", "ga10b"}},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string text_field(const Json& j, const char* key, const std::string& file, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return "";
  if (j[key].is_string()) return j[key].get<std::string>();
  if (j[key].is_number()) return j[key].dump();
  throw InputError(file, where + key, "expected a string, found " + dump_json(j[key], -1));
}

long long int_field(const Json& j, const char* key, const std::string& file, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return 0;
  if (!j[key].is_number_integer() || j[key].get<long long>() < 0) {
    throw InputError(file, where + key, "expected an integer >= 0, found " + dump_json(j[key], -1));
  }
  return j[key].get<long long>();
}

}  // namespace

std::string platform_id(const std::string& gpu_name) {
  const std::string name = lower(gpu_name);
  for (const auto& p : kKnownPlatforms) {
    for (const char* f : p.fragments) {
      if (f != nullptr && name.find(lower(f)) != std::string::npos) return p.id;
    }
  }
  std::string id;
  for (const char c : name) id += c == ' ' ? '-' : c;
  if (id.rfind("nvidia-", 0) == 0) id = id.substr(7);
  return id.empty() ? "unknown" : id;
}

std::string Platform::id() const { return platform_id(gpu); }

bool same_gpu(const Platform& a, const Platform& b) {
  return a.gpu == b.gpu && (a.sm_count == 0 || b.sm_count == 0 || a.sm_count == b.sm_count);
}

std::string describe(const Platform& p) {
  if (!p.known()) return "an unrecorded GPU";
  return p.gpu + (p.sm_count > 0 ? " (" + std::to_string(p.sm_count) + " SMs)" : std::string());
}

Json platform_to_json(const Platform& p) {
  Json j{{"gpu", p.gpu}, {"id", p.id()}, {"sm_count", p.sm_count}};
  if (!p.compute_capability.empty()) j["compute_capability"] = p.compute_capability;
  if (p.memory_bytes > 0) j["memory_bytes"] = p.memory_bytes;
  if (p.sm_clock_khz > 0) j["sm_clock_khz"] = p.sm_clock_khz;
  if (p.memory_clock_khz > 0) j["memory_clock_khz"] = p.memory_clock_khz;
  if (p.memory_bus_bits > 0) j["memory_bus_bits"] = p.memory_bus_bits;
  if (!p.driver.empty()) j["driver"] = p.driver;
  if (!p.cuda_runtime.empty()) j["cuda_runtime"] = p.cuda_runtime;
  if (!p.cublas.empty()) j["cublas"] = p.cublas;
  if (!p.cudnn.empty()) j["cudnn"] = p.cudnn;
  return j;
}

Platform platform_from_json(const Json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "expected a platform object, found " + dump_json(j, -1));
  const std::string at = where.empty() ? "" : where + ".";
  Platform p;
  if (!j.contains("gpu") || !j["gpu"].is_string() || j["gpu"].get<std::string>().empty()) {
    throw InputError(file, at + "gpu", "expected the GPU's name (a string), found " + (j.contains("gpu") ? dump_json(j["gpu"], -1) : std::string("nothing")));
  }
  p.gpu = j["gpu"].get<std::string>();
  p.sm_count = static_cast<int>(int_field(j, "sm_count", file, at));
  p.compute_capability = text_field(j, "compute_capability", file, at);
  p.memory_bytes = int_field(j, "memory_bytes", file, at);
  p.sm_clock_khz = static_cast<int>(int_field(j, "sm_clock_khz", file, at));
  p.memory_clock_khz = static_cast<int>(int_field(j, "memory_clock_khz", file, at));
  p.memory_bus_bits = static_cast<int>(int_field(j, "memory_bus_bits", file, at));
  p.driver = text_field(j, "driver", file, at);
  p.cuda_runtime = text_field(j, "cuda_runtime", file, at);
  if (p.cuda_runtime.empty()) p.cuda_runtime = text_field(j, "cuda", file, at);  // the capture's name
  p.cublas = text_field(j, "cublas", file, at);
  p.cudnn = text_field(j, "cudnn", file, at);
  return p;
}

Platform platform_from_origin(const std::string& origin) {
  static const std::regex device(R"(^(?:replay of [^(]*\()?(.+?) \(sm_(\d)(\d+), (\d+) SMs\))");
  std::smatch m;
  Platform p;
  if (!std::regex_search(origin, m, device)) return p;
  p.gpu = m[1].str();
  p.compute_capability = m[2].str() + "." + m[3].str();
  p.sm_count = std::stoi(m[4].str());
  return p;
}

}  // namespace vxsynth::signature
