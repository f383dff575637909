// Axis values that do nothing at a design's shape: a value the search must not keep for the
// counters it moves, since no work of the vendor kernel stands behind it (docs/design-space.md,
// "No-op values"). The strategy proposes no design that gains one, and a lock refuses one.
#pragma once

#include <string>
#include <vector>

#include "design/design_point.h"

namespace vxsynth::design {

struct NoOpValue {
  Axis axis;
  std::string why;  // what the value would do and why it does nothing here
};

// Every axis value of `d` that is a no-op at its shape:
//   boundary uniform_branch when no block is interior (the unpredicated path never runs);
//   entry_reads above 0 (retired: its reads compute nothing);
//   a cluster of more than one block without multicast (the blocks share nothing).
std::vector<NoOpValue> no_op_values(const DesignPoint& d);

// "axis: why; axis: why" (empty when there is none).
std::string describe(const std::vector<NoOpValue>& values);

}  // namespace vxsynth::design
