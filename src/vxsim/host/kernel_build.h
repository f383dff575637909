// Builds a Vortex kernel from C/C++/assembly sources with Debian's clang and the
// vortex-divergence plugin (or riscv64-unknown-elf-gcc), picolibc and vortex-rt, with the flags
// of vortex-rt/cmake/VortexFlags.cmake (shared with vortex-rt/toolchain.cmake): the
// `vxsynth sim cc` command. Produces OUT.vxbin plus OUT.elf, OUT.bin and OUT.dump beside it
// (the output folder is created if missing).
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
  std::string compiler;                   // "clang" (divergence handling) or "gcc"; empty = default_kernel_compiler()
  std::vector<std::string> extra_flags;   // passed to every compile
  bool verbose = false;                   // print each command before running it
  // Where a successful build's compiler warnings go: null prints them on stderr; a caller that
  // builds generated code collects them and says how many (they are the generator's, not the user's).
  std::string* warnings = nullptr;
  bool verify = true;                     // refuse an ELF with a broken split/join region (vxsim/verify.h)
};

struct KernelBuildResult {
  std::string vxbin;
  std::string elf;
  std::string dump;
  std::string bin;  // the raw image SimX's standalone runner takes (`simx OUT.bin`)
  std::vector<std::vector<std::string>> commands;  // what ran, in order
};

// VXSYNTH_VORTEX_RT if set, else the vortex-rt folder of the source tree this was built from.
std::string default_runtime_dir();
// VXSYNTH_RISCV_PREFIX if set, else "riscv64-unknown-elf-".
std::string default_tool_prefix();
// VXSYNTH_KERNEL_COMPILER if set, else "clang" (Debian's clang with the vortex-divergence plugin).
std::string default_kernel_compiler();
// VXSYNTH_VORTEX_PLUGIN if set, else the plugin built beside this vxsynth.
std::string default_divergence_plugin();

// InputError for bad options or missing sources; WorkError when a tool is missing, a
// compile/link fails (the message carries the compiler's diagnostics) or, with
// options.verify, the split/join verifier refuses the ELF (OUT.elf and OUT.dump are kept for
// inspection; OUT.vxbin is not written).
KernelBuildResult build_kernel(const KernelBuildOptions& options);

// objdump -d output with each Vortex custom instruction (shown by binutils as ".4byte")
// replaced by its mnemonic.
std::string annotate_disassembly(const std::string& objdump_text);

// Runs argv (no shell), returns the exit status; stdout and stderr go to *output
// (common/process.h).
using ::vxsynth::run_program;

}  // namespace vxsynth::vxsim::host
