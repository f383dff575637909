// The disassembler against GNU as: random words of every RV32IMAF / Zicsr / Zifencei / priv row
// are disassembled, the text is assembled with riscv64-unknown-elf-as, and the words must
// come back identical. (Branch and jump targets print as absolute addresses and the Vortex
// and Zicond mnemonics are unknown to this binutils: those rows are covered by test_decode.)
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <cstring>
#include <unistd.h>

#include "vxsim/decode.h"

using namespace vxsynth::vxsim;

TEST(DisasmGas, RandomWordsReassembleIdentically) {
  const auto table = insn_table();
  std::mt19937 rng(1129);
  std::vector<uint32_t> words;
  std::string source;
  for (size_t i = 0; i < table.size(); ++i) {
    const InsnInfo& row = table[i];
    if (row.shape == Shape::Unsupported) continue;
    switch (row.extension) {
      case Extension::I: case Extension::M: case Extension::A: case Extension::F: case Extension::Zicsr:
      case Extension::Priv: case Extension::Zifencei:
        break;
      default:
        continue;
    }
    if (row.format == Format::B || row.format == Format::Jal) continue;
    for (int n = 0; n < 24; ++n) {
      uint32_t w = row.match | (rng() & ~row.mask);
      if (row.format == Format::Fence) {  // pred, succ; an empty set has no assembler syntax
        w = row.match | ((1 + rng() % 15) << 24) | ((1 + rng() % 15) << 20);
      }
      if (row.extension == Extension::Zifencei) w = row.match;                 // fence.i has no operands
      if (row.format == Format::R4 || row.format == Format::FR || row.format == Format::F1 ||
          row.format == Format::FtoX || row.format == Format::XtoF) {
        const uint32_t rm = (w >> 12) & 7;
        if (rm == 5 || rm == 6) w |= 7u << 12;  // reserved rounding modes do not assemble
      }
      ASSERT_EQ(decode_id(w), static_cast<InsnId>(i)) << row.mnemonic;
      words.push_back(w);
      source += "  " + disassemble(w, 0) + "\n";
    }
  }
  ASSERT_GT(words.size(), 2000u);
  const auto dir = std::filesystem::temp_directory_path() / ("vxsim_disasm_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto s = dir / "d.s", o = dir / "d.o", bin = dir / "d.bin";
  std::ofstream(s) << ".option norvc\n.text\n" << source;
  const std::string cmd = "riscv64-unknown-elf-as -march=rv32imaf_zicsr_zifencei " + s.string() + " -o " + o.string() +
                          " 2>" + (dir / "err.txt").string() + " && riscv64-unknown-elf-objcopy -O binary -j .text " +
                          o.string() + " " + bin.string();
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream err(dir / "err.txt");
    FAIL() << "GNU as rejected the disassembly:\n" << std::string(std::istreambuf_iterator<char>(err), {}).substr(0, 2000);
  }
  std::ifstream in(bin, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), words.size() * 4);
  size_t bad = 0;
  for (size_t i = 0; i < words.size() && bad < 20; ++i) {
    uint32_t got = 0;
    std::memcpy(&got, bytes.data() + 4 * i, 4);
    if (got != words[i]) {
      ++bad;
      ADD_FAILURE() << std::hex << "0x" << words[i] << " -> \"" << disassemble(words[i], 0) << "\" -> 0x" << got;
    }
  }
  std::filesystem::remove_all(dir);
}
