#include "design/hopper_family.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "design/util.h"

namespace vxsynth::design {
namespace {

using util::cat;
using util::next_pow2;

int element_bytes(ops::PrecisionPath p) { return p == ops::PrecisionPath::tf32 || p == ops::PrecisionPath::fp32 ? 4 : 2; }

bool cluster_dim_ok(int v) { return v == 1 || v == 2 || v == 4; }

}  // namespace

bool is_hopper(const DesignPoint& d) { return is_wgmma(d.fragment) || d.prefetch == Prefetch::kTma; }

int hopper_consumers(const DesignPoint& d) { return d.fixed.block_size / kWarpgroupThreads - 1; }

int hopper_tile_k(ops::PrecisionPath precision) { return 128 / element_bytes(precision); }

int hopper_consumer_n(const DesignPoint& d) {
  if (!hopper_columns(d)) return d.tile.n;
  const int c = hopper_consumers(d);
  return c > 0 && d.tile.n % c == 0 ? d.tile.n / c : 0;
}

Fragment hopper_fragment(ops::PrecisionPath precision) {
  return precision == ops::PrecisionPath::tf32 ? Fragment::kWgmmaK8 : Fragment::kWgmmaK16;
}

int hopper_entry_registers(int block_size) {
  if (block_size <= 0) return 0;
  return std::min(255, 65536 / block_size / 8 * 8);
}

int hopper_consumer_registers(const DesignPoint& d) {
  const int block = d.fixed.block_size;
  if (d.register_split == RegisterSplit::kNone) return std::min(255, block > 0 ? 65536 / block : 0);
  if (block <= 2 * kWarpgroupThreads) return 0;
  const int pool = hopper_entry_registers(block) * block - kHopperProducerRegisters * kWarpgroupThreads;
  return std::min(256, pool / (block - kWarpgroupThreads) / 8 * 8);
}

std::int64_t hopper_shared_bytes(const DesignPoint& d) {
  const std::int64_t e = element_bytes(d.fixed.precision);
  std::int64_t ring = std::int64_t(d.stages) * (std::int64_t(d.tile.m) + d.tile.n) * d.tile.k * e + 16 * d.stages;
  // the bias slice (128-byte aligned for the copy engine) and its mbarrier
  if (d.bias_load == BiasLoad::kTma) ring += 128 + std::int64_t(d.tile.n) * e + 8;
  // a persistent block's bulk-store tile has a buffer of its own (the ring is refilled meanwhile)
  // (1024-byte aligned when swizzled: the copy engine's 128-byte swizzle repeats every 1024 bytes)
  if (d.schedule == Schedule::kPersistent && is_bulk_store(d.epilogue_store)) {
    ring += (d.epilogue_store == EpilogueStore::kTmaSwizzled ? 1024 : 128) + std::int64_t(d.tile.m) * d.tile.n * e;
  }
  return (ring + 1023) / 1024 * 1024 + 1024;  // the ring is 1024-byte aligned inside the dynamic allocation
}

std::string hopper_procedural_name(const DesignPoint& d) {
  std::ostringstream s;
  s << ops::to_string(d.op.kind) << '_' << ops::to_string(d.fixed.precision) << "_hopper_b" << d.fixed.block_size << "_t"
    << d.tile.m << 'x' << d.tile.n << 'x' << d.tile.k << "_st" << d.stages << '_' << to_string(d.raster) << "_ep-"
    << to_string(d.epilogue_store) << (d.bias_load == BiasLoad::kTma ? "_bias-tma" : d.bias_load == BiasLoad::kPaired ? "_bias-pairs" : "") << "_c" << d.cluster.m << 'x' << d.cluster.n << '_' << to_string(d.fragment);
  if (d.split_k != 1) s << "_sk" << d.split_k;
  if (d.register_split != RegisterSplit::kNone) s << '_' << to_string(d.register_split);
  if (d.wgmma_in_flight != 1) s << "_if" << d.wgmma_in_flight;
  if (d.schedule != Schedule::kGrid) s << '_' << to_string(d.schedule);
  if (d.tf32_round != Tf32Round::kWorkspace) s << "_round-" << to_string(d.tf32_round);
  if (hopper_columns(d)) s << "_cols";
  if (d.multicast != Multicast::kNone) s << "_mc-" << to_string(d.multicast);
  return s.str();
}

void check_hopper(const DesignPoint& d, std::vector<Violation>& out) {
  auto fail = [&out](const char* rule, std::string detail) { out.push_back({rule, std::move(detail)}); };
  const auto& f = d.fixed;
  const ops::OpSpec& op = d.op;
  if (f.engine != EngineClass::kTensorCore) fail("engine-class", "the Hopper family is a tensor_core design");
  if (f.precision == ops::PrecisionPath::fp32) {
    fail("hopper-lowering", "fp32 has no warpgroup MMA (tf32, bf16 or fp16)");
    return;
  }
  if (d.fragment != hopper_fragment(f.precision) || d.prefetch != Prefetch::kTma) {
    fail("hopper-lowering", cat("the Hopper family pairs tensor_core ", to_string(hopper_fragment(f.precision)), " (",
                                ops::to_string(f.precision), ") with prefetch tma; got tensor_core ", to_string(d.fragment),
                                ", prefetch ", to_string(d.prefetch)));
    return;
  }
  if (f.block_size % kWarpgroupThreads != 0 || hopper_consumers(d) < 1 || hopper_consumers(d) > 3) {
    fail("hopper-block", cat("block ", f.block_size, " must be one producer and 1..3 consumer warpgroups of 128 threads (256, 384, 512)"));
    return;
  }
  // What the kernel can read and write: K-major operands through tensor maps.
  if (op.activation() != ops::Activation::none) fail("hopper-op", "the Hopper epilogue adds a bias only: the op has a fused activation");
  if (op.kind == ops::OpKind::matmul) {
    if (op.matmul.transpose_a || !op.matmul.transpose_b || op.matmul.batch_out().size() > 1) {
      fail("hopper-op", "a matmul needs A row-major and B transposed (both K-contiguous) and at most one batch dimension");
    }
  } else if (op.kind == ops::OpKind::conv1d || op.kind == ops::OpKind::conv2d) {
    if (op.conv.layout != ops::ConvLayout::channels_first || op.conv.groups != 1) {
      fail("hopper-op", "a convolution runs as im2col + GEMM here: channels first, groups 1");
    }
  } else if (op.kind != ops::OpKind::linear) {
    fail("hopper-op", cat("the Hopper family implements linear, matmul and convolutions, not ", ops::to_string(op.kind)));
  }
  const int e = element_bytes(f.precision);
  if ((f.shape.k * e) % 16 != 0) {
    fail("hopper-tma-alignment", cat("a tensor map needs 16-byte row strides: K = ", f.shape.k, " x ", e, " bytes"));
  }
  const Tile& t = d.tile;
  const bool columns = hopper_columns(d);
  const int consumers = hopper_consumers(d);
  if (columns) {
    // One 64-row A slice for every consumer; consumer c's wgmma N' covers B rows c N' .. (c + 1) N' - 1,
    // which start 1024 bytes apart (the 128-byte swizzle's 8-row atom) when N' is a multiple of 8.
    // The B box of n rows is one copy: at most 256 rows.
    if (t.m != 64 || t.k != hopper_tile_k(f.precision) || t.n > 256 || t.n % (8 * consumers) != 0 || t.n < 8 * consumers) {
      fail("hopper-tile", cat("tile ", t.m, "x", t.n, "x", t.k, ": consumer_layout columns takes m = 64, n = ", consumers,
                              " consumers x a wgmma N' that is a multiple of 8 (n a multiple of ", 8 * consumers,
                              " in ", 8 * consumers, "..256), k = one 128-byte row (", hopper_tile_k(f.precision), ")"));
    }
  } else if (t.m != 64 * consumers || t.k != hopper_tile_k(f.precision) || t.n < 32 || t.n > 256 || t.n % 32 != 0) {
    fail("hopper-tile", cat("tile ", t.m, "x", t.n, "x", t.k, ": m = 64 x ", consumers,
                            " consumer warpgroups, n a multiple of 32 in 32..256, k = one 128-byte row (",
                            hopper_tile_k(f.precision), ")"));
  }
  // The accumulator columns of one consumer: the wgmma N.
  const int cn = hopper_consumer_n(d);
  const std::string cn_name = columns ? cat("consumer n ", cn, " (tile n ", t.n, " / ", consumers, ")") : cat("tile n ", t.n);
  if (d.staging != Staging::kAB || d.lane_a != LaneMap::kForward || d.lane_b != LaneMap::kForward ||
      d.read_once != ReadOnce::kDefault || !(d.register_tile == RegisterTile{1, 1}) ||
      !(d.warps == WarpArrangement{f.block_size / 32, 1}) || d.activation != ActivationPlacement::kFused ||
      d.boundary != Boundary::kGuarded || d.k_range != KRange::kGeneric || d.scale != Scale::kNone ||
      d.fragment_load != FragmentLoad::kStrided || d.shared_pad != SharedPad::kNone ||
      d.read_guard != ReadGuard::kPredicated || d.param_reads != ParamReads::kHoisted) {
    fail("hopper-fixed", cat("the Hopper family fixes shared_staging ab, lanes forward, read_once default, register_tile "
                             "1x1, warps ", f.block_size / 32, "x1, activation fused, boundary guarded, "
                             "k_range generic, fragment_load strided, shared_pad none, read_guard predicated, "
                             "param_reads hoisted"));
  }
  if (d.register_split == RegisterSplit::kSetMaxNReg && hopper_consumer_registers(d) == 0) {
    fail("hopper-register-split", cat("register_split setmaxnreg moves the producer's registers to 2 or 3 consumer "
                                      "warpgroups (block 384 or 512); a block of ", f.block_size,
                                      " threads already gives its one consumer 255"));
  } else {
    // Each consumer thread holds n / 2 fp32 accumulators; ptxas needs about 26 more registers for
    // addressing and the epilogue (measured: m64n256k16 asks for 154), within 65536 / block, or
    // within what setmaxnreg gives a consumer.
    const int budget = hopper_consumer_registers(d);
    if (cn / 2 + 32 > budget) {
      fail("hopper-registers", cat(cn_name, " needs ", cn / 2, " accumulator registers per thread + 32; a consumer "
                                   "thread of a block of ", f.block_size, " threads has ", budget, " (register_split ",
                                   to_string(d.register_split), ")"));
    } else if (d.epilogue_store == EpilogueStore::kTmaSwizzled && d.split_k == 1 && cn / 2 + cn / 4 + 48 > budget) {
      // The swizzled staging addresses take registers beside the accumulators, more as n grows
      // (ptxas 13.0, pi0-2's designs: n 256 with 232 registers spills 88 bytes, n 192 with 168
      // spills 32; n 192 with 232 and n 128 with 168 spill none). Spills are read back through
      // L1, which no bulk-copy kernel otherwise touches (L1 hit 77 % against the reference's 0).
      fail("hopper-registers", cat(cn_name, " with epilogue_store tma_swizzled needs ", cn / 2, " accumulators + ",
                                   cn / 4 + 48, " registers for the staging addresses; a consumer thread of a block of ",
                                   f.block_size, " threads has ", budget, " (register_split ", to_string(d.register_split), ")"));
    } else if (cn / 2 + 26 > hopper_entry_registers(f.block_size)) {
      // ptxas fits each wgmma instruction within the kernel's register cap, whatever setmaxnreg
      // gives later (measured: m64n224k16 at 512 threads asks for 138 of 128 and aborts).
      fail("hopper-registers", cat(cn_name, ": one wgmma needs ", cn / 2, " accumulators + 26 registers within the ",
                                   hopper_entry_registers(f.block_size), " a thread of a block of ", f.block_size,
                                   " threads starts with"));
    }
  }
  // A consumer keeps wgmma_in_flight groups running while the producer refills the other stages:
  // with no stage beyond them the producer would wait for a stage the consumer never releases.
  if (d.wgmma_in_flight < 1 || d.wgmma_in_flight > kHopperMaxInFlight) {
    fail("hopper-in-flight", cat("wgmma_in_flight ", d.wgmma_in_flight, " must be 1..", kHopperMaxInFlight));
  } else if (d.stages <= d.wgmma_in_flight) {
    fail("hopper-in-flight", cat("wgmma_in_flight ", d.wgmma_in_flight, " holds that many stages: pipeline_stages ",
                                 d.stages, " must be more"));
  }
  {
    // Split-K: the slices write fp32 partials that a second pass adds; each slice needs a k-tile.
    const std::int64_t k_tiles = (f.shape.k + t.k - 1) / t.k;
    if (d.split_k < 1 || d.split_k > kMaxSplitK) {
      fail("hopper-split-k", cat("split_k ", d.split_k, " must be 1..", kMaxSplitK));
    } else if (d.split_k > k_tiles) {
      fail("hopper-split-k", cat("split_k ", d.split_k, " leaves empty slices: K = ", f.shape.k, " has ", k_tiles,
                                 " k-tiles of ", t.k));
    } else if (bulk_stores_partials(d) && e != 4) {
      // The bulk store of the partial sums stages them in the output's element type.
      fail("hopper-split-k", cat("split_k ", d.split_k, " with epilogue_store ", to_string(d.epilogue_store),
                                 " stores fp32 partial sums by bulk copy: the design must store fp32 (tf32 path), not ",
                                 ops::to_string(f.precision)));
    } else if (bulk_stores_partials(d) && d.schedule != Schedule::kGrid) {
      fail("hopper-split-k", cat("split_k ", d.split_k, " with epilogue_store ", to_string(d.epilogue_store),
                                 " stages the partial sums in the A ring: schedule must be grid"));
    }
  }
  if (d.tf32_round != Tf32Round::kWorkspace && f.precision != ops::PrecisionPath::tf32) {
    fail("hopper-tf32-round", cat("tf32_round ", to_string(d.tf32_round), " rounds tf32 operands; the design is ",
                                  ops::to_string(f.precision)));
  }
  if (d.schedule == Schedule::kPersistent) {
    // A persistent block changes tile while the producer runs ahead: the bias slice would be
    // overwritten under the consumers, and clusters are launched by shape, not by tile.
    if (d.bias_load == BiasLoad::kTma) {
      fail("hopper-schedule", "schedule persistent reads the bias per tile: bias_load must be global");
    } else if (!(d.cluster == Cluster{})) {
      fail("hopper-schedule", cat("schedule persistent launches one block per SM, not clusters (cluster ", d.cluster.m, "x",
                                  d.cluster.n, ")"));
    }
  }
  if (d.stages < kHopperMinStages || d.stages > kHopperMaxStages) {
    fail("hopper-stages", cat("pipeline_stages ", d.stages, " must be ", kHopperMinStages, "..", kHopperMaxStages));
  }
  if (hopper_shared_bytes(d) > kH200SharedPerBlock) {
    fail("cuda-shared-capacity", cat(hopper_shared_bytes(d), " bytes of shared memory per block exceed the H200's ",
                                     kH200SharedPerBlock, " (", d.stages, " stages of ", t.m, "+", t.n, " rows)"));
  }
  if (is_bulk_store(d.epilogue_store)) {
    // Partial sums are [M][N] for any op (reduce_split_k writes the output) and go box by box.
    const bool partials = bulk_stores_partials(d);
    if (!partials && (op.kind == ops::OpKind::conv1d || op.kind == ops::OpKind::conv2d)) {
      fail("hopper-epilogue", "a convolution's output is channels first, not the [M][N] tile a bulk store writes");
    } else if ((f.shape.n * e) % 16 != 0) {
      fail("hopper-epilogue", cat("a bulk store needs 16-byte output rows: N = ", f.shape.n, " x ", e, " bytes"));
    } else if (!partials && d.schedule == Schedule::kGrid && t.n > d.stages * t.k) {  // persistent: a buffer of its own
      fail("hopper-epilogue", cat("the staged output tile (n ", t.n, ") must fit the A ring it reuses (", d.stages,
                                  " stages x k ", t.k, ")"));
    } else if (d.epilogue_store == EpilogueStore::kTmaSwizzled && (std::int64_t(t.n) * e) % 128 != 0) {
      fail("hopper-epilogue", cat("epilogue_store tma_swizzled stages 128-byte boxes: tile n ", t.n, " x ", e,
                                  " bytes is not a multiple of 128"));
    } else if (columns && (d.epilogue_store == EpilogueStore::kTmaSwizzled || partials) && (std::int64_t(cn) * e) % 128 != 0) {
      // Each consumer stores its own 64 x N' part in 128-byte boxes.
      fail("hopper-epilogue", cat("consumer_layout columns with epilogue_store ", to_string(d.epilogue_store),
                                  partials ? " and split_k > 1" : "", " stores each consumer's columns in 128-byte boxes: ",
                                  cn_name, " x ", e, " bytes is not a multiple of 128"));
    } else if (columns && partials && d.stages < consumers) {
      // One box of 64 rows x 128 bytes per consumer, staged in the A ring (stages x 64 rows x 128 bytes).
      fail("hopper-epilogue", cat("consumer_layout columns with split_k > 1 stages one 64-row box per consumer (",
                                  consumers, ") in the A ring of ", d.stages, " stages of 64 rows: pipeline_stages must be at least ",
                                  consumers));
    }
  }
  if (d.bias_load != BiasLoad::kGlobal && !op.has_bias()) {
    fail("hopper-bias", cat("bias_load ", to_string(d.bias_load), " reads the bias: the op has none"));
  }
  if (!cluster_dim_ok(d.cluster.m) || !cluster_dim_ok(d.cluster.n) || d.cluster.m * d.cluster.n > 8) {
    fail("hopper-cluster", cat("cluster ", d.cluster.m, "x", d.cluster.n, ": 1, 2 or 4 blocks each way, at most 8"));
  }
  if (d.multicast != Multicast::kNone) {
    // A block loads 1/cluster.n of the A tile's rows (1/cluster.m of B's) for its whole group;
    // each slice lands on whole 8-row groups of the 128-byte swizzle (1024 bytes).
    if (multicast_a(d.multicast) && d.cluster.n < 2) {
      fail("hopper-multicast", cat("multicast ", to_string(d.multicast), " shares A among a cluster row: cluster.n is ",
                                   d.cluster.n, ", needs 2 or 4"));
    } else if (multicast_b(d.multicast) && d.cluster.m < 2) {
      fail("hopper-multicast", cat("multicast ", to_string(d.multicast), " shares B among a cluster column: cluster.m is ",
                                   d.cluster.m, ", needs 2 or 4"));
    } else if (multicast_a(d.multicast) && t.m % (8 * d.cluster.n) != 0) {
      fail("hopper-multicast", cat("multicast ", to_string(d.multicast), ": tile m ", t.m, " in ", d.cluster.n,
                                   " slices of whole 8-row swizzle groups"));
    } else if (multicast_b(d.multicast) && t.n % (8 * d.cluster.m) != 0) {
      fail("hopper-multicast", cat("multicast ", to_string(d.multicast), ": tile n ", t.n, " in ", d.cluster.m,
                                   " slices of whole 8-row swizzle groups"));
    }
  }
  if (f.shape.batch * d.split_k > 65535) {
    fail("hopper-grid", cat("batch ", f.shape.batch, " x split_k ", d.split_k, " exceeds the grid's z limit 65535"));
  }
  if (!out.empty()) return;
  // The Vortex side must be a valid design of the GEMM family.
  for (const Violation& v : all_violations(vortex_counterpart(d))) {
    out.push_back({"vortex-counterpart", v.rule + ": " + v.detail});
    return;
  }
}

const std::vector<std::pair<std::string, std::string>>& hopper_rule_descriptions() {
  static const std::vector<std::pair<std::string, std::string>> rules = {
      {"hopper-axes", "pipeline_stages, raster, epilogue_store, cluster, bias_load, register_split, wgmma_in_flight, schedule, tf32_round, consumer_layout and multicast keep their defaults outside the Hopper family"},
      {"hopper-lowering", "the Hopper family pairs wgmma (k16 for bf16/fp16, k8 for tf32) with prefetch tma"},
      {"hopper-block", "Hopper block = one producer + 1..3 consumer warpgroups (256, 384 or 512 threads)"},
      {"hopper-op", "Hopper: linear, matmul with K-contiguous operands, or channels-first groups-1 convolution; no fused activation"},
      {"hopper-tma-alignment", "Hopper: K x element size is a multiple of 16 bytes (tensor-map row stride)"},
      {"hopper-tile", "Hopper tile: m = 64 x consumers, n a multiple of 32 in 32..256, k one 128-byte row; consumer_layout columns: m = 64, n = consumers x N' (N' a multiple of 8), n <= 256"},
      {"hopper-fixed", "Hopper: the other axes at their fixed values (docs/design-space.md)"},
      {"hopper-register-split", "Hopper: register_split setmaxnreg needs 2 or 3 consumer warpgroups (block 384 or 512)"},
      {"hopper-registers", "Hopper: n / 2 accumulators + 32 registers per consumer thread fit 65536 / block (at most 255), or what setmaxnreg gives a consumer (n / 2 + n / 4 + 48 with epilogue_store tma_swizzled); one wgmma (n / 2 + 26) fits the kernel's starting registers; n is the consumer's wgmma N (tile n / consumers for consumer_layout columns)"},
      {"hopper-stages", "Hopper: pipeline_stages 2..8"},
      {"hopper-in-flight", "Hopper: wgmma_in_flight 1..2, fewer than pipeline_stages"},
      {"hopper-split-k", "Hopper: split_k 1..64, at most the number of k-tiles; > 1 with a bulk-store epilogue only for fp32 storage (tf32 path) under the grid schedule"},
      {"hopper-schedule", "Hopper: schedule persistent with bias_load global and cluster 1x1"},
      {"hopper-tf32-round", "Hopper: tf32_round shared for tf32 designs only"},
      {"hopper-epilogue", "Hopper: a bulk-store epilogue needs a [M][N] output (or split_k > 1: the partial sums) with 16-byte rows and fits the A ring (grid schedule; split_k > 1 stages one 128-byte box at a time); tma_swizzled needs tile n x element size a multiple of 128 bytes; consumer_layout columns: with tma_swizzled or bulk-stored partials the consumer's N' x element size a multiple of 128 bytes, and with bulk-stored partials pipeline_stages >= consumers"},
      {"hopper-bias", "Hopper: bias_load tma or paired only for an op with a bias"},
      {"hopper-cluster", "Hopper: cluster m, n in {1, 2, 4}, m x n <= 8"},
      {"hopper-multicast", "Hopper: multicast a needs cluster.n >= 2 and tile m a multiple of 8 x cluster.n; multicast b needs cluster.m >= 2 and tile n a multiple of 8 x cluster.m"},
      {"hopper-grid", "Hopper: batch x split_k <= 65535 (grid z)"},
      {"vortex-counterpart", "the Vortex side of a Hopper design is a valid GEMM design"},
  };
  return rules;
}

DesignPoint vortex_counterpart(const DesignPoint& d) {
  DesignPoint v = d;
  v.fragment = d.fixed.precision == ops::PrecisionPath::tf32 ? Fragment::kM16N16K8 : Fragment::kM16N16K16;
  v.prefetch = d.stages >= 2 ? Prefetch::kDoubleBuffer : Prefetch::kNone;
  v.stages = 1;
  v.raster = Raster::kNMajor;
  v.epilogue_store = EpilogueStore::kDirect;
  v.bias_load = BiasLoad::kGlobal;
  v.cluster = {};
  // No warpgroups, register reallocation or persistent blocks on Vortex: the counterpart keeps
  // one block per tile; split_k carries over (the GEMM family's two passes).
  v.register_split = RegisterSplit::kNone;
  v.wgmma_in_flight = 1;
  v.schedule = Schedule::kGrid;
  v.tf32_round = Tf32Round::kWorkspace;  // Vortex computes tf32 as fp16 (docs/design-space.md)
  v.multicast = Multicast::kNone;  // no clusters
  v.consumer_layout = ConsumerLayout::kRows;  // no warpgroups: the counterpart's warps tile 64 x n as they may
  v.tile.k = kVortexTileK;
  v.register_tile = {1, 1};
  // The warp arrangement and fragments per warp whose tile is nearest the Hopper tile.
  const int warps = d.fixed.block_size / kCudaWarpSize;
  std::optional<DesignPoint> best;
  int best_score = 0;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    for (int rm = 1; rm <= 8; ++rm)
      for (int rn = 1; rn <= 8; ++rn) {
        DesignPoint c = v;
        c.warps = {wm, wn};
        c.register_tile = {rm, rn};
        c.tile.m = wm * rm * 16;
        c.tile.n = wn * rn * 16;
        const int score = (std::abs(c.tile.m - d.tile.m) + std::abs(c.tile.n - d.tile.n)) * 100 + std::abs(rm - rn) * 10 +
                          std::abs(wm - wn);
        if (best && score >= best_score) continue;
        if (can_implement(c)) continue;
        best = c;
        best_score = score;
      }
  }
  if (best) return *best;
  v.warps = {warps, 1};  // no valid arrangement: validity explains why
  v.tile.m = warps * 16;
  v.tile.n = 16;
  return v;
}

