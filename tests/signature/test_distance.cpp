// Distance properties (ARCHITECTURE.md "The signature and its distance").
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/error.h"
#include "signature/distance.h"

namespace vxsynth::signature {
namespace {

MetricValues all(double v) {
  MetricValues m;
  m.fill(v);
  return m;
}

TEST(MetricTable, StableIdsGroupsAndKinds) {
  const char* ids[] = {"l1_hit_rate",          "l2_hit_rate",     "coalescing",    "compute_throughput",
                       "tensor_utilization",   "atomics_per_instruction", "arithmetic_intensity",
                       "dram_bandwidth",       "active_lane_fraction",    "occupancy"};
  ASSERT_EQ(metric_table().size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(metric_table()[i].key, ids[i]);
  EXPECT_EQ(metric_info(MetricId::kCoalescing).group, PressureGroup::kTrafficServed);
  EXPECT_EQ(metric_info(MetricId::kAtomicsPerInstruction).distance, DistanceKind::kAbsolute);
  EXPECT_EQ(metric_info(MetricId::kArithmeticIntensity).distance, DistanceKind::kLogRatio);
  EXPECT_EQ(metric_info(MetricId::kDramBandwidth).unit, Unit::kBytePerSecond);
  EXPECT_EQ(metric_info(MetricId::kActiveLaneFraction).distance, DistanceKind::kAbsolute);
  EXPECT_EQ(metric_info(MetricId::kOccupancy).distance, DistanceKind::kPercent);
  EXPECT_EQ(metric_from_key("occupancy"), MetricId::kOccupancy);
  EXPECT_FALSE(metric_from_key("Occupancy"));
}

TEST(MetricDistance, PercentIsAbsoluteDifferenceOverHundred) {
  const DistanceConfig cfg;
  EXPECT_DOUBLE_EQ(metric_distance(metric_info(MetricId::kL2HitRate), 58.39, 82.41, cfg), 0.2402);
  EXPECT_DOUBLE_EQ(metric_distance(metric_info(MetricId::kL2HitRate), 82.41, 58.39, cfg), 0.2402);
}

TEST(MetricDistance, FractionAndAtomicsAreAbsoluteDifference) {
  const DistanceConfig cfg;
  EXPECT_NEAR(metric_distance(metric_info(MetricId::kActiveLaneFraction), 0.75, 0.5, cfg), 0.25, 1e-15);
  EXPECT_NEAR(metric_distance(metric_info(MetricId::kAtomicsPerInstruction), 0.0162, 0.0, cfg), 0.0162, 1e-15);
}

TEST(MetricDistance, RateFactorTwoUpAndDownGiveEqualDistance) {
  const DistanceConfig cfg;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mag(-3, 13);
  for (int i = 0; i < 200; ++i) {
    const double r = std::pow(10.0, mag(rng));
    for (MetricId id : {MetricId::kArithmeticIntensity, MetricId::kDramBandwidth}) {
      const auto& m = metric_info(id);
      const double up = metric_distance(m, 2 * r, r, cfg), down = metric_distance(m, r / 2, r, cfg);
      EXPECT_NEAR(up, 0.2, 1e-9) << r;  // |log2(2)| / 5
      EXPECT_NEAR(down, 0.2, 1e-9) << r;
    }
  }
}

TEST(MetricDistance, RateUsesEpsilonSoZerosAreFinite) {
  const DistanceConfig cfg;
  const auto& ai = metric_info(MetricId::kArithmeticIntensity);
  EXPECT_DOUBLE_EQ(metric_distance(ai, 0, 0, cfg), 0.0);
  EXPECT_DOUBLE_EQ(metric_distance(ai, 1e-9, 0, cfg), 1.0);  // huge ratio, clamped
}

TEST(MetricDistance, ClampedToUnitInterval) {
  const DistanceConfig cfg;
  EXPECT_DOUBLE_EQ(metric_distance(metric_info(MetricId::kAtomicsPerInstruction), 3.0, 0.0, cfg), 1.0);
  EXPECT_DOUBLE_EQ(metric_distance(metric_info(MetricId::kDramBandwidth), 4.2e12, 1e6, cfg), 1.0);  // 2^22 apart
  EXPECT_DOUBLE_EQ(metric_distance(metric_info(MetricId::kOccupancy), 250.0, 0.0, cfg), 1.0);
  // A negative rate (bad data) scores the worst, never NaN.
  EXPECT_DOUBLE_EQ(metric_distance(metric_info(MetricId::kDramBandwidth), -5, 1, cfg), 1.0);
}

TEST(Distance, DIsMeanOverMetricsMeasuredOnBothSides) {
  const DistanceConfig cfg;
  MetricValues cand = all(50), ref = all(50);
  cand[index_of(MetricId::kL1HitRate)] = 70;  // 0.2
  auto rep = compute_distance(cand, ref, cfg);
  EXPECT_EQ(rep.scored, 10);
  EXPECT_NEAR(*rep.d, 0.2 / 10, 1e-12);
  // Unmeasured on one side: left out of the mean, not scored as 1.
  cand[index_of(MetricId::kDramBandwidth)] = std::nullopt;
  ref[index_of(MetricId::kOccupancy)] = std::nullopt;
  rep = compute_distance(cand, ref, cfg);
  EXPECT_EQ(rep.scored, 8);
  EXPECT_NEAR(*rep.d, 0.2 / 8, 1e-12);
  EXPECT_FALSE(rep.per_metric[index_of(MetricId::kDramBandwidth)]);
  EXPECT_EQ(rep.group_count[static_cast<int>(PressureGroup::kWorkPerByte)], 1);
  EXPECT_EQ(rep.group_count[static_cast<int>(PressureGroup::kMachineBusy)], 1);
  EXPECT_NEAR(rep.group_sum[static_cast<int>(PressureGroup::kTrafficServed)], 0.2, 1e-12);
}

TEST(Distance, CoalescingZeroStaysInD) {
  // A reference with no global loads has coalescing 0: a candidate with 100 % is 1 away.
  MetricValues cand = all(10), ref = all(10);
  cand[index_of(MetricId::kCoalescing)] = 100;
  ref[index_of(MetricId::kCoalescing)] = 0;
  const auto rep = compute_distance(cand, ref, DistanceConfig{});
  EXPECT_EQ(rep.scored, 10);
  EXPECT_NEAR(*rep.d, 0.1, 1e-12);
}

TEST(Distance, NothingInCommonGivesNoD) {
  MetricValues cand{}, ref = all(1);
  EXPECT_FALSE(compute_distance(cand, ref, DistanceConfig{}).d);
}

TEST(Distance, RetentionNeedsMoreThanTheMargin) {
  const DistanceConfig cfg;
  EXPECT_TRUE(retains(0.30, 0.2949, cfg));
  EXPECT_FALSE(retains(0.30, 0.2951, cfg));
  EXPECT_FALSE(retains(0.25, 0.25, cfg));
  EXPECT_FALSE(retains(0.30, 0.31, cfg));
  // Exactly the margin is not more than the margin (the boundary: `>`, not `>=`); the differences
  // below are exact in binary floating point.
  EXPECT_FALSE(retains(cfg.retention_margin, 0.0, cfg));
  DistanceConfig quarter;
  quarter.retention_margin = 0.25;
  EXPECT_FALSE(retains(0.75, 0.5, quarter));
  EXPECT_TRUE(retains(0.75, std::nextafter(0.5, 0.0), quarter));
}

TEST(DistanceConfig, ReadsJsonAndRejectsUnknownKeys) {
  Json j{{"schema", "vxsynth.distance-config/1"}, {"rate_scale", 4.0}, {"retention_margin", 0.01}};
  const auto cfg = DistanceConfig::from_json(j, "cfg.json");
  EXPECT_EQ(cfg.rate_scale, 4.0);
  EXPECT_EQ(cfg.retention_margin, 0.01);
  EXPECT_EQ(cfg.epsilon, 1e-12);
  EXPECT_NEAR(metric_distance(metric_info(MetricId::kDramBandwidth), 2, 1, cfg), 0.25, 1e-12);
  j["ratescale"] = 3;
  EXPECT_THROW(DistanceConfig::from_json(j, "cfg.json"), InputError);
  Json bad{{"schema", "vxsynth.distance-config/2"}};
  try {
    DistanceConfig::from_json(bad, "cfg.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos) << e.what();
  }
  Json neg{{"schema", "vxsynth.distance-config/1"}, {"rate_scale", -1}};
  EXPECT_THROW(DistanceConfig::from_json(neg, "cfg.json"), InputError);
  // Round trip.
  const auto back = DistanceConfig::from_json(cfg.to_json(), "x");
  EXPECT_EQ(back.rate_scale, 4.0);
}

}  // namespace
}  // namespace vxsynth::signature
