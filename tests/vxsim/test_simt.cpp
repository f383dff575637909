// SIMT semantics (vortex-isa.md §1.3) through programs/simt.S: CSRs, nested SPLIT/JOIN,
// PRED loop exits, barriers across warps and cores, VOTE, SHFL, WSPAWN waiting, AMOs.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "program_util.h"

using namespace vxsim_test;

namespace {

struct SimtRun {
  explicit SimtRun(uint32_t test_case, Config cfg = make_config(2, 4, 8)) : sim(cfg), config(cfg) {
    sim.load_program(program_path("simt"));
    sim.memory().fill(kShared, 0, 0x4000);
    sim.write_dcr(kDcrStartupArg0, test_case);
    result = sim.run();
  }
  uint32_t at(uint32_t core, uint32_t warp, uint32_t lane, uint32_t word) const {
    const uint32_t hart = (core * config.warps + warp) * config.threads + lane;
    return read_word(sim, kResults + 64 * hart + 4 * word);
  }
  Simulator sim;
  Config config;
  RunResult result;
};

}  // namespace

class SimtCsr : public ::testing::TestWithParam<Config> {};

TEST_P(SimtCsr, EveryHartSeesItsIds) {
  const Config cfg = GetParam();
  SimtRun run(0, cfg);
  const uint32_t full = cfg.threads == 32 ? 0xffffffffu : (1u << cfg.threads) - 1;
  for (uint32_t c = 0; c < cfg.cores; ++c) {
    for (uint32_t w = 0; w < cfg.warps; ++w) {
      for (uint32_t t = 0; t < cfg.threads; ++t) {
        SCOPED_TRACE("core " + std::to_string(c) + " warp " + std::to_string(w) + " lane " + std::to_string(t));
        ASSERT_EQ(run.at(c, w, t, 0), t);
        ASSERT_EQ(run.at(c, w, t, 1), w);
        ASSERT_EQ(run.at(c, w, t, 2), c);
        ASSERT_EQ(run.at(c, w, t, 3), cfg.threads);
        ASSERT_EQ(run.at(c, w, t, 4), cfg.warps);
        ASSERT_EQ(run.at(c, w, t, 5), cfg.cores);
        ASSERT_EQ(run.at(c, w, t, 6), (c * cfg.warps + w) * cfg.threads + t);
        ASSERT_EQ(run.at(c, w, t, 7), full);
        ASSERT_EQ(run.at(c, w, t, 8), 0xFFFF0000u);
        ASSERT_EQ(run.at(c, w, t, 9), 0u);  // MSCRATCH = STARTUP_ARG = case 0
        // Read before TMC: only lane 0 runs it (a spawned warp, and warp 0 at reset, start with
        // thread 0 only); the other lanes keep their reset value 0.
        ASSERT_EQ(run.at(c, w, t, 10), t == 0 ? 1u : 0u);
      }
    }
  }
  EXPECT_EQ(run.sim.counters().warps_spawned, uint64_t{cfg.cores} * (cfg.warps - 1));
}

INSTANTIATE_TEST_SUITE_P(Shapes, SimtCsr,
                         ::testing::Values(make_config(1, 1, 1), make_config(1, 4, 4), make_config(3, 2, 16),
                                           make_config(2, 8, 32), make_config(64, 32, 32)),
                         [](const ::testing::TestParamInfo<Config>& p) {
                           return std::to_string(p.param.cores) + "x" + std::to_string(p.param.warps) + "x" +
                                  std::to_string(p.param.threads);
                         });