bool hopper_kernel_name(const std::string& kernel_name) {
  std::string n = kernel_name;
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n.find("sm90") != std::string::npos && (n.find("nvjet") != std::string::npos || n.find("xmma") != std::string::npos ||
                                                 n.find("gmma") != std::string::npos);
}

std::optional<DesignPoint> seed_hopper(const ops::OpSpec& op, int block_size, const std::string& reference,
                                       const std::string& kernel_name, std::vector<KernelNameFact> confirmed,
                                       std::string* why) {
  DesignPoint d;
  d.reference = reference;
  d.op = op;
  d.fixed = {EngineClass::kTensorCore, op.precision, block_size, op.gemm_view()};
  d.fragment = hopper_fragment(op.precision);
  d.prefetch = Prefetch::kTma;
  d.staging = Staging::kAB;
  d.register_tile = {1, 1};
  d.warps = {block_size / kCudaWarpSize, 1};
  d.tile = {64 * std::max(1, block_size / kWarpgroupThreads - 1), 128, hopper_tile_k(op.precision)};
  d.stages = 4;
  d.epilogue_store = (op.kind == ops::OpKind::conv1d || op.kind == ops::OpKind::conv2d) ? EpilogueStore::kDirect : EpilogueStore::kTma;
  // Every operand through the copy engine, the bias too: the sm90 kernels issue no ordinary load.
  d.bias_load = op.has_bias() ? BiasLoad::kTma : BiasLoad::kGlobal;
  d.vortex.cores = 1;
  d.vortex.threads = kVortexTensorThreads;
  d.vortex.warps = std::max(1, next_pow2((block_size + kVortexTensorThreads - 1) / kVortexTensorThreads));
  d.vortex.local_mem_bytes = 65536;  // Hopper tiles are large: the core's largest local memory

  // A design made valid the way a seed may: direct stores where the output cannot take a bulk
  // store, fewer stages where shared memory is short. nullopt when that is not enough.
  auto settle = [](DesignPoint c) -> std::optional<DesignPoint> {
    for (;;) {
      if (!can_implement(c)) return c;
      DesignPoint direct = c;
      direct.epilogue_store = EpilogueStore::kDirect;
      if (c.epilogue_store == EpilogueStore::kTma && !can_implement(direct)) return direct;
      if (c.stages <= kHopperMinStages) return std::nullopt;
      --c.stages;
    }
  };
  const std::optional<DesignPoint> base = settle(d);
  if (!base) {
    if (why) *why = "rule " + can_implement(d)->rule + ": " + can_implement(d)->detail;
    return std::nullopt;
  }
  d = *base;
  // What the kernel name documents and the launch confirmed (confirmed_name_properties): a tile
  // gives the wgmma N when the family can take it (m follows the consumer warpgroups, k is one
  // 128-byte row). nvjet and sm90 xmma names are read as inferred only (signature/kernel_name.cpp):
  // their tile, stages and cluster tokens never reach `confirmed`, so the search finds those.
  for (KernelNameFact& p : confirmed) {
    if (p.key == "tile") {
      const auto x = p.value.find('x');
      const auto x2 = p.value.find('x', x + 1);
      DesignPoint c = d;
      if (x != std::string::npos) c.tile.n = std::atoi(p.value.substr(x + 1, x2 - x - 1).c_str());
      if (const auto ok = settle(c); ok && x != std::string::npos) {
        d = *ok;
        p.used = true;
        p.note += "; n used (m follows the consumer warpgroups, k is one 128-byte row)";
      } else {
        p.note += "; not used: not a wgmma N of this family (a multiple of 32 in 32..256 that fits)";
      }
    } else if (p.key == "launch_blocks") {
      // One block per SM over more output tiles than blocks, even at the family's largest tile:
      // each block walks several tiles, i.e. a persistent kernel. Its seed is the family's
      // persistent configuration measured best on the H200 (pi0-2, docs/design-space.md): the
      // producer's registers to the consumers, the swizzled bulk-store epilogue, the widest n
      // that holds its accumulators without spilling, and the raster that shares the operand
      // with more tiles in L2.
      const std::int64_t blocks = std::atoll(p.value.c_str());
      const std::int64_t tiles = (d.fixed.shape.m + d.tile.m - 1) / d.tile.m * ((d.fixed.shape.n + 255) / 256) *
                                 std::max<std::int64_t>(1, d.fixed.shape.batch);
      if (tiles <= blocks) {
        p.note += cat("; not used: ", tiles, " output tiles at n 256 need no more blocks than that");
        continue;
      }
      DesignPoint c = d;
      c.schedule = Schedule::kPersistent;
      c.bias_load = BiasLoad::kGlobal;
      c.cluster = {};
      if (hopper_consumers(c) >= 2) c.register_split = RegisterSplit::kSetMaxNReg;
      if (is_bulk_store(c.epilogue_store)) c.epilogue_store = EpilogueStore::kTmaSwizzled;
      const std::int64_t tiles_m = (c.fixed.shape.m + c.tile.m - 1) / c.tile.m;
      std::optional<DesignPoint> chosen;
      for (int n = 256; n >= 64 && !chosen; n -= 32) {
        DesignPoint t = c;
        t.tile.n = n;
        t.raster = tiles_m < (t.fixed.shape.n + n - 1) / n ? Raster::kMMajor : Raster::kNMajor;
        if (!can_implement(t)) chosen = t;
      }
      if (chosen) {
        d = *chosen;
        p.used = true;
        p.note += cat("; used: ", tiles, "+ output tiles for ", blocks, " blocks, so schedule persistent (tile n ", d.tile.n,
                      ", register_split ", to_string(d.register_split), ", epilogue_store ", to_string(d.epilogue_store),
                      ", raster ", to_string(d.raster), ")");
      } else {
        p.note += "; not used: no persistent design of the family is valid here";
      }
    } else {
      p.note += "; not used: the Hopper family has no axis for it";
    }
  }
  d.from_kernel_name = std::move(confirmed);
  if (!kernel_name.empty()) {
    d.from_kernel_name.push_back({"family", "hopper", true,
                                  "the seed's family: an sm90 tensor-core kernel name (nvjet_sm90 / sm90_xmma); its tile, "
                                  "stages and cluster tokens are inferred only, left to the search"});
  }
  return d;
}

}  // namespace vxsynth::design
