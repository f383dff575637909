// Random instruction streams never crash or hang the host: every run ends normally or with a
// SimFault. Words are drawn from the encoding table (a row's match with random operand bits)
// plus fully random words, on several machine shapes, under an instruction budget.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "vxsim/decode.h"
#include "vxsim/simulator.h"

using namespace vxsynth::vxsim;

TEST(Robustness, RandomProgramsEndInAResultOrAFault) {
  auto table = insn_table();
  std::mt19937 rng(20261129);
  size_t faults = 0, finished = 0;
  const Config shapes[] = {Config{}, [] { Config c; c.cores = 2; c.warps = 2; c.threads = 32; return c; }(),
                           [] { Config c; c.warps = 1; c.threads = 1; return c; }()};
  for (int program = 0; program < 300; ++program) {
    Config cfg = shapes[program % 3];
    cfg.max_instructions = 5000;
    Simulator sim(cfg);
    std::vector<uint32_t> code(512);
    for (auto& w : code) {
      if (rng() % 8 == 0) {
        w = rng();
      } else {
        const InsnInfo& row = table[rng() % table.size()];
        w = row.match | (rng() & ~row.mask);
      }
    }
    // Start with all threads on, so lane-dependent code runs too: li a0, -1; tmc a0.
    code[0] = 0xfff00513;
    code[1] = 0x0005000b;
    sim.memory().write(0x80000000u, code.data(), code.size() * 4);
    sim.write_dcr(kDcrStartupAddr0, 0x80000000u);
    try {
      sim.run();
      ++finished;
    } catch (const SimFault& f) {
      ++faults;
      EXPECT_FALSE(f.report().message.empty());
      EXPECT_FALSE(f.report().disassembly.empty());
    }
  }
  EXPECT_EQ(faults + finished, 300u);
  EXPECT_GT(faults, 0u);
}
