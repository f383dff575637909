#include "design/sample.h"

#include <set>
#include <string>

#include "design/neighbours.h"
#include "ops/inputs.h"

namespace vxsynth::design {

std::vector<DesignPoint> axis_coverage(const DesignPoint& seed) {
  std::vector<DesignPoint> out = {seed};
  std::set<std::string> names = {procedural_name(seed)};
  for (auto& n : neighbours(seed)) {
    if (names.insert(procedural_name(n.design)).second) out.push_back(std::move(n.design));
  }
  return out;
}

std::vector<DesignPoint> random_designs(const DesignPoint& seed, int count, std::uint64_t rng_seed, int steps) {
  ops::SplitMix64 rng(rng_seed);
  std::vector<DesignPoint> out;
  std::set<std::string> names = {procedural_name(seed)};
  for (int attempt = 0; attempt < count * 8 && static_cast<int>(out.size()) < count; ++attempt) {
    DesignPoint d = seed;
    for (int s = 0; s < steps; ++s) {
      const auto list = neighbours(d);
      if (list.empty()) break;
      d = list[rng.next() % list.size()].design;
    }
    if (names.insert(procedural_name(d)).second) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace vxsynth::design
