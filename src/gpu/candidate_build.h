// Builds candidate sources into shared objects with nvcc, cached by content hash: the key
// covers the source, the ABI header, nvcc's version and every flag, so a changed input is a
// new build and an unchanged one is never rebuilt. Several builds run in parallel.
#pragma once

#include <string>
#include <vector>

namespace vxsynth::gpu {

struct BuildOptions {
  std::string nvcc;       // "" = locate_nvcc()
  std::string cache_dir;  // "" = default_cache_dir()
  std::string arch = "sm_90";
  std::vector<std::string> extra_flags;  // appended after the fixed flags (e.g. "-DTILE=32")
};

struct BuildResult {
  std::string source;         // the .cu as given
  std::string name;           // source file stem, used for NVTX ranges and output names
  std::string shared_object;  // path in the cache
  std::string key;            // sha256 of everything that went into the build
  std::string log_path;       // nvcc's output
  bool cache_hit = false;
  double seconds = 0;         // wall time of this build (0 on a cache hit)
  std::string error;          // "" on success
};

// nvcc from $VXSYNTH_NVCC, PATH, the toolkit found at configure time, /usr/local/cuda/bin.
// "" when none exists.
std::string locate_nvcc();

// $VXSYNTH_CACHE_DIR, else $XDG_CACHE_HOME/vxsynth/gpu-candidates, else
// $HOME/.cache/vxsynth/gpu-candidates.
std::string default_cache_dir();

// The nvcc arguments for one build (without the output path and source), for logs and tests.
// The target a source declares (`// vxsynth-target: sm_90a` on a line of its own), or "".
std::string declared_target(const std::string& source, const std::string& source_text);
std::vector<std::string> nvcc_flags(const BuildOptions& options, const std::string& include_dir,
                                    const std::string& target = "");

// The cache key of a build of `source_text` (pure: no files touched).
std::string build_key(const std::string& source_text, const std::string& nvcc_version,
                      const std::vector<std::string>& flags);

// One build; InputError (naming the source and quoting nvcc's errors) when it fails to compile.
BuildResult build_candidate(const std::string& source, const BuildOptions& options);

// Several builds on `jobs` threads (0 = all cores); failures are reported per result, never
// thrown, so one bad candidate does not hide the others.
std::vector<BuildResult> build_candidates(const std::vector<std::string>& sources,
                                          const BuildOptions& options, unsigned jobs = 0);

// The candidate ABI header text compiled into this library.
const std::string& candidate_abi_header();

}  // namespace vxsynth::gpu
