#include "gpu/sandbox.h"

#include <array>
#include <string_view>

#include "common/error.h"

namespace vxsynth::gpu {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Libraries a candidate built with `nvcc -shared -cudart shared` legitimately needs.
bool allowed_library(std::string_view lib) {
  constexpr std::array<std::string_view, 8> allowed = {
      "libc.so.",     "libm.so.",    "libgcc_s.so.",        "libstdc++.so.",
      "libcudart.so", "librt.so.",   "ld-linux-x86-64.so.", "libpthread.so."};
  for (auto prefix : allowed) {
    if (starts_with(lib, prefix)) return true;
  }
  return false;
}

bool vendor_library(std::string_view lib) {
  return starts_with(lib, "libcublas") || starts_with(lib, "libcudnn") || starts_with(lib, "libcublasLt");
}

// C library calls that open, read or map files.
constexpr std::array<std::string_view, 27> kFileCalls = {
    "open",   "open64",   "openat",  "openat64", "creat",    "creat64", "fopen",
    "fopen64", "freopen", "freopen64", "fdopen", "fread",   "fgets",   "fgetc",
    "getline", "getdelim", "fscanf", "__isoc99_fscanf", "__isoc23_fscanf", "read", "pread",
    "pread64", "mmap",    "mmap64",   "opendir", "name_to_handle_at", "open_by_handle_at"};
constexpr std::array<std::string_view, 5> kFileCallsCxx = {"basic_ifstream", "basic_fstream",
                                                           "basic_filebuf", "filesystem",
                                                           "basic_istream"};
// Driver/runtime entry points that load device code or libraries from a file.
constexpr std::array<std::string_view, 4> kCudaFileLoads = {
    "cuModuleLoad", "cuLibraryLoadFromFile", "cudaLibraryLoadFromFile", "cuLinkAddFile"};
constexpr std::array<std::string_view, 7> kDynamicLoading = {
    "dlopen", "dlmopen", "dlsym", "dlvsym", "cuGetProcAddress", "cudaGetDriverEntryPoint", "syscall"};
constexpr std::array<std::string_view, 11> kProcessCalls = {
    "system", "popen", "fork", "vfork", "execv", "execve", "execvp", "execl", "execlp",
    "posix_spawn", "posix_spawnp"};

}  // namespace

std::string SandboxVerdict::describe(const std::string& object) const {
  std::string out;
  for (const auto& v : violations) {
    out += "candidate " + object + " rejected (" + v.rule + "): " + v.item + ": " + v.reason + "\n";
  }
  return out;
}

SandboxVerdict check_sandbox(const ElfDynamicInfo& info) {
  SandboxVerdict verdict;
  auto add = [&](std::string rule, std::string item, std::string reason) {
    verdict.violations.push_back({std::move(rule), std::move(item), std::move(reason)});
  };
  for (const auto& lib : info.needed) {
    if (vendor_library(lib)) {
      add("library", lib, "links a vendor library (cuBLAS/cuDNN are the reference, not allowed in a candidate)");
    } else if (!allowed_library(lib)) {
      add("library", lib, "needs a library outside the CUDA runtime and the C/C++ runtime");
    }
  }
  for (const auto& sym : info.undefined) {
    const std::string_view name = sym.name;
    if (starts_with(name, "cublas") || starts_with(name, "cudnn")) {
      add("vendor-symbol", sym.name, "calls cuBLAS/cuDNN (the vendor reference)");
      continue;
    }
    bool flagged = false;
    for (auto call : kFileCalls) {
      if (name == call) {
        add("file-access", sym.name, "calls a C library function that opens or reads files");
        flagged = true;
        break;
      }
    }
    if (flagged) continue;
    for (auto part : kFileCallsCxx) {
      if (contains(name, part)) {
        add("file-access", sym.name, "uses C++ file or input streams");
        flagged = true;
        break;
      }
    }
    if (flagged) continue;
    for (auto call : kCudaFileLoads) {
      if (starts_with(name, call)) {
        add("file-access", sym.name, "loads device code from a file");
        flagged = true;
        break;
      }
    }
    if (flagged) continue;
    for (auto call : kDynamicLoading) {
      if (name == call || starts_with(name, std::string(call) + "_")) {
        add("dynamic-loading", sym.name, "looks up or loads code at run time (could reach cuBLAS/cuDNN)");
        flagged = true;
        break;
      }
    }
    if (flagged) continue;
    for (auto call : kProcessCalls) {
      if (name == call) {
        add("process", sym.name, "starts processes");
        break;
      }
    }
  }
  if (!info.exports(kLaunchSymbol)) {
    add("abi", kLaunchSymbol,
        "not exported: declare it extern \"C\" with the signature in src/gpu/abi/vxsynth_candidate.h");
  }
  return verdict;
}

void enforce_sandbox(const std::string& shared_object) {
  const SandboxVerdict verdict = check_sandbox(inspect_elf(shared_object));
  if (!verdict.ok()) throw WorkError(verdict.describe(shared_object));
}

}  // namespace vxsynth::gpu
