// The run's vx_spawn_threads regions over all cores, with the timing model's cycles when it
// ran: what `sim run --perf/--json` and the host API's run document (VXSIM_RUN_JSON) report per
// region, built in one place. Beside the timing model: the fuzz build of the simulator core
// (tests/vxsim/fuzz) leaves timing/ out.
#pragma once

#include <cstdint>
#include <vector>

#include "common/json_fwd.h"
#include "vxsim/counters.h"

namespace vxsynth::vxsim {

class Simulator;
namespace timing {
class Vortex2Model;
}

// One vx_spawn_threads call over all cores (the k-th region of every core that ran one), with
// the model's cycles when timing is on: from the earliest spawn to the latest join.
struct RegionRow {
  uint32_t index = 0;
  uint32_t cores = 0;
  uint32_t warps = 0;  // most warps a core's spawning WSPAWN asked for
  bool closed = true;
  Counters counters;
  bool timed = false;
  uint64_t begin = 0, end = 0, issued_instrs = 0;
  uint64_t cycles() const { return end - begin; }
};

// `timing` may be null (a functional run).
std::vector<RegionRow> region_rows(const Simulator& sim, const timing::Vortex2Model* timing);
// Everything outside the regions: start-up (crt0, .bss clearing), main's serial code.
Counters outside_regions(const Simulator& sim, const std::vector<RegionRow>& rows);
// The "regions" array of a vxsynth.vxsim-run/1 document.
Json regions_json(const std::vector<RegionRow>& rows, uint32_t threads_per_warp);

}  // namespace vxsynth::vxsim
