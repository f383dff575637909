#include "vxsim/host/vxbin.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "common/error.h"
#include "vxsim/config.h"

namespace vxsynth::vxsim::host {

std::vector<uint8_t> make_vxbin(const ProgramImage& image) {
  const ProgramInfo& info = image.info;
  if (info.format != ProgramFormat::kElf32) {
    throw InputError(info.source, "format", "expected an ELF program to convert, got a .vxbin");
  }
  if (info.segments.empty()) throw InputError(info.source, "segments", "expected at least one loadable segment");
  uint64_t image_end = info.min_vma;
  for (const LoadedSegment& segment : info.segments) {
    if (segment.file_size > 0) image_end = std::max<uint64_t>(image_end, uint64_t{segment.vaddr} + segment.file_size);
  }
  std::vector<uint8_t> out(16 + (image_end - info.min_vma), 0);
  const uint64_t min_vma = info.min_vma;
  const uint64_t max_vma = info.max_vma;
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(min_vma >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(max_vma >> (8 * i));
  }
  for (size_t i = 0; i < info.segments.size(); ++i) {
    const LoadedSegment& segment = info.segments[i];
    const std::vector<uint8_t>& bytes = image.segment_bytes.at(i);
    if (segment.file_size == 0) continue;
    if (segment.vaddr < info.min_vma || bytes.size() < segment.file_size) {
      throw InputError(info.source, "segments", "segment at " + std::to_string(segment.vaddr) + " lies outside the image");
    }
    std::memcpy(out.data() + 16 + (segment.vaddr - info.min_vma), bytes.data(), segment.file_size);
  }
  return out;
}

namespace {

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw WorkError("cannot write " + path);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw WorkError("cannot write " + path);
}

}  // namespace

void write_vxbin_from_elf(const std::string& elf_path, const std::string& vxbin_path) {
  const std::vector<uint8_t> vxbin = make_vxbin(parse_program_file(elf_path));
  write_file(vxbin_path, vxbin.data(), vxbin.size());
}

std::vector<uint8_t> make_bin(const ProgramImage& image) {
  if (image.info.min_vma != vxsim::kStartupAddr) {
    throw InputError(image.info.source, "min_vma",
                     "a .bin is loaded at STARTUP_ADDR 0x80000000, but the image starts at " +
                         std::to_string(image.info.min_vma));
  }
  std::vector<uint8_t> bin = make_vxbin(image);
  bin.erase(bin.begin(), bin.begin() + 16);
  return bin;
}

void write_images_from_elf(const std::string& elf_path, const std::string& vxbin_path, const std::string& bin_path) {
  const ProgramImage image = parse_program_file(elf_path);
  const std::vector<uint8_t> vxbin = make_vxbin(image);
  write_file(vxbin_path, vxbin.data(), vxbin.size());
  const std::vector<uint8_t> bin = make_bin(image);
  write_file(bin_path, bin.data(), bin.size());
}

}  // namespace vxsynth::vxsim::host
