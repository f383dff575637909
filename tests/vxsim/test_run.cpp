// Whole runs: console and exit code from C, .vxbin loading, host ACLs, reloads, counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "program_util.h"

using namespace vxsim_test;

TEST(Run, ConsoleLinesAndExitCodeFromC) {
  Simulator sim;
  std::vector<ConsoleLine> seen;
  sim.set_console_callback([&](const ConsoleLine& l) { seen.push_back(l); });
  sim.load_program(program_path("hello"));
  RunResult r = sim.run();
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_FALSE(r.stopped_by_ecall);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].text, "hello from vxsim");
  EXPECT_EQ(seen[0].slot, 0u);
  EXPECT_EQ(seen[1].text, "second line without newline") << "a partial line is flushed at the end";
  EXPECT_EQ(sim.console_text(), "hello from vxsim\nsecond line without newline\n");
  // A second run starts from reset and gives the same result.
  seen.clear();
  EXPECT_EQ(sim.run().exit_code, 7);
  EXPECT_EQ(seen.size(), 2u);
}

TEST(Run, VxbinImageRunsLikeTheElf) {
  // Build a .vxbin (u64 min_vma, u64 max_vma, raw image) from the ELF's segments.
  ProgramImage elf = parse_program_file(program_path("hello"));
  uint32_t lo = elf.info.min_vma, hi = 0;
  for (auto& s : elf.info.segments) {
    if (s.vaddr < 0x90000000u) hi = std::max(hi, s.vaddr + s.mem_size);
  }
  std::vector<uint8_t> image(hi - lo, 0);
  for (size_t i = 0; i < elf.info.segments.size(); ++i) {
    const auto& s = elf.info.segments[i];
    if (s.vaddr >= 0x90000000u) continue;
    std::memcpy(image.data() + (s.vaddr - lo), elf.segment_bytes[i].data(), elf.segment_bytes[i].size());
  }
  std::vector<uint8_t> vxbin(16);
  uint64_t min_vma = lo, max_vma = hi + 64;
  std::memcpy(vxbin.data(), &min_vma, 8);
  std::memcpy(vxbin.data() + 8, &max_vma, 8);
  vxbin.insert(vxbin.end(), image.begin(), image.end());

  Simulator sim;
  ProgramInfo info = sim.load_program_bytes(vxbin, "hello.vxbin");
  EXPECT_EQ(info.format, ProgramFormat::kVxbin);
  EXPECT_EQ(info.entry, lo);
  EXPECT_EQ(info.max_vma, hi + 64);
  EXPECT_EQ(sim.read_dcr(kDcrStartupAddr0), lo);
  EXPECT_EQ(sim.memory().access_at(lo), Access::kRead) << "the image is read-only, as vx_upload_kernel_bytes";
  EXPECT_EQ(sim.memory().access_at(hi + 8), Access::kReadWrite);
  RunResult r = sim.run();
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(sim.console_lines().size(), 2u);
}

TEST(Run, HostReadOnlyBufferRejectsKernelStores) {
  // rv32i stores to 0x00200000: make that a read-only host buffer.
  Simulator sim(make_config(1, 1, 1));
  sim.load_program(program_path("rv32i"));
  sim.memory().set_access(0x00200000, 256, Access::kRead);
  try {
    sim.run();
    FAIL() << "expected an ACL violation";
  } catch (const SimFault& f) {
    EXPECT_EQ(f.report().kind, FaultKind::kAclViolation);
    EXPECT_EQ(f.report().address.value_or(0), 0x00200000u);
  }
  // Read-write: the same program passes.
  sim.memory().set_access(0x00200000, 256, Access::kReadWrite);
  EXPECT_NO_THROW(sim.run());
  // Write-only: kernel loads fault.
  sim.memory().set_access(0x00200000, 256, Access::kWrite);
  try {
    sim.run();
    FAIL() << "expected an ACL violation on load";
  } catch (const SimFault& f) {
    EXPECT_EQ(f.report().kind, FaultKind::kAclViolation);
    EXPECT_TRUE(f.report().disassembly.rfind("l", 0) == 0) << f.report().disassembly;
  }
}

TEST(Run, ReloadDropsDecodedInstructions) {
  Simulator sim;
  sim.load_program(program_path("hello"));
  EXPECT_EQ(sim.run().exit_code, 7);
  // Another program at the same address: the cached decode of hello must not survive.
  sim.load_program(program_path("faults"));
  sim.write_dcr(kDcrStartupArg0, 15);
  RunResult r = sim.run();
  EXPECT_TRUE(r.stopped_by_ecall);
  EXPECT_EQ(r.exit_code, 3);
  // A host write over code also drops it: patch the first instruction with an illegal word.
  const uint32_t bad = 0xffffffffu;
  sim.memory().write(0x80000000u, &bad, 4);
  try {
    sim.run();
    FAIL() << "expected the patched instruction to be seen";
  } catch (const SimFault& f) {
    EXPECT_EQ(f.report().kind, FaultKind::kIllegalInstruction);
    EXPECT_EQ(f.report().pc, 0x80000000u);
  }
}

