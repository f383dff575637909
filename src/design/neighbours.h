// Single-axis neighbours of a design: each changes one axis by one step in its domain (and,
// where a fixed property would otherwise break, the coupled axis follows, named in `follows`).
// Only valid designs are returned.
#pragma once

#include <string>
#include <vector>

#include "design/design_point.h"

namespace vxsynth::design {

struct Neighbour {
  std::string axis;       // one of axis_names()
  std::string direction;  // e.g. "up", "down", "a:reversed", "to:registers"
  std::string follows;    // coupled axis adjusted to keep the block size ("" when none)
  DesignPoint design;
};

std::vector<Neighbour> neighbours(const DesignPoint& d);

}  // namespace vxsynth::design
