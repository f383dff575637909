// Configuration limits: each bad field is an InputError that names it.
#include <gtest/gtest.h>

#include "common/error.h"
#include "vxsim/simulator.h"

using namespace vxsynth::vxsim;

namespace {
void expect_bad(Config c, const std::string& field) {
  try {
    Simulator sim(c);
    ADD_FAILURE() << "accepted a bad " << field;
  } catch (const vxsynth::InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}
}  // namespace

TEST(Config, DefaultsAreVortexs) {
  Config c;
  EXPECT_EQ(c.cores, 1u);
  EXPECT_EQ(c.warps, 4u);
  EXPECT_EQ(c.threads, 4u);
  EXPECT_EQ(c.local_mem_bytes, 16384u);
  EXPECT_EQ(c.num_barriers(), 2u);
  EXPECT_NO_THROW(c.validate());
}

TEST(Config, LimitsAreChecked) {
  Config c;
  c.cores = 0;
  expect_bad(c, "cores");
  c.cores = 65;
  expect_bad(c, "cores");
  c = Config{};
  c.warps = 3;
  expect_bad(c, "warps");
  c.warps = 64;
  expect_bad(c, "warps");
  c = Config{};
  c.threads = 0;
  expect_bad(c, "threads");
  c.threads = 12;
  expect_bad(c, "threads");
  c = Config{};
  c.local_mem_bytes = 100000;
  expect_bad(c, "local_mem_bytes");
  c = Config{};
  c.cores = 64;
  c.warps = 32;
  c.threads = 32;
  EXPECT_NO_THROW(Simulator{c});
  c.cores = 1;
  c.warps = 1;
  c.threads = 1;
  EXPECT_EQ(c.num_barriers(), 1u);
  EXPECT_NO_THROW(Simulator{c});
}
