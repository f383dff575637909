// Every fault kind ends the run with a report (kind, pc, warp, masks, word, disassembly),
// never a crash or a hang: programs/faults.S, one case each.
#include <gtest/gtest.h>

#include "program_util.h"

using namespace vxsim_test;

namespace {

FaultReport run_fault(uint32_t test_case, Config cfg = Config{}) {
  Simulator sim(cfg);
  sim.load_program(program_path("faults"));
  sim.write_dcr(kDcrStartupArg0, test_case);
  try {
    sim.run();
  } catch (const SimFault& f) {
    EXPECT_NE(std::string(f.what()).find(fault_kind_name(f.report().kind)), std::string::npos);
    return f.report();
  }
  ADD_FAILURE() << "case " << test_case << " did not fault";
  return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Faults, IllegalInstructionNamesWordAndGuess) {
  FaultReport r = run_fault(0);
  EXPECT_EQ(r.kind, FaultKind::kIllegalInstruction);
  EXPECT_EQ(r.instruction, 0x0000707bu);
  EXPECT_TRUE(contains(r.disassembly, "custom-3")) << r.disassembly;
  EXPECT_GE(r.pc, 0x80000000u);
  EXPECT_EQ(r.warp, 0u);
  EXPECT_EQ(r.thread_mask, 1u);
}

TEST(Faults, Vortex3InstructionIsUnsupportedNotIllegal) {
  FaultReport r = run_fault(1);
  EXPECT_EQ(r.kind, FaultKind::kUnsupportedInstruction);
  EXPECT_TRUE(contains(r.message, "wsync")) << r.message;
}

TEST(Faults, MisalignedLoadAndStore) {
  FaultReport r = run_fault(2);
  EXPECT_EQ(r.kind, FaultKind::kMisalignedAccess);
  EXPECT_EQ(r.address.value_or(0), 0x00200002u);
  EXPECT_EQ(r.lane.value_or(99), 0u);
  EXPECT_TRUE(contains(r.disassembly, "lw a1, 2(a0)")) << r.disassembly;
  r = run_fault(3);
  EXPECT_EQ(r.kind, FaultKind::kMisalignedAccess);
  EXPECT_EQ(r.address.value_or(0), 0x00200001u);
  r = run_fault(20);
  EXPECT_EQ(r.kind, FaultKind::kMisalignedAccess) << "misaligned AMO";
}

TEST(Faults, UnmappedNullPageAndLocalMemoryBound) {
  FaultReport r = run_fault(4);
  EXPECT_EQ(r.kind, FaultKind::kUnmappedAccess);
  EXPECT_EQ(r.address.value_or(0), 4u);
  r = run_fault(19);
  EXPECT_EQ(r.kind, FaultKind::kUnmappedAccess);
  EXPECT_EQ(r.address.value_or(0), 0xFFFF4000u);
  // With 32 KiB of local memory the same address is fine: it reads 0.
  Config big;
  big.local_mem_bytes = 32768;
  Simulator sim(big);
  sim.load_program(program_path("faults"));
  sim.write_dcr(kDcrStartupArg0, 19);
  try {
    sim.run();
    ADD_FAILURE() << "expected the next case's fault";
  } catch (const SimFault& f) {
    EXPECT_EQ(f.report().kind, FaultKind::kMisalignedAccess) << "ran past the local load into the next case";
  }
}

TEST(Faults, StoreIntoReadOnlyCodeIsAnAclViolation) {
  FaultReport r = run_fault(5);
  EXPECT_EQ(r.kind, FaultKind::kAclViolation);
  EXPECT_EQ(r.address.value_or(0), 0x80000000u);
  // Without ACLs from the loader the same store succeeds (and the run faults later).
  Simulator sim;
  sim.load_program(program_path("faults"), /*apply_acl=*/false);
  sim.write_dcr(kDcrStartupArg0, 5);
  try {
    sim.run();
  } catch (const SimFault& f) {
    EXPECT_NE(f.report().kind, FaultKind::kAclViolation);
  }
}

TEST(Faults, DivergentBranchNamesBothMasks) {
  FaultReport r = run_fault(6);
  EXPECT_EQ(r.kind, FaultKind::kDivergentBranch);
  EXPECT_EQ(r.thread_mask, 0xfu);
  EXPECT_EQ(r.taken_mask.value_or(0), 0xau);
  EXPECT_EQ(r.not_taken_mask.value_or(0), 0x5u);
  EXPECT_TRUE(contains(r.disassembly, "bnez") || contains(r.disassembly, "bne a0, zero")) << r.disassembly;
}

TEST(Faults, IpdomOverflow) {
  FaultReport r = run_fault(7);
  EXPECT_EQ(r.kind, FaultKind::kIpdomOverflow);
  EXPECT_TRUE(contains(r.disassembly, "split")) << r.disassembly;
}

TEST(Faults, JoinWithoutSplit) { EXPECT_EQ(run_fault(8).kind, FaultKind::kIpdomUnderflow); }

TEST(Faults, BarrierIdOutOfRange) {
  FaultReport r = run_fault(9);
  EXPECT_EQ(r.kind, FaultKind::kBarrierOutOfRange);
  EXPECT_TRUE(contains(r.message, "2 barriers")) << r.message;
}

TEST(Faults, DeadlockWhenEveryWarpWaits) {
  FaultReport r = run_fault(10);
  EXPECT_EQ(r.kind, FaultKind::kDeadlock);
  EXPECT_TRUE(contains(r.disassembly, "bar")) << r.disassembly;
}

TEST(Faults, InstructionBudget) {
  Config cfg;
  cfg.max_instructions = 10000;
  FaultReport r = run_fault(11, cfg);
  EXPECT_EQ(r.kind, FaultKind::kBudgetExhausted);
  EXPECT_TRUE(contains(r.disassembly, "jal zero")) << r.disassembly;
}

TEST(Faults, ConsoleMisuse) {
  FaultReport r = run_fault(12);
  EXPECT_EQ(r.kind, FaultKind::kConsoleMisuse);
  EXPECT_EQ(r.address.value_or(0), 0x40u);
  EXPECT_EQ(run_fault(21).kind, FaultKind::kConsoleMisuse) << "console load";
}

TEST(Faults, UnknownCsrAndReadOnlyCsr) {
  EXPECT_EQ(run_fault(13).kind, FaultKind::kInvalidCsr);
  EXPECT_EQ(run_fault(18).kind, FaultKind::kInvalidCsr);
}

TEST(Faults, MisalignedJumpTarget) { EXPECT_EQ(run_fault(14).kind, FaultKind::kMisalignedFetch); }

TEST(Faults, InvalidDynamicRoundingMode) {
  FaultReport r = run_fault(16);
  EXPECT_EQ(r.kind, FaultKind::kIllegalInstruction);
  EXPECT_TRUE(contains(r.message, "rounding mode 5")) << r.message;
}

TEST(Faults, FetchFromNeverWrittenMemory) {
  FaultReport r = run_fault(17);
  EXPECT_EQ(r.kind, FaultKind::kIllegalInstruction);
  EXPECT_EQ(r.pc, 0x50000000u);
  EXPECT_EQ(r.instruction, 0xbaadf00du);
  EXPECT_TRUE(contains(r.message, "never-written")) << r.message;
}

TEST(Faults, EcallEndsTheRunWithExitCode) {
  Simulator sim;
  sim.load_program(program_path("faults"));
  sim.write_dcr(kDcrStartupArg0, 15);
  RunResult r = sim.run();
  EXPECT_TRUE(r.stopped_by_ecall);
  EXPECT_EQ(r.exit_code, 3);
}

TEST(Faults, ReportNamesSourceLineFromDwarf) {
  Simulator sim;
  ProgramInfo info = sim.load_program(program_path("fault_line"));
  EXPECT_TRUE(info.has_line_info);
  try {
    sim.run();
    FAIL() << "expected a fault";
  } catch (const SimFault& f) {
    EXPECT_EQ(f.report().kind, FaultKind::kUnmappedAccess);
    EXPECT_TRUE(contains(f.report().source_location, "fault_line.c:9")) << f.report().source_location;
    EXPECT_TRUE(contains(f.what(), "fault_line.c:9")) << f.what();
  }
}

TEST(Faults, CountersAndConsoleSurviveAFault) {
  Simulator sim;
  sim.load_program(program_path("faults"));
  sim.write_dcr(kDcrStartupArg0, 6);
  EXPECT_THROW(sim.run(), SimFault);
  EXPECT_GT(sim.counters().warp_instructions, 5u);
  // The simulator is reusable after a fault.
  sim.write_dcr(kDcrStartupArg0, 15);
  EXPECT_TRUE(sim.run().stopped_by_ecall);
}
