#include "vxsim/timing/regions.h"

#include <algorithm>

#include "common/json_io.h"
#include "vxsim/simulator.h"
#include "vxsim/timing/vortex2.h"

namespace vxsynth::vxsim {

std::vector<RegionRow> region_rows(const Simulator& sim, const timing::Vortex2Model* timing) {
  std::vector<RegionRow> rows;
  for (const SpawnRegion& r : sim.spawn_regions()) {
    if (rows.size() <= r.index) rows.resize(r.index + 1);
    RegionRow& row = rows[r.index];
    row.index = r.index;
    ++row.cores;
    row.warps = std::max(row.warps, r.warps);
    row.closed &= r.closed;
    row.counters += r.counters;
  }
  if (timing) {
    for (const auto& t : timing->summary().regions) {
      if (t.index >= rows.size()) continue;
      RegionRow& row = rows[t.index];
      row.begin = row.timed ? std::min(row.begin, t.begin) : t.begin;
      row.end = std::max(row.end, t.end);
      row.issued_instrs += t.instrs;
      row.timed = true;
    }
  }
  return rows;
}

Counters outside_regions(const Simulator& sim, const std::vector<RegionRow>& rows) {
  Counters c = sim.counters();
  for (const auto& r : rows) c -= r.counters;
  return c;
}

Json regions_json(const std::vector<RegionRow>& rows, uint32_t threads) {
  Json regions = Json::array();
  for (const auto& r : rows) {
    Json j = {{"index", r.index},
              {"cores", r.cores},
              {"warps", r.warps},
              {"closed", r.closed},
              {"instrs", r.counters.simx_thread_instructions(threads)},
              {"counters", counters_json_one(r.counters, threads)}};
    if (r.timed) {
      j["cycles"] = r.cycles();
      j["ipc"] = r.cycles() == 0 ? 0.0 : r.counters.simx_thread_instructions(threads) / static_cast<double>(r.cycles());
      j["timing"] = {{"begin", r.begin}, {"end", r.end}, {"issued_instrs", r.issued_instrs}};
    } else {
      j["cycles"] = nullptr;
      j["ipc"] = nullptr;
    }
    regions.push_back(j);
  }
  return regions;
}

}  // namespace vxsynth::vxsim
