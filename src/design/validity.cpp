#include "design/validity.h"

#include <algorithm>
#include <sstream>

#include "common/error.h"
#include "design/hopper_family.h"
#include "design/transform_family.h"
#include "design/util.h"

namespace vxsynth::design {
namespace {

using util::cat;
using util::ceil_div;

void check_capacities(const DesignPoint& d, std::vector<Violation>& out);

// prefetch cp_async: a ring of 2..8 stages, and staged elements that cp.async can copy as they
// are (it copies raw bytes, 4 at least): fp32 tiles of fp32 values, or 16-bit tensor tiles filled
// by 4-byte pairs along k that are contiguous and 4-byte aligned in global memory.
void check_cp_async(const DesignPoint& d, std::vector<Violation>& out) {
  auto fail = [&out](const char* rule, std::string detail) { out.push_back({rule, std::move(detail)}); };
  if (d.stages < kCpAsyncMinStages || d.stages > kCpAsyncMaxStages) {
    fail("cp-async-stages", cat("pipeline_stages ", d.stages, " is the cp.async ring's depth: ", kCpAsyncMinStages, "..",
                                kCpAsyncMaxStages, " (one stage computed while the others are in flight)"));
  }
  const ops::DType storage = ops::storage_dtype(d.fixed.precision);
  if (storage == ops::DType::f32) return;  // 4-byte elements, copied one by one (or per tf32 fragment tile)
  if (d.fragment == Fragment::kNone) {
    fail("cp-async-element", cat("a SIMT tile holds fp32 values and ", ops::to_string(d.fixed.precision),
                                 " operands are converted when staged; cp.async copies raw bytes (fp32 or tf32 "
                                 "storage only)"));
    return;
  }
  // 16-bit tensor tiles ([row][k]): cp.async copies at least 4 bytes, so elements go in pairs
  // (k, k + 1), which must be neighbours in global memory and start 4-byte aligned.
  if (d.boundary == Boundary::kPadded) return;  // the padded copies are [batch][rows][Kp], Kp a multiple of the k-step
  const bool k_contiguous = d.op.kind == ops::OpKind::linear ||
                            (d.op.kind == ops::OpKind::matmul && !d.op.matmul.transpose_a && d.op.matmul.transpose_b);
  if (!k_contiguous) {
    fail("cp-async-element", cat("16-bit elements are copied as 4-byte pairs along k, which must be neighbours in "
                                 "global memory: a ", ops::to_string(d.op.kind),
                                 " operand is not K-contiguous (implicit im2col or a transposed operand; boundary "
                                 "padded copies it K-contiguous)"));
  } else if (d.fixed.shape.k % 2 != 0) {
    fail("cp-async-element", cat("16-bit elements are copied as 4-byte pairs along k: K = ", d.fixed.shape.k,
                                 " is odd, so pairs of odd rows are not 4-byte aligned (boundary padded aligns them)"));
  }
}

void check(const DesignPoint& d, std::vector<Violation>& out) {
  auto fail = [&out](const char* rule, std::string detail) { out.push_back({rule, std::move(detail)}); };
  const auto& f = d.fixed;
  const ops::GemmView view = d.op.gemm_view();

  // Fixed properties agree with the op.
  if (f.precision != d.op.precision) {
    fail("fixed-precision", cat("fixed.precision ", ops::to_string(f.precision), " differs from the op's ",
                                ops::to_string(d.op.precision)));
  }
  if (view.batch != f.shape.batch || view.m != f.shape.m || view.n != f.shape.n || view.k != f.shape.k) {
    fail("fixed-shape", cat("fixed.shape ", f.shape.batch, "x", f.shape.m, "x", f.shape.n, "x", f.shape.k,
                            " (batch x M x N x K) differs from the op's GEMM view ", view.batch, "x", view.m, "x",
                            view.n, "x", view.k));
  }
  if (f.block_size <= 0 || f.block_size % kCudaWarpSize != 0 || f.block_size > kCudaMaxBlock) {
    fail("block-size", cat("block size ", f.block_size, " is not a multiple of 32 in 32..1024"));
    return;  // everything below divides by it
  }
  if (d.split_reduce != SplitReduce::kSeparate && (is_hopper(d) || is_transform(d))) {
    fail("split-reduce-family", cat("split_reduce ", to_string(d.split_reduce), " belongs to the GEMM designs of mma.sync, "
                                    "WMMA and SIMT FMA: the ", is_hopper(d) ? "Hopper" : "layout-transform",
                                    " family keeps separate"));
  }
  if (!is_transform(d) && (d.index_type != IndexType::kInt64 || d.entry_reads != 0 || d.index_math != IndexMath::kTile)) {
    fail("index-type-family", cat("index_type ", to_string(d.index_type), ", entry_reads ", d.entry_reads, " and index_math ",
                                  to_string(d.index_math), " belong to the layout-transform family, not to a ",
                                  ops::to_string(d.op.kind)));
  }
  if (is_hopper(d)) {
    // TMA + wgmma designs have rules of their own (design/hopper_family.cpp); their Vortex
    // counterpart is checked against every rule below.
    check_hopper(d, out);
    return;
  }
  // pipeline_stages is also the cp.async ring's depth (prefetch cp_async; rule cp-async-stages).
  const bool cp_async = d.prefetch == Prefetch::kCpAsync;
  if ((d.stages != 1 && !cp_async) || d.raster != Raster::kNMajor || d.epilogue_store != EpilogueStore::kDirect || !(d.cluster == Cluster{}) ||
      d.bias_load != BiasLoad::kGlobal || d.register_split != RegisterSplit::kNone || d.wgmma_in_flight != 1 ||
      d.schedule != Schedule::kGrid || d.tf32_round != Tf32Round::kWorkspace || d.consumer_layout != ConsumerLayout::kRows ||
      d.multicast != Multicast::kNone) {
    fail("hopper-axes", cat("pipeline_stages ", d.stages, ", raster ", to_string(d.raster), ", epilogue_store ",
                            to_string(d.epilogue_store), ", cluster ", d.cluster.m, "x", d.cluster.n, ", bias_load ",
                            to_string(d.bias_load), ", register_split ", to_string(d.register_split), ", wgmma_in_flight ",
                            d.wgmma_in_flight, ", schedule ", to_string(d.schedule), ", tf32_round ", to_string(d.tf32_round),
                            ", consumer_layout ", to_string(d.consumer_layout), ", multicast ", to_string(d.multicast),
                            " belong to the Hopper family (wgmma + tma): outside it they are 1, n_major, direct, 1x1, global, "
                            "none, 1, grid, workspace, rows, none (pipeline_stages is also the ring of prefetch cp_async)"));
    return;
  }
  if (is_transform(d)) {
    // The data-movement family has rules of its own (design/transform_family.cpp).
    const std::size_t before = out.size();
    check_transform(d, out);
    if (out.size() == before) check_capacities(d, out);
    return;
  }
  if (d.param_reads != ParamReads::kHoisted) {
    fail("param-reads-family", cat("param_reads ", to_string(d.param_reads), " belongs to the layout-transform family, not to a ",
                                   ops::to_string(d.op.kind)));
  }
  if (d.read_guard != ReadGuard::kPredicated) {
    fail("read-guard-family", cat("read_guard ", to_string(d.read_guard), " belongs to the layout-transform family, not to a ",
                                  ops::to_string(d.op.kind)));
  }
  if (d.scale != Scale::kNone) {
    fail("scale-family", cat("scale ", to_string(d.scale), " belongs to the layout-transform family, not to a ",
                             ops::to_string(d.op.kind)));
  }

  // Engine class and data types bound tensor-core lowering.
  const bool tensor = d.fragment != Fragment::kNone;
  if (f.engine == EngineClass::kUnknown) fail("engine-class", "the engine class is unknown (simt or tensor_core)");
  if (f.engine == EngineClass::kSimt && tensor) {
    fail("engine-class", cat("a simt design cannot use tensor-core fragments (tensor_core = ", to_string(d.fragment), ")"));
  }
  if (f.engine == EngineClass::kTensorCore && !tensor) {
    fail("engine-class", "a tensor_core design needs a fragment shape (tensor_core = none)");
  }
  if (tensor) {
    if (f.precision == ops::PrecisionPath::fp32) {
      fail("fragment-dtype", "fp32 has no tensor-core path (use tf32 or a SIMT design)");
    } else if (f.precision == ops::PrecisionPath::tf32 && fragment_shape(d.fragment).k != 8) {
      fail("fragment-dtype", cat("tf32 uses a k8 fragment (m16n16k8, mma_m16n8k8), not ", to_string(d.fragment)));
    } else if (f.precision != ops::PrecisionPath::tf32 && fragment_shape(d.fragment).k != 16) {
      fail("fragment-dtype", cat(to_string(d.fragment), " is a tf32 fragment; ", ops::to_string(f.precision),
                                 " uses a k16 shape"));
    }
  }

  // Tile, register tile and warp arrangement keep the block size.
  const Tile& t = d.tile;
  const RegisterTile& r = d.register_tile;
  if (t.m <= 0 || t.n <= 0 || t.k <= 0 || t.m > kMaxTileDim || t.n > kMaxTileDim || t.k > 64) {
    fail("tile-range", cat("tile ", t.m, "x", t.n, "x", t.k, " must be 1..", kMaxTileDim, " in m and n, 1..64 in k"));
    return;
  }
  if (r.m <= 0 || r.n <= 0) {
    fail("register-tile-range", cat("register tile ", r.m, "x", r.n, " must be positive"));
    return;
  }
  const int warps = f.block_size / kCudaWarpSize;
  if (d.warps.m <= 0 || d.warps.n <= 0 || d.warps.m * d.warps.n != warps) {
    fail("warp-arrangement", cat("warps ", d.warps.m, "x", d.warps.n, " must multiply to the block's ", warps, " warps"));
    return;
  }
  if (!tensor) {
    if (t.m % r.m != 0 || t.n % r.n != 0) {
      fail("register-tile", cat("register tile ", r.m, "x", r.n, " does not divide tile ", t.m, "x", t.n));
      return;
    }
    const int tm = t.m / r.m, tn = t.n / r.n;
    if (tm * tn != f.block_size) {
      fail("block-size", cat("tile ", t.m, "x", t.n, " / register tile ", r.m, "x", r.n, " gives ", tm * tn,
                             " threads, the block has ", f.block_size));
      return;
    }
    if (tm % d.warps.m != 0 || tn % d.warps.n != 0) {
      fail("warp-arrangement", cat("the ", tm, "x", tn, " thread grid does not split into ", d.warps.m, "x",
                                   d.warps.n, " warps"));
    }
    if (r.m * r.n > kMaxThreadOutputs) {
      fail("register-budget", cat("register tile ", r.m, "x", r.n, " holds more than ", kMaxThreadOutputs,
                                  " accumulators per thread"));
    }
    if (d.shared_pad != SharedPad::kNone && d.staging == Staging::kNone) {
      fail("shared-pad", cat("shared_pad ", to_string(d.shared_pad), " pads the shared tiles: shared_staging is none"));
    }
    if (d.fragment_load == FragmentLoad::kVector4 && (r.m % 4 != 0 || r.n % 4 != 0)) {
      fail("fragment-load", cat("fragment_load vector4 reads runs of four rows: register tile ", r.m, "x", r.n,
                                " must be multiples of 4 in m and n"));
    }
  } else {
    if (d.shared_pad != SharedPad::kNone) {
      fail("shared-pad", cat("shared_pad ", to_string(d.shared_pad), " pads SIMT tiles; tensor-core tiles have their own "
                             "leading dimension (none)"));
    }
    if (d.fragment_load != FragmentLoad::kStrided) {
      fail("fragment-load", cat("fragment_load ", to_string(d.fragment_load), " reads a SIMT register tile; tensor-core "
                                "fragments load as their shape says (strided)"));
    }
    const FragmentShape fs = fragment_shape(d.fragment);
    if (t.m != d.warps.m * r.m * fs.m || t.n != d.warps.n * r.n * fs.n) {
      fail("tile-fragments", cat("tile ", t.m, "x", t.n, " must be warps x fragments x fragment shape = ",
                                 d.warps.m * r.m * fs.m, "x", d.warps.n * r.n * fs.n));
    }
    if (t.k % fs.k != 0) fail("tile-fragments", cat("tile k ", t.k, " is not a multiple of the fragment k ", fs.k));
    if (r.m * r.n > kMaxWarpFragments) {
      fail("register-budget", cat(r.m, "x", r.n, " accumulator fragments per warp exceed ", kMaxWarpFragments));
    }
    if (d.staging != Staging::kAB) {
      fail("tensor-staging", "tensor-core fragments load from shared memory: shared_staging must be ab");
    }
  }

  // Axes that only mean something together with another.
  if (d.prefetch != Prefetch::kNone && d.staging == Staging::kNone) {
    fail("prefetch-staging", cat("prefetch ", to_string(d.prefetch), " fills staged tiles: shared_staging is none"));
  }
  if (cp_async) check_cp_async(d, out);
  if (!staged_a(d.staging) && d.lane_a != LaneMap::kForward) {
    fail("lane-unstaged", "lane mapping a = reversed applies to a staged copy, and A is not staged");
  }
  if (!staged_b(d.staging) && d.lane_b != LaneMap::kForward) {
    fail("lane-unstaged", "lane mapping b = reversed applies to a staged copy, and B is not staged");
  }
  if (d.activation == ActivationPlacement::kStripped && d.op.activation() == ops::Activation::none) {
    fail("activation-strip", "the op has no fused activation to strip");
  }

  // The shape bounds the split factor.
  const std::int64_t k_tiles = ceil_div(f.shape.k, t.k);
  if (d.split_k < 1 || d.split_k > kMaxSplitK) {
    fail("split-k", cat("split_k ", d.split_k, " must be 1..", kMaxSplitK));
  } else if (d.split_k > k_tiles) {
    fail("split-k", cat("split_k ", d.split_k, " leaves empty slices: K = ", f.shape.k, " has only ", k_tiles,
                        " tiles of ", t.k));
  }
  if (serial_reduce(d.split_reduce) && d.split_k < 2) {
    fail("split-reduce", cat("split_reduce ", to_string(d.split_reduce), " adds the slices of split_k > 1 in the GEMM kernel: split_k is ",
                             d.split_k));
  }
  if (d.split_reduce == SplitReduce::kSerialVector4 && d.fragment_load != FragmentLoad::kVector4) {
    fail("split-reduce-runs", cat("split_reduce serial_vector4 reads and writes the running sums in a thread's runs of four outputs: "
                                  "fragment_load must be vector4 (it is ", to_string(d.fragment_load), ")"));
  }

  check_capacities(d, out);
}

// Capacities of the H200 and of the Vortex core, shared by every family.
void check_capacities(const DesignPoint& d, std::vector<Violation>& out) {
  auto fail = [&out](const char* rule, std::string detail) { out.push_back({rule, std::move(detail)}); };
  const auto& f = d.fixed;
  const Tile& t = d.tile;
  const bool tensor = d.fragment != Fragment::kNone;
  const std::int64_t shared = cuda_shared_bytes(d);
  if (shared > kH200SharedPerBlock) {
    fail("cuda-shared-capacity", cat(shared, " bytes of shared memory per block exceed the H200's ", kH200SharedPerBlock));
  }
  const VortexConfig& v = d.vortex;
  if (const auto p = v.problem()) {
    fail("vortex-config", cat("vortex ", v.cores, " cores x ", v.warps, " warps x ", v.threads, " threads, ",
                              v.local_mem_bytes, " B local memory: ", p->field, " ", p->what));
    return;
  }
  if (f.block_size > static_cast<std::int64_t>(v.warps) * v.threads) {
    fail("vortex-block-fit", cat("a block of ", f.block_size, " threads does not fit a core of ", v.warps, " warps x ",
                                 v.threads, " threads"));
    return;
  }
  if (tensor) {
    // The Vortex side runs each CUDA warp's tile on one 32-thread Vortex warp with the unit's
    // 16 x 16 x 32 tiles.
    const int warp_m = t.m / d.warps.m, warp_n = t.n / d.warps.n;
    if (v.threads != static_cast<uint32_t>(kVortexTensorThreads)) {
      fail("vortex-tensor-tile", cat("tensor-core designs run on 32-thread Vortex warps (vortex threads = ", v.threads, ")"));
    } else if (warp_m % kVortexTileM != 0 || warp_n % kVortexTileN != 0 || t.k % kVortexTileK != 0) {
      fail("vortex-tensor-tile", cat("warp tile ", warp_m, "x", warp_n, " and k-step ", t.k,
                                     " must be multiples of the Vortex tensor tile 16x16x32"));
    }
  }
  {
    // RV32: the Vortex kernel indexes with 32-bit integers.
    std::int64_t largest = d.op.output().shape.empty() ? 0 : ops::shape_numel(d.op.output().shape);
    for (const auto& input : d.op.inputs()) largest = std::max(largest, ops::shape_numel(input.shape));
    largest = std::max(largest, std::int64_t(d.split_k) * f.shape.batch * f.shape.m * f.shape.n);
    if (d.boundary == Boundary::kPadded) {
      const std::int64_t kp = ceil_div(f.shape.k, t.k) * t.k;
      largest = std::max({largest, f.shape.batch * ceil_div(f.shape.m, t.m) * t.m * kp,
                          f.shape.batch * ceil_div(f.shape.n, t.n) * t.n * kp});
    }
    if (largest >= (std::int64_t(1) << 31)) {
      fail("vortex-index-range", cat("a tensor or workspace of ", largest, " elements is beyond the Vortex kernel's 32-bit indices"));
    }
  }
  const std::int64_t local = vortex_local_bytes(d) * vortex_blocks_per_core(d);
  if (local > v.local_mem_bytes) {
    fail("vortex-local-capacity", cat(vortex_blocks_per_core(d), " resident blocks x ", vortex_local_bytes(d),
                                      " B of local memory exceed the core's ", v.local_mem_bytes, " B"));
  }
}

std::vector<Rule>& added_rules() {
  static std::vector<Rule> rules;
  return rules;
}

}  // namespace

void add_rule(Rule rule) {
  for (const auto& [id, description] : rule_descriptions()) {
    if (id == rule.id) throw WorkError("validity rule \"" + rule.id + "\" exists");
  }
  added_rules().push_back(std::move(rule));
}

std::vector<Violation> all_violations(const DesignPoint& d) {
  std::vector<Violation> out;
  check(d, out);
  for (const auto& rule : added_rules()) {
    if (auto detail = rule.check(d)) out.push_back({rule.id, *detail});
  }
  return out;
}

std::optional<Violation> can_implement(const DesignPoint& d) {
  auto all = all_violations(d);
  if (all.empty()) return std::nullopt;
  return all.front();
}

void require_valid(const DesignPoint& d, const std::string& file) {
  if (auto v = can_implement(d)) throw InputError(file, "axes", "invalid design (rule " + v->rule + "): " + v->detail);
}

const std::vector<std::pair<std::string, std::string>>& rule_descriptions() {
  static std::vector<std::pair<std::string, std::string>> rules;
  static const std::vector<std::pair<std::string, std::string>> built_in = {
      {"fixed-precision", "fixed.precision is the op's precision path"},
      {"fixed-shape", "fixed.shape is the op's GEMM view (batch, M, N, K)"},
      {"block-size", "the block is a multiple of 32 threads up to 1024, and the tile / register tile fills it exactly"},
      {"engine-class", "simt designs use no fragments; tensor_core designs use one"},
      {"fragment-dtype", "a k8 shape for tf32, a k16 shape for bf16/fp16, none for fp32"},
      {"tile-range", "tile m, n in 1..256, k in 1..64"},
      {"register-tile-range", "register tile m, n positive"},
      {"warp-arrangement", "warps m x n = block / 32, and the thread grid splits into them"},
      {"register-tile", "the register tile divides the tile"},
      {"register-budget", "at most 64 accumulators per thread (SIMT) or 16 fragments per warp"},
      {"tile-fragments", "tensor-core tile = warps x fragments per warp x fragment shape; k a multiple of fragment k"},
      {"tensor-staging", "tensor-core fragments load from shared memory (staging ab)"},
      {"fragment-load", "fragment_load vector4: a SIMT design whose register tile is a multiple of 4 in m and n"},
      {"shared-pad", "shared_pad words4: a SIMT design with a staged operand"},
      {"prefetch-staging", "prefetch fills staged tiles, so it needs staging"},
      {"cp-async-stages", "prefetch cp_async: pipeline_stages (the cp.async ring) is 2..8"},
      {"cp-async-element", "prefetch cp_async copies raw bytes: fp32/tf32 storage, or 16-bit tensor tiles whose 4-byte "
                           "pairs along k are contiguous and aligned (linear, matmul with K-contiguous operands, even K, "
                           "or boundary padded)"},
      {"lane-unstaged", "a reversed lane mapping applies to a staged operand only"},
      {"activation-strip", "only an op with a fused activation can strip it"},
      {"split-k", "1 <= split_k <= min(64, number of K tiles)"},
      {"split-reduce", "split_reduce serial or serial_vector4: split_k > 1"},
      {"split-reduce-runs", "split_reduce serial_vector4: fragment_load vector4 (a SIMT design)"},
      {"split-reduce-family", "split_reduce other than separate: GEMM designs outside the Hopper and transform families"},
      {"cuda-shared-capacity", "shared memory per block <= 227 KiB (H200)"},
      {"vortex-config", "Vortex cores 1..64, warps/threads powers of two <= 32, local memory 1..64 KiB"},
      {"vortex-block-fit", "a block fits one Vortex core (warps x threads)"},
      {"vortex-tensor-tile", "tensor-core designs: 32-thread Vortex warps, warp tile a multiple of 16x16, k-step of 32"},
      {"vortex-index-range", "every tensor and workspace of the Vortex side has fewer than 2^31 elements"},
      {"vortex-local-capacity", "resident blocks x local tiles fit the core's local memory"},
  };
  rules = built_in;
  for (const auto& r : transform_rule_descriptions()) rules.push_back(r);
  for (const auto& r : hopper_rule_descriptions()) rules.push_back(r);
  for (const auto& rule : added_rules()) rules.emplace_back(rule.id, rule.description);
  return rules;
}

}  // namespace vxsynth::design
