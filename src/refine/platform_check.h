// Which GPU each side of a comparison was profiled on. A candidate profiled on one GPU model is
// compared only with references of the same model (docs/signature.md, "Platforms"): refine,
// suite refine and suite lock refuse anything else with an error naming both GPUs.
#pragma once

#include <string>
#include <vector>

#include "signature/platform.h"

namespace vxsynth::refine {

// The "platform" block of a reference.json (unknown when it has none).
signature::Platform reference_platform(const std::string& reference_json);

// Why a profile (`what`: "r7 of chain act-1-linear", "this machine's GPU") and a reference cannot be
// compared: they ran on two GPU models; "" when they can (or either GPU is unknown).
std::string gpu_mismatch(const signature::Platform& profile, const std::string& what, const signature::Platform& reference,
                         const std::string& reference_path);
// InputError (naming the reference and its platform field) with that reason.
void require_same_gpu(const signature::Platform& profile, const std::string& what, const signature::Platform& reference,
                      const std::string& reference_path);

// Before a GPU run: InputError when this machine's GPU (the CUDA driver's device 0) is another
// model than any of these references'; nothing without a GPU (the run says so itself).
void require_references_of_this_gpu(const std::vector<std::string>& reference_files);

// A platform suite: a folder of <benchmark>/reference.json profiled on one GPU.
struct PlatformSuite {
  std::string dir;
  signature::Platform platform;  // of its references (InputError when they disagree)
};
// `dir` itself when it is a platform suite, else its subfolders that are (sorted by name).
std::vector<PlatformSuite> platform_suites(const std::string& dir);

// The suite to refine on a GPU: `dir` when it is a platform suite of that GPU, or the one
// subfolder that is; otherwise InputError naming the suites there, their GPUs and this one.
std::string suite_for_gpu(const std::string& dir, const std::string& gpu_name);

}  // namespace vxsynth::refine
