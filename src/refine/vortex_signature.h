// The Vortex side of a pair's signature: the ten metrics of docs/signature.md computed from
// the counters of a simulator run with the vortex2 timing model, with the meanings of the
// NVIDIA side as far as the machine has them. It reads the `vxsynth.vxsim-run/1` document
// (`vxsynth sim run --timing vortex2 --json`: "counters" and "timing"), so it depends on that
// contract, not on the simulator's classes.
#pragma once

#include <string>

#include "common/json_io.h"
#include "signature/signature.h"

namespace vxsynth::refine {

struct VortexSignatureOptions {
  double clock_mhz = 200.0;  // turns cycles into seconds for the DRAM bandwidth and duration
};

// InputError naming `source` and the missing field when the document has no timing section.
signature::KernelSignature vortex_signature(const Json& run_document, const std::string& source,
                                            const VortexSignatureOptions& options = {});

}  // namespace vxsynth::refine
