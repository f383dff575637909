// Vortex .vxbin images (vortex-isa.md §3.3): little-endian u64 min_vma, u64 max_vma, then the
// raw image from min_vma (what `objcopy -O binary` writes: segment file bytes, gaps zero).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vxsim/program.h"

namespace vxsynth::vxsim::host {

// The .vxbin of a parsed ELF program. InputError if the program is not an ELF or its
// segments do not fit one image.
std::vector<uint8_t> make_vxbin(const ProgramImage& image);

// Reads an ELF file and writes its .vxbin (WorkError when the output cannot be written).
void write_vxbin_from_elf(const std::string& elf_path, const std::string& vxbin_path);

// The raw .bin image that SimX's standalone runner loads at STARTUP_ADDR (`simx kernel.bin`):
// the .vxbin without its 16-byte header. InputError unless the image starts at 0x80000000.
std::vector<uint8_t> make_bin(const ProgramImage& image);
// Reads an ELF file and writes its .vxbin and .bin.
void write_images_from_elf(const std::string& elf_path, const std::string& vxbin_path, const std::string& bin_path);

}  // namespace vxsynth::vxsim::host
