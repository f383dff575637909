// The design samples of the generated-code tests: small odd shapes (no dimension a multiple of
// any tile), one per op family, and per family and precision path a sample of the design space
// in which every axis value occurs (the seed and its single-axis neighbours) plus seeded
// random designs. Shared by tests/codegen (emission, nvcc) and tests/refine (the simulator).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "design/move.h"
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
    seen["split_reduce"].insert(design::to_string(d.split_reduce));
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

// prefetch cp_async designs on odd shapes (docs/design-space.md, "prefetch cp_async"): every
// boundary, split-K with an empty slice (K = 29, k-step 8, 3 slices of 2 k-tiles: the third starts
// past K) and slices with fewer k-tiles than stages, one staged operand, reversed lanes,
// shared_pad and vector4 on SIMT; tf32 and 16-bit tensor tiles (pairs along k) with WMMA and
// mma.sync, implicit-GEMM convolutions. Every design is valid (apply_settings throws otherwise).
inline std::vector<DesignPoint> cp_async_sample() {
  using design::Move;
  std::vector<DesignPoint> out;
  auto with = [&out](const DesignPoint& d, std::vector<std::string> sets) {
    sets.insert(sets.begin(), "prefetch=cp_async");
    out.push_back(design::apply_settings(d, sets, "cp_async sample"));
  };
  auto fragment = [](const DesignPoint& d, const std::string& shape) {
    return design::apply(d, Move{design::Axis::kTensorCore, "to:" + shape, "", std::nullopt});
  };
  const auto gelu = ops::Activation::gelu;
  // SIMT fp32: linear 37 x 53 x 29.
  const DesignPoint linear = design::seed_design(ops::make_linear("linear", PrecisionPath::fp32, 37, 53, 29, true, gelu),
                                                 EngineClass::kSimt, 128);
  with(linear, {});
  with(linear, {"boundary=padded", "pipeline_stages=5", "shared_pad=words4"});
  with(linear, {"boundary=uniform_branch", "pipeline_stages=2", "lane_a=reversed"});
  with(linear, {"split_k=3", "pipeline_stages=5"});  // an empty third slice; slices of 2 k-tiles < 5 stages
  with(linear, {"split_k=3", "boundary=padded", "pipeline_stages=3"});
  with(linear, {"shared_staging=a", "pipeline_stages=4", "boundary=uniform_branch"});
  with(linear, {"shared_staging=b", "lane_b=reversed", "read_once=streaming"});
  with(linear, {"fragment_load=vector4", "shared_pad=words4", "pipeline_stages=4"});
  // SIMT fp32 matmul with both transposes (A [K][M]: the copy walks m), and the family's matmul.
  with(design::seed_design(ops::make_matmul("matmul.ta", PrecisionPath::fp32, {3}, {1}, 29, 45, 67, true, false),
                           EngineClass::kSimt, 64),
       {"pipeline_stages=3"});
  with(design::seed_design(family_op("matmul", PrecisionPath::fp32), EngineClass::kSimt, 64), {"split_k=2", "lane_b=reversed"});
  // SIMT tf32 / fp32 implicit-GEMM convolutions (zero padding of the input through src-size 0).
  with(design::seed_design(family_op("conv1d", PrecisionPath::tf32), EngineClass::kSimt, 128), {"pipeline_stages=4"});
  with(design::seed_design(family_op("conv1d", PrecisionPath::fp32), EngineClass::kSimt, 128), {"boundary=padded"});
  with(design::seed_design(family_op("conv2d", PrecisionPath::fp32), EngineClass::kSimt, 256),
       {"boundary=uniform_branch", "split_k=2"});
  // tf32 tensor tiles (fp32 elements, rounded when the fragments are loaded): mma.sync and WMMA.
  const DesignPoint conv2d_tf32 = design::seed_design(family_op("conv2d", PrecisionPath::tf32), EngineClass::kTensorCore, 256);
  with(fragment(conv2d_tf32, "mma_m16n8k8"), {"pipeline_stages=3"});
  with(fragment(conv2d_tf32, "mma_m16n8k8"), {"pipeline_stages=4", "boundary=uniform_branch"});  // K = 27: one k-tile
  const DesignPoint conv1d_tf32 = design::seed_design(family_op("conv1d", PrecisionPath::tf32), EngineClass::kTensorCore, 128);
  with(conv1d_tf32, {"pipeline_stages=4", "boundary=padded"});
  with(fragment(conv1d_tf32, "mma_m16n8k8"), {"split_k=2", "pipeline_stages=3"});  // K = 60: a k-tile a slice
  // 16-byte copies (cp.async.cg): K compiled in as a multiple of 4 (B; the implicit im2col A stays
  // 4-byte), and both operands of a K-fixed tf32 linear with split-K.
  with(fragment(conv1d_tf32, "mma_m16n8k8"), {"k_range=fixed", "pipeline_stages=2"});
  with(design::seed_design(ops::make_linear("linear.tf32", PrecisionPath::tf32, 37, 53, 72, true, gelu), EngineClass::kTensorCore, 128),
       {"k_range=fixed", "split_k=2", "pipeline_stages=3", "boundary=uniform_branch"});
  with(design::seed_design(family_op("linear", PrecisionPath::tf32), EngineClass::kTensorCore, 128), {"lane_b=reversed"});
  // 16-bit tensor tiles: pairs along k of K-contiguous operands with an even K, or padded copies.
  const DesignPoint linear_bf16 =
      design::seed_design(ops::make_linear("linear.bf16", PrecisionPath::bf16, 37, 53, 70, true, gelu), EngineClass::kTensorCore, 128);
  with(fragment(linear_bf16, "mma_m16n8k16"), {"pipeline_stages=3"});
  with(linear_bf16, {"split_k=2", "pipeline_stages=2", "lane_a=reversed"});
  with(design::seed_design(ops::make_matmul("matmul.fp16", PrecisionPath::fp16, {3}, {1}, 29, 45, 68, false, true),
                           EngineClass::kTensorCore, 64),
       {"pipeline_stages=4", "boundary=uniform_branch"});
  with(design::seed_design(family_op("conv2d", PrecisionPath::bf16), EngineClass::kTensorCore, 256), {"boundary=padded"});
  with(fragment(design::seed_design(family_op("linear", PrecisionPath::fp16), EngineClass::kTensorCore, 128), "mma_m16n8k16"),
       {"boundary=padded", "pipeline_stages=3"});  // K = 71: the padded copy aligns the pairs
  return out;
}

