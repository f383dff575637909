// Single-axis neighbours of a design: each is one step of candidate_steps() (move.h) that
// changes the design and keeps every validity rule (where a fixed property would otherwise
// break, the coupled axis follows, named in move.coupled).
#pragma once

#include <vector>

#include "design/design_point.h"
#include "design/move.h"

namespace vxsynth::design {

struct Neighbour {
  Move move;
  DesignPoint design;
};

std::vector<Neighbour> neighbours(const DesignPoint& d);

}  // namespace vxsynth::design
