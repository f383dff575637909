#include "design/neighbours.h"

namespace vxsynth::design {

std::vector<Neighbour> neighbours(const DesignPoint& base) {
  std::vector<Neighbour> out;
  for (const Move& m : candidate_steps(base)) {
    if (auto d = try_apply(base, m)) out.push_back({m, std::move(*d)});
  }
  return out;
}

}  // namespace vxsynth::design
