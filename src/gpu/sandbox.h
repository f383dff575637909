// Sandbox rules for a candidate shared object, checked before it is loaded (docs/gpu.md):
// it may need only the CUDA runtime and the C/C++ runtime libraries, may not call cuBLAS or
// cuDNN (not even through symbols left for the harness's own copies to satisfy), and may not
// read files, load libraries or start processes. It must export the ABI's launch function.
#pragma once

#include <string>
#include <vector>

#include "gpu/elf_inspect.h"

namespace vxsynth::gpu {

struct SandboxViolation {
  std::string rule;    // "library", "vendor-symbol", "file-access", "dynamic-loading", "process", "abi"
  std::string item;    // the library or symbol
  std::string reason;  // one sentence for the user
};

struct SandboxVerdict {
  std::vector<SandboxViolation> violations;
  bool ok() const { return violations.empty(); }
  // One line per violation, "candidate K.so rejected: ..." style, for errors and reports.
  std::string describe(const std::string& object) const;
};

SandboxVerdict check_sandbox(const ElfDynamicInfo& info);

// Inspects the object and throws WorkError listing every violation when it breaks a rule.
void enforce_sandbox(const std::string& shared_object);

inline constexpr const char* kLaunchSymbol = "vxsynth_candidate_launch";
inline constexpr const char* kWorkspaceSymbol = "vxsynth_candidate_workspace_bytes";

}  // namespace vxsynth::gpu