// split_reduce serial on odd shapes (docs/design-space.md, "split_reduce"): SIMT and tensor
// tiles, fp32 / tf32 / bf16 / fp16 (fp32 running sums, 16-bit outputs), batches (one flag per
// tile of each batch), an empty last slice, every boundary, a stripped activation, prefetch
// cp_async (the fix-up's loads are then the kernel's only ordinary global loads). Every design
// is valid (apply_settings throws otherwise).
inline std::vector<DesignPoint> split_reduce_sample() {
  using design::Move;
  std::vector<DesignPoint> out;
  auto with = [&out](const DesignPoint& d, std::vector<std::string> sets) {
    sets.push_back("split_reduce=serial");
    out.push_back(design::apply_settings(d, sets, "split_reduce sample"));
  };
  auto fragment = [](const DesignPoint& d, const std::string& shape) {
    return design::apply(d, Move{design::Axis::kTensorCore, "to:" + shape, "", std::nullopt});
  };
  const auto gelu = ops::Activation::gelu;
  const DesignPoint linear = design::seed_design(family_op("linear", PrecisionPath::fp32), EngineClass::kSimt, 128);
  with(linear, {"split_k=3"});
  with(linear, {"split_k=2", "boundary=padded", "activation=stripped"});
  // K = 29, k-step 8, 3 slices of 2 k-tiles: the third slice is empty and still finishes.
  with(design::seed_design(ops::make_linear("linear.k29", PrecisionPath::fp32, 37, 53, 29, true, gelu), EngineClass::kSimt, 128),
       {"split_k=3", "prefetch=cp_async", "pipeline_stages=3"});
  with(design::seed_design(family_op("matmul", PrecisionPath::fp32), EngineClass::kSimt, 64),
       {"split_k=2", "lane_b=reversed", "boundary=uniform_branch"});
  with(design::seed_design(family_op("conv2d", PrecisionPath::fp32), EngineClass::kSimt, 256), {"split_k=2", "boundary=uniform_branch"});
  // The family's conv2d with 24 input channels: K = 12 x 3 x 3 = 108, four k-tiles of 32.
  const DesignPoint conv2d_tf32 = design::seed_design(
      ops::make_conv("conv2d.c24", PrecisionPath::tf32, 1, 24, 10, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, true,
                     ops::ConvLayout::channels_last, ops::Activation::silu),
      EngineClass::kTensorCore, 256);
  with(fragment(conv2d_tf32, "mma_m16n8k8"), {"split_k=2", "prefetch=cp_async", "pipeline_stages=3", "boundary=padded"});
  with(conv2d_tf32, {"split_k=3"});
  const DesignPoint conv1d_tf32 = design::seed_design(family_op("conv1d", PrecisionPath::tf32), EngineClass::kTensorCore, 128);
  with(fragment(conv1d_tf32, "mma_m16n8k8"), {"split_k=2", "prefetch=cp_async", "pipeline_stages=3"});
  with(design::seed_design(family_op("linear", PrecisionPath::bf16), EngineClass::kTensorCore, 128), {"split_k=2", "activation=stripped"});
  with(fragment(design::seed_design(family_op("matmul", PrecisionPath::fp16), EngineClass::kTensorCore, 64), "mma_m16n8k16"),
       {"split_k=2", "boundary=padded"});
  return out;
}

