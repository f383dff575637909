// The encoding table: no two rows overlap, vortex-isa.md §1.1's assembled words decode and
// disassemble to what the spec says, and standard words disassemble sensibly.
#include <gtest/gtest.h>

#include "vxsim/decode.h"
#include "vxsim/simulator.h"

using namespace vxsynth::vxsim;

TEST(Decode, NoTwoEncodingsOverlap) {
  auto t = insn_table();
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].match & ~t[i].mask, 0u) << t[i].mnemonic << ": match has bits outside its mask";
    for (size_t j = i + 1; j < t.size(); ++j) {
      // Some word matches both iff the matches agree on every bit both masks fix.
      const uint32_t common = t[i].mask & t[j].mask;
      EXPECT_NE(t[i].match & common, t[j].match & common) << t[i].mnemonic << " overlaps " << t[j].mnemonic;
    }
  }
}

TEST(Decode, EveryRowDecodesToItself) {
  auto t = insn_table();
  for (size_t i = 0; i < t.size(); ++i) {
    auto id = decode_id(t[i].match);
    ASSERT_TRUE(id.has_value()) << t[i].mnemonic;
    EXPECT_EQ(static_cast<size_t>(*id), i) << t[i].mnemonic;
  }
}

struct Example {
  uint32_t word;
  const char* text;
};

// vortex-isa.md §1.1, assembled with riscv64-unknown-elf-as.
TEST(Decode, VortexIsaExamplesRoundTrip) {
  const Example examples[] = {
      {0x0005000B, "tmc a0"},        {0x00B5100B, "wspawn a0, a1"}, {0x0005260B, "split a2, a0"},
      {0x0015260B, "split.n a2, a0"}, {0x0006300B, "join a2"},      {0x00B5400B, "bar a0, a1"},
      {0x00B5500B, "pred a0, a1"},   {0x00B5508B, "pred.n a0, a1"}, {0x0205060B, "vote.all a2, a0"},
  };
  for (const auto& e : examples) {
    EXPECT_EQ(Simulator::disassemble(e.word), e.text);
    auto id = decode_id(e.word);
    ASSERT_TRUE(id);
    const InsnInfo& info = insn_table()[static_cast<size_t>(*id)];
    EXPECT_EQ(info.extension, Extension::Vortex) << e.text;
    // The word is the row's match plus only register fields.
    EXPECT_EQ(e.word & info.mask, info.match) << e.text;
  }
  // v3's wsync is known but not executed.
  auto wsync = decode_id(0x0000700B);
  ASSERT_TRUE(wsync);
  EXPECT_EQ(insn_table()[static_cast<size_t>(*wsync)].shape, Shape::Unsupported);
  EXPECT_EQ(Simulator::disassemble(0x0400008B), "wmma out_fmt=1, in_fmt=0");
}

TEST(Decode, StandardDisassembly) {
  const Example examples[] = {
      {0xffd58513, "addi a0, a1, -3"},
      {0x00b50633, "add a2, a0, a1"},
      {0x40b50633, "sub a2, a0, a1"},
      {0x0045a503, "lw a0, 4(a1)"},
      {0xfea42e23, "sw a0, -4(s0)"},
      {0x02b50633, "mul a2, a0, a1"},
      {0x00b57653, "fadd.s fa2, fa0, fa1, dyn"},
      {0x340025f3, "csrrs a1, 0x340, zero"},
      {0x00000073, "ecall"},
      {0x0cb5262f, "amoswap.w.aq a2, a1, (a0)"},
      {0x08b5262f, "amoswap.w a2, a1, (a0)"},
      {0x0330000f, "fence rw, rw"},
      {0x8330000f, "fence.tso"},
      {0x100525af, "lr.w a1, (a0)"},
      {0x00a5d463, "bge a1, a0, 0x1008"},
      {0x008000ef, "jal ra, 0x1008"},
      {0x0ff0000f, "fence"},
  };
  for (const auto& e : examples) EXPECT_EQ(Simulator::disassemble(e.word, 0x1000), e.text) << std::hex << e.word;
}

TEST(Decode, IllegalWordsGetAGuess) {
  EXPECT_EQ(Simulator::disassemble(0x0000707b).rfind("illegal: opcode 0x7b (custom-3)", 0), 0u);
  EXPECT_NE(Simulator::disassemble(0x00000001).find("compressed"), std::string::npos);
  EXPECT_NE(Simulator::disassemble(0x0000001b).find("RV64"), std::string::npos);
  // funct7 = 5 on custom-0 is not a Vortex 2.x instruction.
  EXPECT_EQ(decode_id(0x0a00000b), std::nullopt);
  // split with a negation field other than x1 is not what the intrinsics emit.
  EXPECT_EQ(decode_id(0x0025260b), std::nullopt);
}

TEST(Decode, ImmediatesAndRegisterFields) {
  // beq with the most negative offset (-4096).
  const Fields b = decode_fields(0x80000063, Format::B);
  EXPECT_EQ(b.imm, -4096);
  // jal with offset -2.
  EXPECT_EQ(decode_fields(0xfffff06f, Format::Jal).imm, -2);
  // lui keeps the upper 20 bits.
  EXPECT_EQ(static_cast<uint32_t>(decode_fields(0xfffff537, Format::U).imm), 0xfffff000u);
  // fmadd.s fa3, fa0, fa1, fa2: rs3 = 12.
  EXPECT_EQ(decode_fields(0x60b576c3, Format::R4).rs3, 12);
  EXPECT_EQ(Simulator::disassemble(0x60b576c3), "fmadd.s fa3, fa0, fa1, fa2, dyn");
}
