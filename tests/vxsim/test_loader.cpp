// Program parsing: malformed ELF32 / .vxbin inputs fail with an InputError naming the field.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/error.h"
#include "vxsim/program.h"

using namespace vxsynth::vxsim;

namespace {

std::vector<uint8_t> vxbin(uint64_t min_vma, uint64_t max_vma, size_t image) {
  std::vector<uint8_t> b(16 + image, 0x13);
  std::memcpy(b.data(), &min_vma, 8);
  std::memcpy(b.data() + 8, &max_vma, 8);
  return b;
}

// A minimal valid ELF32 RISC-V executable with one PT_LOAD segment of `code` at vaddr.
std::vector<uint8_t> elf(uint32_t vaddr, std::vector<uint32_t> code) {
  std::vector<uint8_t> b(52 + 32 + 4 * code.size(), 0);
  auto put16 = [&](size_t o, uint16_t v) { std::memcpy(&b[o], &v, 2); };
  auto put32 = [&](size_t o, uint32_t v) { std::memcpy(&b[o], &v, 4); };
  b[0] = 0x7f, b[1] = 'E', b[2] = 'L', b[3] = 'F', b[4] = 1, b[5] = 1, b[6] = 1;
  put16(16, 2);    // ET_EXEC
  put16(18, 243);  // EM_RISCV
  put32(20, 1);
  put32(24, vaddr);
  put32(28, 52);   // e_phoff
  put16(40, 52);
  put16(42, 32);
  put16(44, 1);
  put32(52, 1);    // PT_LOAD
  put32(56, 84);   // p_offset
  put32(60, vaddr);
  put32(64, vaddr);
  put32(68, 4 * code.size());
  put32(72, 4 * code.size() + 64);
  put32(76, 5);    // R X
  std::memcpy(&b[84], code.data(), 4 * code.size());
  return b;
}

std::string field_of(const std::vector<uint8_t>& bytes) {
  try {
    parse_program(bytes, "x");
  } catch (const vxsynth::InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

}  // namespace

TEST(Loader, MinimalElf) {
  auto img = parse_program(elf(0x80000000, {0x00000013, 0x0000000b}), "min.elf");
  EXPECT_EQ(img.info.format, ProgramFormat::kElf32);
  EXPECT_EQ(img.info.entry, 0x80000000u);
  ASSERT_EQ(img.info.segments.size(), 1u);
  EXPECT_EQ(img.info.segments[0].file_size, 8u);
  EXPECT_EQ(img.info.segments[0].mem_size, 72u);
  EXPECT_FALSE(img.info.segments[0].writable);
  EXPECT_EQ(img.info.max_vma, 0x80000000u + 72);
  EXPECT_FALSE(img.info.has_line_info);
}

TEST(Loader, BadElfFieldsAreNamed) {
  auto e = elf(0x80000000, {0x13});
  auto bad = e;
  bad[4] = 2;
  EXPECT_EQ(field_of(bad), "e_ident[EI_CLASS]");
  bad = e;
  bad[18] = 62;  // x86-64
  EXPECT_EQ(field_of(bad), "e_machine");
  bad = e;
  bad[16] = 3;  // ET_DYN
  EXPECT_EQ(field_of(bad), "e_type");
  bad = e;
  bad[36] = 1;  // EF_RISCV_RVC
  EXPECT_EQ(field_of(bad), "e_flags");
  bad = e;
  bad.resize(54);  // program header cut off
  EXPECT_EQ(field_of(bad), "p_type");
  bad = e;
  bad[68] = 0xff;  // p_filesz larger than the file
  EXPECT_EQ(field_of(bad), "program header 0");
  EXPECT_EQ(field_of(elf(0x100, {0x13})), "program header 0") << "IO region";
  EXPECT_EQ(field_of(elf(0xFFFF0000u, {0x13})), "program header 0") << "local-memory window";
  bad = e;
  bad[24] = 2;  // entry not aligned
  EXPECT_EQ(field_of(bad), "e_entry");
  EXPECT_EQ(field_of(std::vector<uint8_t>{0x7f, 'E', 'L', 'F'}), "e_ident");
}

TEST(Loader, Vxbin) {
  auto img = parse_program(vxbin(0x80000000, 0x80000100, 64), "k.vxbin");
  EXPECT_EQ(img.info.format, ProgramFormat::kVxbin);
  EXPECT_EQ(img.info.entry, 0x80000000u);
  ASSERT_EQ(img.info.segments.size(), 2u);
  EXPECT_FALSE(img.info.segments[0].writable);
  EXPECT_EQ(img.info.segments[0].file_size, 64u);
  EXPECT_TRUE(img.info.segments[1].writable);
  EXPECT_EQ(img.info.segments[1].mem_size, 0x100u - 64);
}

TEST(Loader, BadVxbinFieldsAreNamed) {
  EXPECT_EQ(field_of(std::vector<uint8_t>(10, 0)), "header");
  EXPECT_EQ(field_of(vxbin(0x80000000, 0x80000010, 64)), "max_vma");
  EXPECT_EQ(field_of(vxbin(0x180000000ull, 0x180000100ull, 64)), "min_vma/max_vma") << "RV64 image";
  EXPECT_EQ(field_of(vxbin(0x40, 0x1000, 64)), "min_vma");
  EXPECT_EQ(field_of(vxbin(0xFFFE0000u, 0xFFFF1000u, 64)), "max_vma") << "local-memory window";
}

TEST(Loader, MissingFile) {
  try {
    parse_program_file("/nonexistent/kernel.elf");
    FAIL();
  } catch (const vxsynth::InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/kernel.elf");
  }
}