// split_reduce serial_vector4 on odd shapes: SIMT designs with vector4 fragments whose running
// sums are read and written a run of four outputs at a time. N = 53 / 45 / 19 ... are not
// multiples of four (the last run of a row is partial and the padded row holds the rest), every
// boundary, an empty last slice, prefetch cp_async, a batched matmul, both convolutions, and
// act-2's configuration (128x64x8 tiles, 8x8 register tiles, 4 slices). Every design is valid.
inline std::vector<DesignPoint> split_reduce_vector4_sample() {
  std::vector<DesignPoint> out;
  auto with = [&out](const DesignPoint& d, std::vector<std::string> sets) {
    sets.push_back("fragment_load=vector4");
    sets.push_back("split_reduce=serial_vector4");
    out.push_back(design::apply_settings(d, sets, "split_reduce serial_vector4 sample"));
  };
  const auto gelu = ops::Activation::gelu;
  const DesignPoint linear = design::seed_design(family_op("linear", PrecisionPath::fp32), EngineClass::kSimt, 128);
  with(linear, {"split_k=3"});
  with(linear, {"split_k=2", "boundary=padded", "activation=stripped"});
  with(linear, {"split_k=4", "prefetch=cp_async", "pipeline_stages=3", "boundary=uniform_branch", "shared_pad=words4"});
  with(linear, {"tile=128x64x8", "register_tile=8x8", "split_k=4", "prefetch=cp_async", "pipeline_stages=3", "k_range=fixed"});
  // K = 29, k-step 8, 3 slices of 2 k-tiles: the third slice is empty and still finishes.
  with(design::seed_design(ops::make_linear("linear.k29", PrecisionPath::fp32, 37, 53, 29, true, gelu), EngineClass::kSimt, 128),
       {"split_k=3", "prefetch=cp_async", "pipeline_stages=3"});
  with(design::seed_design(family_op("matmul", PrecisionPath::fp32), EngineClass::kSimt, 64), {"split_k=2", "boundary=uniform_branch"});
  with(design::seed_design(family_op("conv1d", PrecisionPath::fp32), EngineClass::kSimt, 128), {"split_k=2", "boundary=padded"});
  with(design::seed_design(family_op("conv1d", PrecisionPath::tf32), EngineClass::kSimt, 128),
       {"split_k=2", "prefetch=cp_async", "pipeline_stages=2"});
  with(design::seed_design(family_op("conv2d", PrecisionPath::fp32), EngineClass::kSimt, 256), {"split_k=2"});
  return out;
}

}  // namespace vxsynth::codegen
