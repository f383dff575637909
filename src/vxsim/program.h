// Kernel programs: ELF32 RISC-V executables and Vortex .vxbin images (vortex-isa.md §3.3).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vxsynth::vxsim {

enum class ProgramFormat { kElf32, kVxbin };

struct LoadedSegment {
  uint32_t vaddr = 0;
  uint32_t file_size = 0;  // bytes copied from the file
  uint32_t mem_size = 0;   // file_size plus zero fill (.bss)
  bool writable = false;   // the kernel may store into it (ACL)
  bool executable = false;
};

struct ProgramInfo {
  std::string source;        // file path, or the name given to load_program_bytes
  ProgramFormat format = ProgramFormat::kElf32;
  uint32_t entry = 0;        // ELF e_entry, or min_vma for .vxbin
  uint32_t min_vma = 0;      // lowest loaded address
  uint32_t max_vma = 0;      // one past the highest (including .bss)
  std::vector<LoadedSegment> segments;
  bool has_line_info = false;  // ELF with .debug_line: faults name file:line
};

// One row of a decoded DWARF line table: code at [address, next row's address) came from
// file:line.
struct LineRow {
  uint32_t address = 0;
  uint32_t line = 0;
  uint32_t file = 0;  // index into LineTable::files
};

struct LineTable {
  std::vector<std::string> files;
  std::vector<LineRow> rows;  // sorted by address; end_sequence rows have line 0
  // "dir/file.c:42" for pc, or empty when pc is not covered.
  std::string lookup(uint32_t pc) const;
};

// A function symbol (ELF .symtab, STT_FUNC): names code in reports (`sim verify`).
struct FunctionSymbol {
  std::string name;
  uint32_t address = 0;
  uint32_t size = 0;
};

// A parsed program, not yet in memory.
struct ProgramImage {
  ProgramInfo info;
  std::vector<std::vector<uint8_t>> segment_bytes;  // file bytes of each segment in info.segments
  LineTable lines;
  std::vector<FunctionSymbol> functions;  // sorted by address; empty for .vxbin or a stripped ELF
};

// Parses ELF32 (EM_RISCV, little-endian, ET_EXEC) or .vxbin, detected by the ELF magic.
// Errors are InputError naming `name`, the field and what was expected.
ProgramImage parse_program(std::span<const uint8_t> bytes, const std::string& name);
ProgramImage parse_program_file(const std::string& path);

}  // namespace vxsynth::vxsim