TEST(Run, CountersByClassAndMemory) {
  Simulator sim(make_config(1, 1, 1));
  sim.load_program(program_path("rv32a"));
  sim.run();
  const Counters& c = sim.counters();
  auto k = [](OpClass cls) { return static_cast<size_t>(cls); };
  EXPECT_GT(c.warp_by_class[k(OpClass::kAlu)], 0u);
  // Counted from rv32a.S: 12 AMOs (11 TEST_AMO + amoadd rd=x0), 4 lr.w and 5 sc.w; stores: 32
  // CHECK results + 11 TEST_AMO set-ups + 3 plain sw around the reservations.
  EXPECT_EQ(c.warp_by_class[k(OpClass::kAtomic)], 12u + 4 + 5);
  EXPECT_EQ(c.warp_by_class[k(OpClass::kStore)], 32u + 11 + 3);
  EXPECT_EQ(c.warp_by_class[k(OpClass::kFpu)], 0u);
  uint64_t sum = 0;
  for (auto v : c.warp_by_class) sum += v;
  EXPECT_EQ(sum, c.warp_instructions);
  EXPECT_EQ(c.thread_instructions, c.warp_instructions) << "one thread";
  EXPECT_DOUBLE_EQ(c.active_lane_fraction(1), 1.0);
  // 46 stores + 12 AMO writes + 2 successful sc.w, one word each.
  EXPECT_EQ(c.global_bytes_written, 4u * (46 + 12 + 2));
  EXPECT_EQ(c.local_bytes_read, 0u);
  EXPECT_DOUBLE_EQ(c.lines_per_global_access(), 1.0) << "one lane touches one line";
  vxsynth::Json j = sim.counters_json();
  EXPECT_EQ(j["schema"], "vxsynth.vxsim-counters/1");
  EXPECT_EQ(j["total"]["warp_instructions"].get<uint64_t>(), c.warp_instructions);
  EXPECT_EQ(j["total"]["by_class"]["atomic"]["warp"].get<uint64_t>(), c.warp_by_class[k(OpClass::kAtomic)]);
  EXPECT_EQ(j["cores"].size(), 1u);
}

TEST(Run, DistinctLinesPerWarpAccess) {
  Simulator sim(make_config(1, 4, 8));
  sim.load_program(program_path("simt"));
  sim.memory().fill(kShared, 0, 0x4000);
  sim.write_dcr(kDcrStartupArg0, 7);
  sim.run();
  EXPECT_GT(sim.counters().global_memory_instructions, 0u);
  // Per warp: the case-table load (1 line), the AMO (all lanes one word: 1 line), the
  // result store (8 lanes, 64-byte stride: 8 lines).
  EXPECT_EQ(sim.counters().global_memory_instructions, 4u * 3);
  EXPECT_EQ(sim.counters().global_lines_touched, 4u * (1 + 1 + 8));
  EXPECT_EQ(sim.counters().global_lines_histogram[1], 4u * 2);
  EXPECT_EQ(sim.counters().global_lines_histogram[8], 4u);
  EXPECT_EQ(sim.counters_json()["total"]["memory"]["lines_histogram"]["8"].get<uint64_t>(), 4u);
}

TEST(Run, DcrValidation) {
  Simulator sim;
  EXPECT_THROW(sim.write_dcr(0x100, 1), vxsynth::InputError);
  EXPECT_THROW(sim.write_dcr(kDcrStartupAddr1, 1), vxsynth::InputError);
  sim.write_dcr(kDcrMpmClass, 2);
  EXPECT_EQ(sim.read_dcr(kDcrMpmClass), 2u);
  sim.write_dcr(kDcrStartupAddr0, 0x80000002u);
  EXPECT_THROW(sim.run(), vxsynth::InputError);
}

TEST(Run, IoBlockHoldsTheExitCode) {
  Simulator sim;
  sim.load_program(program_path("hello"));
  sim.run();
  auto io = sim.io_block();
  ASSERT_EQ(io.size(), 0x10000u);
  uint32_t code = 0;
  std::memcpy(&code, io.data() + 0x88, 4);
  EXPECT_EQ(code, 7u);
}

TEST(Run, IoBlockIsUnwrittenMemoryUntilStoredAndKeptAcrossRuns) {
  Simulator sim;
  uint32_t word = 0;
  std::memcpy(&word, sim.io_block().data() + 0x88, 4);
  EXPECT_EQ(word, 0xbaadf00du) << "as SimX's memory before anything is written";
  // A host write there (vx_mem_reserve of the IO area) survives a run that stores nothing else.
  const uint32_t host_word = 0x12345678u;
  sim.write_io(0x100, &host_word, 4);
  sim.load_program(program_path("hello"));
  EXPECT_EQ(sim.run().exit_code, 7);
  std::memcpy(&word, sim.io_block().data() + 0x100, 4);
  EXPECT_EQ(word, host_word);
  std::memcpy(&word, sim.io_block().data() + 0x90, 4);
  EXPECT_EQ(word, 0xbaadf00du) << "hello's start-up stores no counters";
  EXPECT_THROW(sim.write_io(0x40, &host_word, 4), vxsynth::InputError) << "the console";
  EXPECT_THROW(sim.write_io(0xFFFE, &host_word, 4), vxsynth::InputError) << "past the IO block";
  EXPECT_THROW(sim.map_io(0x10001), vxsynth::InputError);
}

TEST(Run, TraceWriterAndPcProfile) {
  Simulator sim(make_config(1, 1, 1));
  std::ostringstream text;
  TraceWriter trace(text, 5);
  sim.set_instruction_consumer(&trace);
  sim.load_program(program_path("hello"));
  RunResult r = sim.run();
  EXPECT_EQ(trace.seen(), r.warp_instructions);
  const std::string t = text.str();
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 5) << t;
  EXPECT_EQ(t.rfind("c0 w0 80000000 m00000001  lui sp, 0xffff0", 0), 0u) << t;

  PcProfile profile;
  sim.set_instruction_consumer(&profile);
  sim.run();
  auto hot = profile.hottest(3);
  ASSERT_EQ(hot.size(), 3u);
  EXPECT_GE(hot[0].thread_instructions, hot[1].thread_instructions);
  EXPECT_GT(hot[0].warp_instructions, 10u) << "the console loop";
  sim.set_instruction_consumer(nullptr);
  EXPECT_EQ(sim.run().warp_instructions, r.warp_instructions) << "tracing does not change the run";
}
