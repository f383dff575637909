// The design samples of the generated-code tests: small odd shapes (no dimension a multiple of
// any tile), one per op family, and per family and precision path a sample of the design space
// in which every axis value occurs (the seed and its single-axis neighbours) plus seeded
// random designs. Shared by tests/codegen (emission, nvcc) and tests/refine (the simulator).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "design/sample.h"
#include "design/seed.h"

namespace vxsynth::codegen {

using design::DesignPoint;
using design::EngineClass;
using ops::PrecisionPath;

// Small odd shapes (no dimension a multiple of any tile), one per family, with bias and an
// activation wherever the op has them.
inline ops::OpSpec family_op(const std::string& family, PrecisionPath p, ops::Activation act = ops::Activation::gelu) {
  if (family == "linear") return ops::make_linear("linear", p, 37, 53, 71, true, act);
  if (family == "matmul") return ops::make_matmul("matmul", p, {3}, {1}, 29, 45, 67, false, true);
  if (family == "conv1d") {
    return ops::make_conv("conv1d", p, 2, 12, 20, {19}, {5}, {1}, {2}, {1}, 1, true, ops::ConvLayout::channels_first,
                          act == ops::Activation::gelu ? ops::Activation::relu : act);
  }
  return ops::make_conv("conv2d", p, 1, 6, 10, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, true,
                        ops::ConvLayout::channels_last, act == ops::Activation::gelu ? ops::Activation::silu : act);
}

inline const std::vector<std::string> kFamilies = {"linear", "matmul", "conv1d", "conv2d"};

inline int block_for(const std::string& family) {
  if (family == "matmul") return 64;
  if (family == "conv2d") return 256;
  return 128;
}

// Which enum values of each axis occur in a set of designs.
inline std::map<std::string, std::set<std::string>> axis_values(const std::vector<DesignPoint>& designs) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& d : designs) {
    seen["shared_staging"].insert(design::to_string(d.staging));
    seen["read_once"].insert(design::to_string(d.read_once));
    seen["lane_a"].insert(design::to_string(d.lane_a));
    seen["lane_b"].insert(design::to_string(d.lane_b));
    seen["prefetch"].insert(design::to_string(d.prefetch));
    seen["tensor_core"].insert(design::to_string(d.fragment));
    seen["activation"].insert(design::to_string(d.activation));
    seen["boundary"].insert(design::to_string(d.boundary));
    seen["k_range"].insert(design::to_string(d.k_range));
    seen["fragment_load"].insert(design::to_string(d.fragment_load));
    seen["shared_pad"].insert(design::to_string(d.shared_pad));
    seen["consumer_layout"].insert(design::to_string(d.consumer_layout));
    seen["split_k"].insert(d.split_k > 1 ? "split" : "none");
    seen["tile"].insert(std::to_string(d.tile.m) + "x" + std::to_string(d.tile.n) + "x" + std::to_string(d.tile.k));
    seen["register_tile"].insert(std::to_string(d.register_tile.m) + "x" + std::to_string(d.register_tile.n));
    seen["warps"].insert(std::to_string(d.warps.m) + "x" + std::to_string(d.warps.n));
  }
  return seen;
}

// The sample of one family and precision path: the seed's axis coverage plus random designs.
inline std::vector<DesignPoint> family_sample(const std::string& family, PrecisionPath p, EngineClass e, int random_count,
                                       bool full_coverage = true) {
  const DesignPoint seed = design::seed_design(family_op(family, p), e, block_for(family));
  std::vector<DesignPoint> out = full_coverage ? design::axis_coverage(seed) : std::vector<DesignPoint>{seed};
  std::set<std::string> names;
  for (const auto& d : out) names.insert(design::procedural_name(d));
  for (auto& d : design::random_designs(seed, random_count, 0x5eed + out.size() * 31 + family.size(), 5)) {
    if (names.insert(design::procedural_name(d)).second) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace vxsynth::codegen
