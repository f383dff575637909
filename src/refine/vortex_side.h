// The Vortex-side signature of a locked suite benchmark (SUITE/<bench>/vortex-signature.json,
// docs/suite.md "The Vortex side"): the benchmark's committed Vortex sources run at the profiled
// shape with the vortex2 timing model (`vxsynth suite run --signature`), its ten metrics
// (vortex_signature.h) and their distances to the locked CUDA proxy and to the reference.
//
// The file is a `vxsynth.signature/1` document (so `vxsynth distance` reads it as it is) with one
// more top-level object, "vortex_side", that says where the numbers came from: the machine and
// every timing parameter, the sha256 of each Vortex source it ran (a later change of the sources
// makes it stale), the whole `vxsynth.vxsim-run/1` document of the run (cycles, IPC, timing and
// functional counters), the distances, and the wall time.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/json_io.h"
#include "signature/distance.h"
#include "signature/signature.h"

namespace vxsynth::refine {

struct SuiteBenchmark;

inline constexpr const char* kVortexSignatureFile = "vortex-signature.json";

// The metric values of a {"<metric key>": number | null} object (a locked signature's
// "signature", a reference's "metrics"); InputError names `file` and `where` on a bad value.
signature::MetricValues metric_values(const Json& j, const std::string& file, const std::string& where);

// sha256 of every regular file of the folder, by file name.
Json folder_digests(const std::filesystem::path& dir);

struct VortexSideRun {
  Json run;                    // the vxsynth.vxsim-run/1 document (timing on)
  double clock_mhz = 200.0;    // cycles to seconds (DRAM bandwidth, duration)
  double build_seconds = 0;    // kernel + host program
  double run_seconds = 0;      // the simulation with timing, wall clock
  double run_cpu_seconds = 0;  // its CPU time
  std::string check;           // the candidate check's first line
  std::string command;         // how to make the file again
};

// The vortex-signature.json document of the locked benchmark in `bench_dir` (design.json,
// signature.json, validation.json, reference.json, vortex/).
Json vortex_side_document(const std::filesystem::path& bench_dir, const VortexSideRun& r);

// What the status table and the consistency test need from a committed file.
struct VortexSideStatus {
  bool present = false;
  std::string stale;           // non-empty: why the file no longer describes the committed pair
  std::optional<double> d_cuda, d_reference;  // as recomputed from today's files
  double cycles = 0, ipc = 0, run_seconds = 0;
  std::string machine;         // "1x4x16" (cores x warps x threads)
};
// Reads SUITE/<bench>/vortex-signature.json and checks it against the committed files: the
// sources' digests, the design, the metric values re-derived from the recorded run, and D to the
// CUDA side and the reference recomputed from signature.json and reference.json. InputError
// when the file is not a Vortex-side signature at all.
VortexSideStatus read_vortex_side(const std::filesystem::path& bench_dir);

}  // namespace vxsynth::refine