TEST(Simt, NestedSplitJoin) {
  SimtRun run(1);
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t w = 0; w < 4; ++w) {
      for (uint32_t t = 0; t < 8; ++t) {
        SCOPED_TRACE("warp " + std::to_string(w) + " lane " + std::to_string(t));
        const bool odd = t & 1, bit1 = t & 2;
        EXPECT_EQ(run.at(c, w, t, 0), odd ? (bit1 ? 110u : 120u) : 200u);
        EXPECT_EQ(run.at(c, w, t, 4 / 4), 0u) << "outer SPLIT returns depth 0";
        if (odd) {
          EXPECT_EQ(run.at(c, w, t, 2), 1u) << "inner SPLIT returns depth 1";
          EXPECT_EQ(run.at(c, w, t, 3), bit1 ? 0x88u : 0x22u) << "inner pass runs with its own lanes only";
        }
        EXPECT_EQ(run.at(c, w, t, 4), 0xffu) << "JOIN restores the full mask";
      }
    }
  }
  // Each warp: the outer split and the inner one diverge.
  EXPECT_EQ(run.sim.counters().divergent_splits, 2u * 4 * 2);
  EXPECT_EQ(run.sim.counters().splits, 2u * 4 * 2);
  EXPECT_LT(run.sim.counters().active_lane_fraction(8), 1.0);
}

TEST(Simt, SplitNAndUniformSplit) {
  SimtRun run(9);
  for (uint32_t w = 0; w < 4; ++w) {
    for (uint32_t t = 0; t < 8; ++t) {
      SCOPED_TRACE("warp " + std::to_string(w) + " lane " + std::to_string(t));
      if (t != 0) {
        EXPECT_EQ(run.at(0, w, t, 0), 0xfeu) << "negated predicate: lanes 1..7 run first (larger set)";
      }
      EXPECT_EQ(run.at(0, w, t, 1), t == 0 ? 5u : 7u);
      EXPECT_EQ(run.at(0, w, t, 2), 0u);
      EXPECT_EQ(run.at(0, w, t, 3), 0xffu);
    }
  }
}

TEST(Simt, PredLoopExit) {
  SimtRun run(2);
  for (uint32_t w = 0; w < 4; ++w) {
    for (uint32_t t = 0; t < 8; ++t) {
      EXPECT_EQ(run.at(1, w, t, 0), t + 1) << "lane " << t << " iterates lane+1 times";
      EXPECT_EQ(run.at(1, w, t, 1), 0xffu) << "PRED restores the saved mask when no lane remains";
      EXPECT_EQ(run.at(1, w, t, 2), t + 1) << "PRED.N loop, lane " << t;
    }
  }
}

TEST(Simt, BarrierAcrossWarps) {
  SimtRun run(3);
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t w = 0; w < 4; ++w) {
      for (uint32_t t = 0; t < 8; ++t) {
        EXPECT_EQ(run.at(c, w, t, 0), 1000 * c + 100 * ((w + 1) % 4) + t)
            << "core " << c << " warp " << w << " lane " << t << " reads the next warp's slot after BAR";
      }
    }
  }
  // 3 of 4 warps per core wait; the last arrival releases them. Local memory is per core.
  EXPECT_EQ(run.sim.counters().barrier_waits, 2u * 3);
  EXPECT_GT(run.sim.counters().local_bytes_written, 0u);
}

TEST(Simt, Vote) {
  SimtRun run(4);
  for (uint32_t t = 0; t < 8; ++t) {
    EXPECT_EQ(run.at(0, 2, t, 0), 0u) << "vote.all (lane < 3)";
    EXPECT_EQ(run.at(0, 2, t, 1), 1u) << "vote.any";
    EXPECT_EQ(run.at(0, 2, t, 2), 0u) << "vote.uni";
    EXPECT_EQ(run.at(0, 2, t, 3), 0x7u) << "vote.ballot";
    EXPECT_EQ(run.at(0, 2, t, 4), 1u) << "vote.all (true)";
    EXPECT_EQ(run.at(0, 2, t, 5), 1u) << "vote.uni (true)";
  }
}

