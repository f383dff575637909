#include "gpu/candidate_build.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/process.h"
#include "common/text_file.h"
#include "gpu/abi_header.h"
#include "gpu/sha256.h"

namespace fs = std::filesystem;

namespace vxsynth::gpu {
namespace {

std::string tail_of_file(const std::string& path, std::size_t max_chars) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > max_chars) text = "...\n" + text.substr(text.size() - max_chars);
  return text;
}

// `nvcc --version` once per (nvcc path) and process: part of every cache key.
std::string nvcc_version(const std::string& nvcc) {
  static std::mutex mutex;
  static std::string cached_for;
  static std::string cached;
  std::lock_guard<std::mutex> lock(mutex);
  if (cached_for == nvcc) return cached;
  const fs::path tmp = fs::temp_directory_path() /
                       ("vxsynth-nvcc-version-" + std::to_string(getpid()) + ".txt");
  ProcessOptions to_tmp;
  to_tmp.stdout_path = to_tmp.stderr_path = tmp.string();
  const ProcessResult r = run_process({nvcc, "--version"}, to_tmp);
  std::string text = tail_of_file(tmp.string(), 4096);
  std::error_code ec;
  fs::remove(tmp, ec);
  if (r.exit_code != 0) throw WorkError(nvcc + " --version failed: " + text);
  cached_for = nvcc;
  cached = text;
  return cached;
}

// Writes the ABI header into the cache once (content-addressed, so versions never clash).
std::string ensure_abi_include_dir(const std::string& cache_dir) {
  const std::string& header = candidate_abi_header();
  const fs::path dir = fs::path(cache_dir) / ("include-" + sha256_hex(header).substr(0, 16));
  const fs::path file = dir / "vxsynth_candidate.h";
  if (!fs::exists(file)) {
    fs::create_directories(dir);
    const fs::path tmp = dir / ("vxsynth_candidate.h.tmp" + std::to_string(getpid()) + "_" +
                                std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    {
      std::ofstream out(tmp, std::ios::binary);
      out << header;
      if (!out) throw WorkError("cannot write " + tmp.string());
    }
    fs::rename(tmp, file);
  }
  return dir.string();
}

}  // namespace

const std::string& candidate_abi_header() {
  static const std::string text(kCandidateAbiHeader);
  return text;
}

std::string locate_nvcc() {
  if (const char* env = std::getenv("VXSYNTH_NVCC"); env && *env) return find_on_path(env);
  if (std::string p = find_on_path("nvcc"); !p.empty()) return p;
#ifdef VXSYNTH_CONFIGURED_NVCC
  if (access(VXSYNTH_CONFIGURED_NVCC, X_OK) == 0) return VXSYNTH_CONFIGURED_NVCC;
#endif
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  return "";
}

