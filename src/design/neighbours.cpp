#include "design/neighbours.h"

#include <algorithm>

#include "design/validity.h"

namespace vxsynth::design {
namespace {

struct Collector {
  const DesignPoint& base;
  std::vector<Neighbour>& out;
  void add(const std::string& axis, const std::string& direction, const DesignPoint& d, const std::string& follows = "") {
    if (can_implement(d)) return;
    if (same_axes(d, base)) return;
    out.push_back({axis, direction, follows, d});
  }
};

template <typename E, typename Set>
void enum_steps(Collector& c, const std::string& axis, E current, Set set) {
  for (E v : all_values<E>()) {
    if (v == current) continue;
    DesignPoint d = c.base;
    set(d, v);
    c.add(axis, "to:" + to_string(v), d);
  }
}

}  // namespace

std::vector<Neighbour> neighbours(const DesignPoint& base) {
  std::vector<Neighbour> out;
  Collector c{base, out};
  const bool tensor = base.fragment != Fragment::kNone;

  enum_steps(c, "shared_staging", base.staging, [](DesignPoint& d, Staging v) {
    d.staging = v;
    // An operand that stops being staged keeps the default lane mapping; prefetch needs staging.
    if (!staged_a(v)) d.lane_a = LaneMap::kForward;
    if (!staged_b(v)) d.lane_b = LaneMap::kForward;
    if (v == Staging::kNone) d.prefetch = Prefetch::kNone;
  });
  enum_steps(c, "read_once", base.read_once, [](DesignPoint& d, ReadOnce v) { d.read_once = v; });
  {
    DesignPoint d = base;
    d.lane_a = base.lane_a == LaneMap::kForward ? LaneMap::kReversed : LaneMap::kForward;
    c.add("lane_mapping", "a:" + to_string(d.lane_a), d);
    d = base;
    d.lane_b = base.lane_b == LaneMap::kForward ? LaneMap::kReversed : LaneMap::kForward;
    c.add("lane_mapping", "b:" + to_string(d.lane_b), d);
  }
  // Tile m/n: doubling or halving keeps the block when the register tile follows (a tensor-core
  // tile is warps x fragments, so there these steps are the register_tile steps below).
  for (const int dim : {0, 1}) {
    if (tensor) break;
    for (const bool up : {true, false}) {
      DesignPoint d = base;
      int& t = dim == 0 ? d.tile.m : d.tile.n;
      int& r = dim == 0 ? d.register_tile.m : d.register_tile.n;
      if (up) {
        t *= 2;
        r *= 2;
      } else {
        if (t % 2 || r % 2) continue;
        t /= 2;
        r /= 2;
      }
      c.add("tile", std::string(dim == 0 ? "m:" : "n:") + (up ? "up" : "down"), d, "register_tile");
    }
  }
  for (const bool up : {true, false}) {
    DesignPoint d = base;
    if (up) {
      d.tile.k *= 2;
    } else {
      if (d.tile.k % 2) continue;
      d.tile.k /= 2;
    }
    c.add("tile", std::string("k:") + (up ? "up" : "down"), d);
  }
  // Register tile: more outputs per thread in m, fewer in n, at the same tile (block kept).
  if (!tensor) {
    for (const bool to_m : {true, false}) {
      DesignPoint d = base;
      int& grow = to_m ? d.register_tile.m : d.register_tile.n;
      int& shrink = to_m ? d.register_tile.n : d.register_tile.m;
      if (shrink % 2) continue;
      grow *= 2;
      shrink /= 2;
      // The thread grid changes shape; the warp arrangement must still split it.
      c.add("register_tile", to_m ? "m:up,n:down" : "n:up,m:down", d);
    }
  } else {
    for (const int dim : {0, 1}) {
      for (const bool up : {true, false}) {
        DesignPoint d = base;
        int& r = dim == 0 ? d.register_tile.m : d.register_tile.n;
        int& t = dim == 0 ? d.tile.m : d.tile.n;
        if (up) {
          r *= 2;
          t *= 2;
        } else {
          if (r % 2) continue;
          r /= 2;
          t /= 2;
        }
        c.add("register_tile", std::string(dim == 0 ? "m:" : "n:") + (up ? "up" : "down"), d, "tile");
      }
    }
  }
  enum_steps(c, "prefetch", base.prefetch, [](DesignPoint& d, Prefetch v) { d.prefetch = v; });
  if (tensor) {
    // Fragment shapes at the same warp tile: the fragments per warp follow.
    enum_steps(c, "tensor_core", base.fragment, [&base](DesignPoint& d, Fragment v) {
      const FragmentShape from = fragment_shape(base.fragment), to = fragment_shape(v);
      if (to.m == 0) return;
      d.fragment = v;
      const int warp_m = base.register_tile.m * from.m, warp_n = base.register_tile.n * from.n;
      if (warp_m % to.m == 0 && warp_n % to.n == 0) {
        d.register_tile = {warp_m / to.m, warp_n / to.n};
      } else {
        // The warp tile cannot hold the new shape: as few fragments as cover it, and the block
        // tile follows.
        d.register_tile = {std::max(1, warp_m / to.m), std::max(1, warp_n / to.n)};
        d.tile.m = d.warps.m * d.register_tile.m * to.m;
        d.tile.n = d.warps.n * d.register_tile.n * to.n;
      }
      if (d.tile.k % to.k != 0) d.tile.k = to.k;
    });
  }
  enum_steps(c, "activation", base.activation, [](DesignPoint& d, ActivationPlacement v) { d.activation = v; });
  for (const bool up : {true, false}) {
    DesignPoint d = base;
    d.split_k = up ? base.split_k * 2 : base.split_k / 2;
    if (d.split_k < 1) continue;
    c.add("split_k", up ? "up" : "down", d);
  }
  // Warp arrangement: move a factor of two between m and n.
  for (const bool to_m : {true, false}) {
    DesignPoint d = base;
    int& grow = to_m ? d.warps.m : d.warps.n;
    int& shrink = to_m ? d.warps.n : d.warps.m;
    if (shrink % 2) continue;
    grow *= 2;
    shrink /= 2;
    if (tensor) {
      // The warp tile keeps its fragments; the block tile changes shape.
      d.tile.m = d.warps.m * d.register_tile.m * fragment_shape(d.fragment).m;
      d.tile.n = d.warps.n * d.register_tile.n * fragment_shape(d.fragment).n;
      c.add("warps", to_m ? "m:up,n:down" : "n:up,m:down", d, "tile");
    } else {
      c.add("warps", to_m ? "m:up,n:down" : "n:up,m:down", d);
    }
  }
  enum_steps(c, "boundary", base.boundary, [](DesignPoint& d, Boundary v) { d.boundary = v; });
  enum_steps(c, "k_range", base.k_range, [](DesignPoint& d, KRange v) { d.k_range = v; });
  return out;
}

}  // namespace vxsynth::design