TEST(Simt, Shuffle) {
  SimtRun run(5);
  auto v = [](uint32_t lane) { return 10 * lane + 1; };
  for (uint32_t t = 0; t < 8; ++t) {
    SCOPED_TRACE("lane " + std::to_string(t));
    EXPECT_EQ(run.at(0, 1, t, 0), t == 0 ? v(0) : v(t - 1)) << "shfl.up 1";
    EXPECT_EQ(run.at(0, 1, t, 1), t == 7 ? v(7) : v(t + 1)) << "shfl.down 1";
    EXPECT_EQ(run.at(0, 1, t, 2), v(t ^ 3)) << "shfl.bfly 3";
    EXPECT_EQ(run.at(0, 1, t, 3), v(2)) << "shfl.idx 2";
    EXPECT_EQ(run.at(0, 1, t, 4), (t % 4 == 0) ? v(t) : v(t - 1)) << "shfl.up 1 in segments of 4";
    EXPECT_EQ(run.at(0, 1, t, 5), t < 3 ? v(t + 1) : v(t)) << "shfl.down 1 bounded by c = 3";
  }
}

TEST(Simt, WspawnWaitsUntilCallerIsAlone) {
  SimtRun run(6);
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t w = 1; w < 4; ++w) {
      EXPECT_EQ(run.at(c, w, 0, 0), 1u) << "second generation starts with thread 0 only";
      EXPECT_EQ(run.at(c, w, 0, 1), 3u) << "every first-generation warp had finished before the spawn";
    }
  }
}

TEST(Simt, AtomicsAcrossLanesAndWarps) {
  SimtRun run(7);
  for (uint32_t c = 0; c < 2; ++c) {
    std::vector<uint32_t> tickets;
    for (uint32_t w = 0; w < 4; ++w) {
      for (uint32_t t = 0; t < 8; ++t) tickets.push_back(run.at(c, w, t, 0));
    }
    std::sort(tickets.begin(), tickets.end());
    for (uint32_t i = 0; i < tickets.size(); ++i) EXPECT_EQ(tickets[i], i) << "core " << c;
    EXPECT_EQ(read_word(run.sim, kShared + 0x1000 + 128 * c), 32u);
  }
}

TEST(Simt, GlobalBarrierAcrossCores) {
  for (uint32_t cores : {2u, 3u}) {
    SimtRun run(8, make_config(cores, 4, 4));
    for (uint32_t c = 0; c < cores; ++c) {
      for (uint32_t w = 0; w < 4; ++w) {
        EXPECT_EQ(run.at(c, w, 3, 0), cores * (cores + 1) / 2) << cores << " cores: core " << c << " warp " << w;
      }
    }
  }
}

TEST(Simt, LrScAcrossLanes) {
  SimtRun run(10);
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t w = 0; w < 4; ++w) {
      for (uint32_t t = 0; t < 8; ++t) {
        EXPECT_EQ(run.at(c, w, t, 0), t == 0 ? 0u : 1u) << "core " << c << " warp " << w << " lane " << t;
      }
    }
    EXPECT_EQ(read_word(run.sim, kShared + 0x3000 + 128 * c), 4u) << "one successful SC per warp, no lost update";
  }
}

TEST(Simt, PredLoopInsideSplit) {
  for (uint32_t threads : {8u, 32u}) {
    SimtRun run(11, make_config(1, 2, threads));
    uint32_t then_mask = 0;
    for (uint32_t t = 0; t < threads; t += 3) then_mask |= 1u << t;
    const uint32_t full = threads == 32 ? 0xffffffffu : (1u << threads) - 1;
    for (uint32_t w = 0; w < 2; ++w) {
      for (uint32_t t = 0; t < threads; ++t) {
        SCOPED_TRACE("threads " + std::to_string(threads) + " warp " + std::to_string(w) + " lane " + std::to_string(t));
        EXPECT_EQ(run.at(0, w, t, 0), t % 3 == 0 ? t * (t + 1) / 2 : 2 * t);
        EXPECT_EQ(run.at(0, w, t, 1), full);
        if (t % 3 == 0) {
          EXPECT_EQ(run.at(0, w, t, 2), then_mask);
        }
      }
    }
  }
}
