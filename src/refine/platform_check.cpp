#include "refine/platform_check.h"

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "common/json_io.h"
#include "gpu/device_probe.h"

namespace vxsynth::refine {
namespace fs = std::filesystem;

signature::Platform reference_platform(const std::string& reference_json) {
  const Json j = read_json_file(reference_json);
  if (!j.is_object() || !j.contains("platform") || j["platform"].is_null()) return {};
  return signature::platform_from_json(j["platform"], reference_json, "platform");
}

std::string gpu_mismatch(const signature::Platform& profile, const std::string& what, const signature::Platform& reference,
                         const std::string& reference_path) {
  if (!profile.known() || !reference.known() || signature::same_gpu(profile, reference)) return "";
  return what + ": " + signature::describe(profile) + "; " + reference_path + ": " + signature::describe(reference) +
         ". Two GPU models: a distance across them compares two platforms, not a proxy with the vendor kernel. Compare "
         "with references captured on " + profile.gpu + " (suite/vx-robotics/" + profile.id() +
         "/), or profile the vendor operator in the same job (`vxsynth gpu profile --with-reference`)";
}

void require_same_gpu(const signature::Platform& profile, const std::string& what, const signature::Platform& reference,
                      const std::string& reference_path) {
  const std::string why = gpu_mismatch(profile, what, reference, reference_path);
  if (!why.empty()) throw InputError(reference_path, "platform", why);
}

void require_references_of_this_gpu(const std::vector<std::string>& reference_files) {
  const gpu::DeviceProbe probe = gpu::probe_cuda_device();
  if (!probe.present) return;
  signature::Platform here;
  here.gpu = probe.detail;
  for (const auto& r : reference_files) require_same_gpu(here, "this machine's GPU", reference_platform(r), r);
}

namespace {

bool is_platform_suite(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && fs::is_regular_file(e.path() / "reference.json")) return true;
  }
  return false;
}

signature::Platform suite_platform(const fs::path& dir) {
  std::vector<fs::path> refs;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && fs::is_regular_file(e.path() / "reference.json")) refs.push_back(e.path() / "reference.json");
  }
  std::sort(refs.begin(), refs.end());
  signature::Platform first;
  std::string first_file;
  for (const auto& r : refs) {
    const signature::Platform p = reference_platform(r.string());
    if (!p.known()) continue;
    if (!first.known()) {
      first = p;
      first_file = r.string();
    } else if (!signature::same_gpu(first, p)) {
      throw InputError(r.string(), "platform",
                       "profiled on " + signature::describe(p) + ", but " + first_file + " on " + signature::describe(first) +
                           ": a suite folder holds one platform's references");
    }
  }
  return first;
}

}  // namespace

std::vector<PlatformSuite> platform_suites(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir, "", "not a folder (expected a suite, e.g. suite/vx-robotics or suite/vx-robotics/h200)");
  if (is_platform_suite(dir)) return {{dir, suite_platform(dir)}};
  std::vector<PlatformSuite> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && is_platform_suite(e.path())) out.push_back({e.path().string(), suite_platform(e.path())});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.dir < b.dir; });
  return out;
}

std::string suite_for_gpu(const std::string& dir, const std::string& gpu_name) {
  const auto suites = platform_suites(dir);
  std::string have;
  for (const auto& s : suites) {
    // A suite that names no GPU is taken only when it is the one there is.
    if (s.platform.known() ? s.platform.gpu == gpu_name : suites.size() == 1) return s.dir;
    have += (have.empty() ? "" : ", ") + s.dir + " (" + signature::describe(s.platform) + ")";
  }
  const std::string id = signature::platform_id(gpu_name);
  throw InputError(dir, "",
                   "this machine's GPU is " + gpu_name + " (platform " + id + "), and no suite here was captured on it: " +
                       (have.empty() ? std::string("no platform suite at all") : have) +
                       ". Capture the workloads on this GPU into " + (fs::path(dir) / id).string() +
                       " (docs/capture.md), or run where the suite's GPU is");
}

}  // namespace vxsynth::refine
