// Reads what a shared object needs from the outside world: its DT_NEEDED libraries and its
// undefined dynamic symbols, plus the functions it exports. Parses the ELF file directly
// (64-bit little-endian, the only kind nvcc makes for x86-64), so the sandbox check needs no
// binutils on the machine.
#pragma once

#include <string>
#include <vector>

namespace vxsynth::gpu {

struct ElfSymbol {
  std::string name;
  bool weak = false;
  bool function = false;
};

struct ElfDynamicInfo {
  std::vector<std::string> needed;       // DT_NEEDED, in file order
  std::vector<ElfSymbol> undefined;      // undefined dynamic symbols (what it calls outside)
  std::vector<ElfSymbol> defined;        // defined global/weak dynamic symbols (what it exports)

  bool exports(const std::string& name) const;
};

// InputError naming the file when it is not a 64-bit little-endian ELF shared object or a
// table points outside the file.
ElfDynamicInfo inspect_elf(const std::string& path);
ElfDynamicInfo inspect_elf_bytes(const std::string& bytes, const std::string& source);

}  // namespace vxsynth::gpu
