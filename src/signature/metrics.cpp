#include "signature/metrics.h"

namespace vxsynth::signature {

namespace {
using G = PressureGroup;
using U = Unit;
using K = DistanceKind;
using W = OperatorWeight;
constexpr std::array<MetricInfo, kMetricCount> kTable{{
    {MetricId::kL1HitRate, "l1_hit_rate", "L1 hit rate", G::kTrafficServed, U::kPercent, K::kPercent, W::kL1Sectors},
    {MetricId::kL2HitRate, "l2_hit_rate", "L2 hit rate", G::kTrafficServed, U::kPercent, K::kPercent, W::kL2Sectors},
    {MetricId::kCoalescing, "coalescing", "global-load coalescing", G::kTrafficServed, U::kPercent, K::kPercent,
     W::kGlobalLoadSectors},
    {MetricId::kComputeThroughput, "compute_throughput", "achieved peak compute", G::kEngineCommit, U::kPercent,
     K::kPercent, W::kDuration},
    {MetricId::kTensorUtilization, "tensor_utilization", "tensor-core utilization", G::kEngineCommit, U::kPercent,
     K::kPercent, W::kDuration},
    {MetricId::kAtomicsPerInstruction, "atomics_per_instruction", "atomics per instruction", G::kEngineCommit,
     U::kRatio, K::kAbsolute, W::kInstructions},
    {MetricId::kArithmeticIntensity, "arithmetic_intensity", "arithmetic intensity", G::kWorkPerByte,
     U::kFlopPerByte, K::kLogRatio, W::kDramBytes},
    {MetricId::kDramBandwidth, "dram_bandwidth", "DRAM bandwidth", G::kWorkPerByte, U::kBytePerSecond,
     K::kLogRatio, W::kDuration},
    {MetricId::kActiveLaneFraction, "active_lane_fraction", "active-lane fraction", G::kMachineBusy, U::kFraction,
     K::kAbsolute, W::kInstructions},
    {MetricId::kOccupancy, "occupancy", "achieved occupancy", G::kMachineBusy, U::kPercent, K::kPercent,
     W::kDuration},
}};

// The table is indexed by MetricId; keep the two in step.
constexpr bool table_in_id_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<std::size_t>(kTable[i].id) != i) return false;
  return true;
}
static_assert(table_in_id_order(), "metric table rows must follow MetricId order");
}  // namespace

const std::array<MetricInfo, kMetricCount>& metric_table() { return kTable; }

const MetricInfo& metric_info(MetricId id) { return kTable[index_of(id)]; }

std::optional<MetricId> metric_from_key(std::string_view key) {
  for (const auto& m : kTable)
    if (m.key == key) return m.id;
  return std::nullopt;
}

std::string_view group_key(PressureGroup g) {
  switch (g) {
    case G::kTrafficServed: return "traffic_served";
    case G::kEngineCommit: return "engine_commit";
    case G::kWorkPerByte: return "work_per_byte";
    case G::kMachineBusy: return "machine_busy";
  }
  return "?";
}

std::string_view group_title(PressureGroup g) {
  switch (g) {
    case G::kTrafficServed: return "where traffic is served";
    case G::kEngineCommit: return "engine and commit";
    case G::kWorkPerByte: return "work per byte";
    case G::kMachineBusy: return "machine busy";
  }
  return "?";
}

std::string_view unit_key(Unit u) {
  switch (u) {
    case U::kPercent: return "percent";
    case U::kFraction: return "fraction";
    case U::kFlopPerByte: return "flop_per_byte";
    case U::kBytePerSecond: return "byte_per_second";
    case U::kRatio: return "ratio";
  }
  return "?";
}

std::string_view distance_kind_key(DistanceKind k) {
  switch (k) {
    case K::kPercent: return "percent";
    case K::kAbsolute: return "absolute";
    case K::kLogRatio: return "log_ratio";
  }
  return "?";
}

std::string_view weight_key(OperatorWeight w) {
  switch (w) {
    case W::kL1Sectors: return "l1_sectors";
    case W::kL2Sectors: return "l2_sectors";
    case W::kGlobalLoadSectors: return "global_load_sectors";
    case W::kDuration: return "duration";
    case W::kInstructions: return "instructions";
    case W::kDramBytes: return "dram_bytes";
  }
  return "?";
}

}  // namespace vxsynth::signature
