// The design samples of the generated-code tests: small odd shapes (no dimension a multiple of
// any tile), one per op family, and per family and precision path a sample of the design space
// in which every axis value occurs (the seed and its single-axis neighbours) plus seeded
// random designs. Shared by tests/codegen (emission, nvcc) and tests/refine (the simulator).
#pragma once

#include <map>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include "design/hopper_family.h"
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

// multicast (the Hopper family's clusters sharing operand tiles) on odd shapes: A, B and both,
// clusters of 2, 4 and 8 blocks, both rasters, blocks the cluster shape adds beyond the tiles
// (their copies are zero-filled and still delivered to their group), both consumer layouts,
// every epilogue, split-K, tf32 rounded in shared memory, setmaxnreg, the bias by bulk copy and
// by pairs, a broadcast batched matmul and both convolutions, and pi0-4's and pi0-5's configurations.
// The GPU check runs each beside its twin without multicast: the outputs must be equal bit for
// bit (the same tiles multiplied in the same order). Every design is valid (apply_settings throws otherwise).
inline std::vector<DesignPoint> multicast_sample() {
  std::vector<DesignPoint> out;
  auto hopper = [](const ops::OpSpec& op, int block) {
    std::string why;
    auto d = design::seed_hopper(op, block, "", "", {}, &why);
    if (!d) throw std::logic_error("multicast sample: " + why);
    return *d;
  };
  auto with = [&out](const DesignPoint& d, std::vector<std::string> sets) {
    out.push_back(design::apply_settings(d, sets, "multicast sample"));
  };
  // 77 x 96 x 72 with a bias (two consumer warpgroups): one M tile, so clusters along M add blocks
  const DesignPoint lin = hopper(ops::make_linear("lin.bf16.bias", PrecisionPath::bf16, 77, 96, 72, true), 384);
  with(lin, {"cluster=1x2", "multicast=a"});  // one N tile: the second block of the row is beyond the tiles
  with(lin, {"tile=128x32x64", "cluster=1x4", "multicast=a", "epilogue_store=direct", "bias_load=paired"});  // 3 N tiles in 4
  with(lin, {"tile=128x64x64", "cluster=2x1", "multicast=b", "pipeline_stages=3"});
  with(lin, {"tile=128x64x64", "cluster=2x2", "multicast=ab", "raster=m_major", "wgmma_in_flight=2"});
  with(lin, {"tile=128x64x64", "cluster=2x2", "multicast=a", "epilogue_store=tma_swizzled", "register_split=setmaxnreg",
             "bias_load=global"});
  // pi0-4's (columns, 64 x 64, a cluster row of two) and pi0-5's (a cluster column of two) on odd shapes
  const DesignPoint lin51 = hopper(ops::make_linear("lin.bf16.m51", PrecisionPath::bf16, 51, 200, 136, false), 384);
  with(lin51, {"consumer_layout=columns", "tile=64x64x64", "cluster=1x2", "multicast=a", "pipeline_stages=5"});
  with(lin51, {"consumer_layout=columns", "tile=64x64x64", "cluster=1x4", "multicast=a", "epilogue_store=direct"});
  const DesignPoint lin130 = hopper(ops::make_linear("lin.bf16.m130", PrecisionPath::bf16, 130, 72, 200, true), 384);
  with(lin130, {"tile=128x32x64", "cluster=2x1", "multicast=b", "bias_load=paired", "pipeline_stages=6"});
  with(lin130, {"consumer_layout=columns", "tile=64x32x64", "cluster=4x1", "multicast=b", "bias_load=paired"});
  with(lin130, {"consumer_layout=columns", "tile=64x64x64", "cluster=2x2", "multicast=ab", "bias_load=tma"});
  // a broadcast batched matmul (one consumer): each batch's clusters share within the batch
  const DesignPoint bmm = hopper(ops::make_matmul("bmm.fp16.bcast", PrecisionPath::fp16, {3}, {1}, 51, 40, 200, false, true), 256);
  with(bmm, {"tile=64x32x64", "cluster=2x2", "multicast=ab"});
  with(bmm, {"tile=64x32x64", "cluster=1x2", "multicast=a", "split_k=2", "epilogue_store=direct"});
  // tf32: a conv1d's split-K partials, and a linear rounded in shared memory
  const DesignPoint conv1d = hopper(ops::make_conv("conv1d.tf32.bias", PrecisionPath::tf32, 2, 24, 40, {19}, {5}, {1}, {2}, {1}, 1, true), 384);
  with(conv1d, {"tile=128x64x32", "cluster=2x1", "multicast=b", "split_k=2", "bias_load=global"});
  with(conv1d, {"tile=128x64x32", "cluster=2x2", "multicast=ab", "split_k=3", "epilogue_store=tma", "bias_load=paired"});
  const DesignPoint lin_tf32 = hopper(ops::make_linear("lin.tf32", PrecisionPath::tf32, 77, 96, 72, false), 384);
  with(lin_tf32, {"tile=128x64x32", "cluster=1x2", "multicast=a", "tf32_round=shared", "wgmma_in_flight=2"});
  // a conv2d (three consumers, tile m 192) in a cluster of eight: one tile, seven blocks beyond it
  const DesignPoint conv2d = hopper(ops::make_conv("conv2d.bf16", PrecisionPath::bf16, 1, 8, 33, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false), 512);
  with(conv2d, {"tile=192x64x64", "cluster=4x2", "multicast=ab", "epilogue_store=direct"});
  return out;
}

}  // namespace vxsynth::codegen
