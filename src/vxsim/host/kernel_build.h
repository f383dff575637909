// Builds a Vortex kernel from C/C++/assembly sources with Debian's RISC-V cross compiler,
// picolibc and vortex-rt (the same flags as vortex-rt/cmake/VortexKernel.cmake): the
// `vxsynth sim cc` command. Produces OUT.vxbin plus OUT.elf and OUT.dump beside it.
#pragma once

#include "common/process.h"

#include <string>
#include <vector>

namespace vxsynth::vxsim::host {

struct KernelBuildOptions {
  std::vector<std::string> sources;       // .c, .cpp/.cc/.cxx, .S/.s
  std::string output;                     // OUT.vxbin
  std::vector<std::string> include_dirs;  // -I
  std::vector<std::string> defines;       // -D (NAME or NAME=VALUE)
  std::string optimization = "3";         // -O level: 0, 1, 2, 3, s, g
  std::string runtime_dir;                // vortex-rt checkout; empty = default_runtime_dir()
  std::string tool_prefix;                // e.g. "riscv64-unknown-elf-"; empty = default_tool_prefix()
  std::vector<std::string> extra_flags;   // passed to every compile
  bool verbose = false;                   // print each command before running it
};

struct KernelBuildResult {
  std::string vxbin;
  std::string elf;
  std::string dump;
  std::vector<std::vector<std::string>> commands;  // what ran, in order
};

// VXSYNTH_VORTEX_RT if set, else the vortex-rt folder of the source tree this was built from.
std::string default_runtime_dir();
// VXSYNTH_RISCV_PREFIX if set, else "riscv64-unknown-elf-".
std::string default_tool_prefix();

// InputError for bad options or missing sources; WorkError when a tool is missing or a
// compile/link fails (the message carries the compiler's diagnostics).
KernelBuildResult build_kernel(const KernelBuildOptions& options);

// objdump -d output with each Vortex custom instruction (shown by binutils as ".4byte")
// replaced by its mnemonic.
std::string annotate_disassembly(const std::string& objdump_text);

// Runs argv (no shell), returns the exit status; stdout and stderr go to *output
// (common/process.h).
using ::vxsynth::run_program;

}  // namespace vxsynth::vxsim::host
