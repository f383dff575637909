// A kernel's profile signature: the ten metric values (or why one is unmeasured), the raw
// counters they came from, launch geometry, duration and the kernel-name reading.
// JSON: {"schema": "vxsynth.signature/1", "source": ..., "kernels": [KernelSignature...]}.
// A vxsynth.reference/1 file embeds one KernelSignature object under "signature".
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "signature/kernel_name.h"
#include "signature/metrics.h"
#include "signature/platform.h"

namespace vxsynth::signature {

struct LaunchGeometry {
  std::array<long long, 3> grid{1, 1, 1};
  std::array<long long, 3> block{1, 1, 1};
  long long grid_size = 1;   // blocks
  long long block_size = 1;  // threads per block
  std::optional<long long> registers_per_thread;
  std::optional<long long> shared_static_bytes;
  std::optional<long long> shared_dynamic_bytes;

  Json to_json() const;
  static LaunchGeometry from_json(const Json& j, const std::string& file);
};

struct KernelSignature {
  std::string name;
  std::string ncu_id;  // launch ID in the ncu CSV ("" when not from ncu)
  MetricValues values{};
  std::array<std::string, kMetricCount> unmeasured_reason{};  // set when values[i] is nullopt
  std::array<std::string, kMetricCount> formula{};            // how a measured value was derived
  std::optional<LaunchGeometry> launch;
  std::optional<double> duration_ns;
  std::optional<double> sm_clock_hz;
  std::map<std::string, double> counters;  // the raw counters the values came from
  KernelNameReading name_reading;
  EngineClass engine = EngineClass::kUnknown;
  std::string engine_basis;

  Json to_json() const;
  // `where` names the JSON location in errors (e.g. "kernels[2]").
  static KernelSignature from_json(const Json& j, const std::string& file, const std::string& where);
};

struct SignatureFile {
  std::string source;
  std::vector<KernelSignature> kernels;
  Platform platform;  // the GPU the kernels were profiled on (written when known)

  Json to_json() const;
};

// Reads the kernels of a vxsynth.signature/1 file, or the one of a vxsynth.reference/1 file or
// of a locked benchmark's vxsynth.locked-signature/1 (the lock's mean signature, named by its
// design).
std::vector<KernelSignature> read_signatures(const std::string& path);

// The platform a signature or reference file names ("platform"; a locked signature: the device
// its origin names); unknown for other files (an ncu CSV) and files without one. A "#selector"
// after the path is ignored.
Platform read_platform(const std::string& spec);

}  // namespace vxsynth::signature
