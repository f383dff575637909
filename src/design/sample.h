// Samples of the design space around a seed, for tests, benchmarks and searches.
#pragma once

#include <cstdint>
#include <vector>

#include "design/design_point.h"

namespace vxsynth::design {

// The seed and all its single-axis neighbours: every value of every enum axis that the seed's
// fixed properties allow occurs at least once (tests check this), plus steps of the size axes.
std::vector<DesignPoint> axis_coverage(const DesignPoint& seed);

// `count` designs, each a seeded random walk of `steps` neighbour moves from the seed
// (deterministic for a given rng_seed); duplicates are skipped.
std::vector<DesignPoint> random_designs(const DesignPoint& seed, int count, std::uint64_t rng_seed, int steps = 4);

}  // namespace vxsynth::design
