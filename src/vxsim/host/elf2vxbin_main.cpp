// vxsim-elf2vxbin ELF VXBIN [--dump FILE [--tool-prefix PREFIX]]: writes the .vxbin of a kernel
// ELF and optionally its disassembly with Vortex instructions named. Used by the CMake
// kernel build (vortex-rt/cmake/VortexKernel.cmake); `vxsynth sim cc` does the same itself.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "vxsim/host/kernel_build.h"
#include "vxsim/host/vxbin.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string dump;
  std::string prefix = "riscv64-unknown-elf-";
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--dump" || args[i] == "--tool-prefix") && i + 1 < args.size()) {
      (args[i] == "--dump" ? dump : prefix) = args[i + 1];
      ++i;
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.size() != 2) {
    std::fprintf(stderr, "usage: vxsim-elf2vxbin KERNEL.elf KERNEL.vxbin [--dump FILE [--tool-prefix PREFIX]]\n");
    return 2;
  }
  try {
    vxsynth::vxsim::host::write_vxbin_from_elf(positional[0], positional[1]);
    if (!dump.empty()) {
      std::string listing;
      if (vxsynth::vxsim::host::run_program({prefix + "objdump", "-d", positional[0]}, &listing) != 0) {
        std::fprintf(stderr, "vxsim-elf2vxbin: objdump failed:\n%s", listing.c_str());
        return 1;
      }
      std::ofstream out(dump, std::ios::trunc);
      out << vxsynth::vxsim::host::annotate_disassembly(listing);
      if (!out) {
        std::fprintf(stderr, "vxsim-elf2vxbin: cannot write %s\n", dump.c_str());
        return 1;
      }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "vxsim-elf2vxbin: %s\n", error.what());
    return 1;
  }
  return 0;
}
