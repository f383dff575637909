// A real kernel end to end: the benchmark's tiled SGEMM (GCC-built C, local-memory tiles,
// barriers across warps, work split across cores) on random inputs, against a CPU reference,
// on several machine shapes; its counters must be consistent.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "program_util.h"

using namespace vxsim_test;

namespace {

struct Shape {
  uint32_t cores, warps, threads, n;
};

class Sgemm : public ::testing::TestWithParam<Shape> {};

TEST_P(Sgemm, MatchesCpuReference) {
  const Shape s = GetParam();
  Simulator sim(make_config(s.cores, s.warps, s.threads));
  sim.load_program(program_path("sgemm_tiled"));
  const uint32_t n = s.n, bytes = n * n * 4;
  const uint32_t args_addr = 0x10000, a_addr = 0x100000, b_addr = a_addr + bytes, c_addr = b_addr + bytes;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::mt19937 rng(n * 31 + s.threads);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  sim.memory().write(a_addr, a.data(), bytes);
  sim.memory().write(b_addr, b.data(), bytes);
  sim.memory().set_access(a_addr, 2ull * bytes, Access::kRead);
  sim.memory().set_access(c_addr, bytes, Access::kWrite);
  const uint32_t args[4] = {n, a_addr, b_addr, c_addr};
  sim.memory().write(args_addr, args, sizeof args);
  sim.write_dcr(kDcrStartupArg0, args_addr);
  RunResult r = sim.run();
  sim.memory().read(c_addr, c.data(), bytes);
  // Each C element is one sequential fp32 dot product over k (the accumulator is carried across
  // the K tiles), so |fl - exact| <= gamma_n sum_k |a_k b_k| with gamma_n = n u / (1 - n u),
  // u = 2^-24 (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1; a fused
  // multiply-add only tightens it). This replaces an unexplained 1e-4 * n, about 100x looser.
  const double u = std::ldexp(1.0, -24), gamma_n = n * u / (1 - n * u);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (uint32_t k = 0; k < n; ++k) {
        ref += double(a[i * n + k]) * b[k * n + j];
        mag += std::fabs(double(a[i * n + k]) * b[k * n + j]);
      }
      ASSERT_NEAR(c[i * n + j], ref, gamma_n * mag) << "C[" << i << "][" << j << "]";
    }
  }
  const Counters& ctr = sim.counters();
  EXPECT_EQ(r.thread_instructions, ctr.thread_instructions);
  // Every input element is loaded once per tile row/column, from global memory; tiles go
  // through local memory.
  const uint64_t tiles = (n / 16) * (n / 16);
  EXPECT_GE(ctr.global_bytes_read, 2ull * tiles * (n / 16) * 16 * 16 * 4);
  EXPECT_EQ(ctr.global_bytes_written % 4, 0u);
  EXPECT_GE(ctr.global_bytes_written, uint64_t{bytes});
  EXPECT_EQ(ctr.local_bytes_written, 2ull * tiles * (n / 16) * 16 * 16 * 4);
  // Every C element reads 16 A and 16 B words of the tiles per K step: 8 n^3 bytes in all.
  EXPECT_EQ(ctr.local_bytes_read, 8ull * n * n * n);
  EXPECT_GT(ctr.warp_by_class[static_cast<size_t>(OpClass::kFpu)], 0u);
  // Two barriers per K step of every tile; at each, all warps of the core but the last wait.
  EXPECT_EQ(ctr.barrier_waits, 2ull * tiles * (n / 16) * (s.warps - 1));
  EXPECT_NEAR(ctr.active_lane_fraction(s.threads), 1.0, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Sgemm,
                         ::testing::Values(Shape{1, 4, 4, 32}, Shape{1, 8, 32, 48}, Shape{3, 2, 8, 48},
                                           Shape{4, 4, 16, 64}, Shape{1, 1, 1, 16}),
                         [](const ::testing::TestParamInfo<Shape>& p) {
                           return std::to_string(p.param.cores) + "x" + std::to_string(p.param.warps) + "x" +
                                  std::to_string(p.param.threads) + "_n" + std::to_string(p.param.n);
                         });

}  // namespace
