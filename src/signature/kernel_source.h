// Picks one kernel's signature from a file: a signature or reference JSON, or an ncu CSV.
//   FILE.json              the only kernel of a signature file, or a reference's signature
//   FILE.csv#id=N          the launch with ncu ID N
//   FILE.csv#REGEX         the one launch whose kernel name matches REGEX (searched)
// The #selector works for signature JSON files too. Zero or several matches is an InputError
// that lists the candidates.
#pragma once

#include <string>
#include <vector>

#include "signature/derive.h"
#include "signature/operator_scope.h"
#include "signature/signature.h"

namespace vxsynth::signature {

// At operator scope a JSON file gives its operator signature(s) (read_signatures_at), and an ncu
// CSV the one operator of the launches the spec selects (all of them without a selector).
KernelSignature load_kernel_signature(const std::string& spec, const DeriveOptions& options,
                                      Scope scope = Scope::kKernel);

// Every kernel a spec names: all kernels of the file without a selector, the matching ones with
// #REGEX, the launch with #id=N. None is an InputError that lists the file's kernels.
std::vector<KernelSignature> load_kernel_signatures(const std::string& spec, const DeriveOptions& options,
                                                    Scope scope = Scope::kKernel);

}  // namespace vxsynth::signature
