// One program per ISA extension, each a list of CHECKs (programs/*.S): every RV32IMAF,
// Zicsr, Zicond and Vortex instruction, with edge cases; plus a coverage test over the
// encoding table.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "program_util.h"
#include "vxsim/decode.h"

using namespace vxsim_test;

namespace {

void run_checks(const std::string& program, size_t min_checks) {
  Simulator sim(make_config(1, 1, 1));
  ProgramInfo info = sim.load_program(program_path(program));
  RunResult r = sim.run();
  EXPECT_FALSE(r.stopped_by_ecall);
  auto checks = read_checks(sim, info);
  ASSERT_GE(checks.size(), min_checks) << "the program's .expected section is missing or short";
  size_t failed = 0;
  for (const auto& c : checks) {
    if (c.actual != c.expected) {
      ++failed;
      char buf[64];
      std::snprintf(buf, sizeof buf, "expected 0x%08x, got 0x%08x", c.expected, c.actual);
      ADD_FAILURE() << program << ": " << c.name << ": " << buf;
    }
  }
  EXPECT_EQ(failed, 0u);
}

// Each program runs once; its checks are shared by the per-instruction tests below.
const std::vector<Check>& program_checks(const std::string& program) {
  static std::map<std::string, std::vector<Check>> cache;
  auto it = cache.find(program);
  if (it == cache.end()) {
    Simulator sim(make_config(1, 1, 1));
    ProgramInfo info = sim.load_program(program_path(program));
    sim.run();
    it = cache.emplace(program, read_checks(sim, info)).first;
  }
  return it->second;
}

// The program that tests each instruction, by extension.
std::vector<std::string> programs_for(Extension e) {
  switch (e) {
    case Extension::M: return {"rv32m"};
    case Extension::A: return {"rv32a"};
    case Extension::F: return {"rv32f"};
    case Extension::Zicsr: return {"rv32i", "rv32f"};
    default: return {"rv32i"};
  }
}

struct InsnParam {
  std::string mnemonic;
  Extension extension;
};

void PrintTo(const InsnParam& p, std::ostream* os) { *os << p.mnemonic; }

std::vector<InsnParam> checked_instructions() {
  std::vector<InsnParam> out;
  for (const InsnInfo& row : insn_table()) {
    switch (row.extension) {
      case Extension::I: case Extension::M: case Extension::A: case Extension::F: case Extension::Zicsr:
      case Extension::Zicond:
        if (std::string(row.mnemonic) != "fence" && std::string(row.mnemonic) != "ecall" &&
            std::string(row.mnemonic) != "ebreak") {
          out.push_back({row.mnemonic, row.extension});
        }
        break;
      default:
        break;  // no-ops, and the Vortex sets (test_simt.cpp, test_faults.cpp, test_wmma.cpp)
    }
  }
  return out;
}

}  // namespace

// One test per instruction: the checks whose name starts with its mnemonic.
class Insn : public ::testing::TestWithParam<InsnParam> {};

TEST_P(Insn, EdgeCases) {
  const InsnParam& p = GetParam();
  size_t matched = 0;
  for (const std::string& program : programs_for(p.extension)) {
    for (const Check& c : program_checks(program)) {
      if (c.name.rfind(p.mnemonic + " ", 0) != 0 && c.name.rfind(p.mnemonic + ":", 0) != 0) continue;
      ++matched;
      char buf[64];
      std::snprintf(buf, sizeof buf, "expected 0x%08x, got 0x%08x", c.expected, c.actual);
      EXPECT_EQ(c.actual, c.expected) << program << ": " << c.name << ": " << buf;
    }
  }
  EXPECT_GE(matched, 1u) << "no check is named after " << p.mnemonic;
}

INSTANTIATE_TEST_SUITE_P(Rv32, Insn, ::testing::ValuesIn(checked_instructions()),
                         [](const ::testing::TestParamInfo<InsnParam>& tp) {
                           std::string name = tp.param.mnemonic;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

TEST(Insns, Rv32i) { run_checks("rv32i", 65); }
TEST(Insns, Rv32m) { run_checks("rv32m", 28); }
TEST(Insns, Rv32a) { run_checks("rv32a", 25); }
TEST(Insns, Rv32f) { run_checks("rv32f", 150); }

// A check that fails must be reported: corrupt one expected value and see the mismatch.
TEST(Insns, CheckProtocolDetectsAWrongResult) {
  Simulator sim(make_config(1, 1, 1));
  ProgramInfo info = sim.load_program(program_path("rv32m"));
  sim.run();
  auto checks = read_checks(sim, info);
  ASSERT_FALSE(checks.empty());
  uint32_t bad = checks[0].actual ^ 1;
  sim.memory().write(kResults, &bad, 4);
  EXPECT_NE(read_checks(sim, info)[0].actual, checks[0].expected);
}

// Every instruction the simulator executes appears in at least one test program.
TEST(Insns, EveryExecutableInstructionIsExercised) {
  InsnRecorder rec;
  for (const char* p : {"rv32i", "rv32m", "rv32a", "rv32f"}) {
    Simulator sim(make_config(1, 1, 1));
    sim.set_instruction_consumer(&rec);
    sim.load_program(program_path(p));
    sim.run();
  }
  for (uint32_t c = 0; c < 12; ++c) {
    Simulator sim(make_config(2, 4, 8));
    sim.set_instruction_consumer(&rec);
    sim.load_program(program_path("simt"));
    sim.memory().fill(kShared, 0, 0x4000);
    sim.write_dcr(kDcrStartupArg0, c);
    sim.run();
  }
  {
    Simulator sim(make_config(1, 1, 4));
    sim.set_instruction_consumer(&rec);
    sim.load_program(program_path("wmma"));
    sim.run();
  }
  for (uint32_t c : {15u, 22u}) {  // ecall, ebreak
    Simulator sim;
    sim.set_instruction_consumer(&rec);
    sim.load_program(program_path("faults"));
    sim.write_dcr(kDcrStartupArg0, c);
    EXPECT_TRUE(sim.run().stopped_by_ecall);
  }
  auto table = insn_table();
  std::vector<std::string> missing;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].shape == Shape::Unsupported) continue;
    if (!rec.ids.count(static_cast<uint16_t>(i))) missing.push_back(table[i].mnemonic);
  }
  std::string list;
  for (auto& m : missing) list += m + " ";
  EXPECT_TRUE(missing.empty()) << "never executed by a test program: " << list;
}