std::string default_cache_dir() {
  if (const char* env = std::getenv("VXSYNTH_CACHE_DIR"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return (fs::path(xdg) / "vxsynth" / "gpu-candidates").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (fs::path(home) / ".cache" / "vxsynth" / "gpu-candidates").string();
  }
  return (fs::temp_directory_path() / "vxsynth-gpu-candidates").string();
}

// A candidate that needs an architecture-specific target (wgmma and setmaxnreg exist only on
// sm_90a) says so on a line of its own: `// vxsynth-target: sm_90a`. Such code has no plain
// sm_90 form, so it is built for that target alone (-gencode, not -arch, which would add an
// sm_90 pass that rejects it).
std::string declared_target(const std::string& source, const std::string& source_text) {
  static const std::string marker = "// vxsynth-target: ";
  const auto at = source_text.find(marker);
  if (at == std::string::npos || (at > 0 && source_text[at - 1] != '\n')) return {};
  const auto begin = at + marker.size();
  const std::string target = source_text.substr(begin, source_text.find('\n', begin) - begin);
  if (target != "sm_90a") {
    throw InputError(source, "vxsynth-target", "unknown target '" + target + "' (expected sm_90a)");
  }
  return target;
}

std::vector<std::string> nvcc_flags(const BuildOptions& options, const std::string& include_dir,
                                    const std::string& target) {
  // -cudart shared: the candidate uses the harness's CUDA runtime (one context, shared
  // streams) and its undefined symbols stay few and readable for the sandbox check.
  const std::string arch = target.empty() ? "-arch=" + options.arch
                                          : "-gencode=arch=compute_" + target.substr(3) + ",code=" + target;
  std::vector<std::string> flags = {arch, "-O3", "-std=c++17", "-shared",
                                    "-Xcompiler", "-fPIC", "-cudart", "shared", "-lineinfo",
                                    "-I" + include_dir};
  flags.insert(flags.end(), options.extra_flags.begin(), options.extra_flags.end());
  return flags;
}

std::string build_key(const std::string& source_text, const std::string& nvcc_version_text,
                      const std::vector<std::string>& flags) {
  Sha256 h;
  h.update("vxsynth.candidate-build/1\n");
  h.update(nvcc_version_text);
  h.update("\nflags:");
  for (const auto& f : flags) {
    // Include paths differ between machines; the header's content is hashed instead.
    if (f.rfind("-I", 0) == 0) continue;
    h.update(f);
    h.update(std::string(1, '\0'));
  }
  h.update("\nabi:");
  h.update(candidate_abi_header());
  h.update("\nsource:");
  h.update(source_text);
  return h.hex_digest();
}

BuildResult build_candidate(const std::string& source, const BuildOptions& options) {
  BuildResult result;
  result.source = source;
  result.name = fs::path(source).stem().string();
  const std::string text = read_text_file(source);
  const std::string nvcc = options.nvcc.empty() ? locate_nvcc() : options.nvcc;
  if (nvcc.empty()) {
    throw WorkError("nvcc not found (looked at $VXSYNTH_NVCC, PATH, /usr/local/cuda/bin/nvcc): "
                    "install the CUDA toolkit to build candidates");
  }
  const std::string cache_dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  fs::create_directories(cache_dir);
  const std::string include_dir = ensure_abi_include_dir(cache_dir);
  const std::string target = declared_target(source, text);
  const std::vector<std::string> flags = nvcc_flags(options, include_dir, target);
  result.key = build_key(text, nvcc_version(nvcc), flags);
  const fs::path object = fs::path(cache_dir) / (result.key + ".so");
  result.shared_object = object.string();
  result.log_path = (fs::path(cache_dir) / (result.key + ".log")).string();
  if (fs::exists(object)) {
    result.cache_hit = true;
    return result;
  }
  // Build to a private name and rename, so concurrent builds of one key never see half a file.
  const fs::path tmp = fs::path(cache_dir) /
                       (result.key + ".tmp" + std::to_string(getpid()) + "_" +
                        std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + ".so");
  std::vector<std::string> argv = {nvcc};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-o", tmp.string(), fs::absolute(source).string()});
  const auto start = std::chrono::steady_clock::now();
  ProcessOptions to_log;
  to_log.stdout_path = to_log.stderr_path = result.log_path;
  const ProcessResult r = run_process(argv, to_log);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.exit_code != 0 || !fs::exists(tmp)) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw InputError(source, "", "nvcc failed (exit " + std::to_string(r.exit_code) + "):\n" +
                                     tail_of_file(result.log_path, 4000) + "command: " + render_command(argv));
  }
  fs::rename(tmp, object);
  return result;
}

std::vector<BuildResult> build_candidates(const std::vector<std::string>& sources,
                                          const BuildOptions& options, unsigned jobs) {
  std::vector<BuildResult> results(sources.size());
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(1, sources.size())));
  // Resolve nvcc's version once up front so the workers do not race to run it.
  BuildOptions resolved = options;
  if (resolved.nvcc.empty()) resolved.nvcc = locate_nvcc();
  if (resolved.nvcc.empty()) {
    throw WorkError("nvcc not found (looked at $VXSYNTH_NVCC, PATH, /usr/local/cuda/bin/nvcc)");
  }
  nvcc_version(resolved.nvcc);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < sources.size(); i = next++) {
      try {
        results[i] = build_candidate(sources[i], resolved);
      } catch (const std::exception& e) {
        results[i].source = sources[i];
        results[i].name = fs::path(sources[i]).stem().string();
        results[i].error = e.what();
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace vxsynth::gpu
