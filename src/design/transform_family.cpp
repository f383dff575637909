#include "design/transform_family.h"

#include <algorithm>
#include <sstream>

#include "common/error.h"
#include "design/util.h"

namespace vxsynth::design {
namespace {

using util::cat;
using util::next_pow2;
using util::ceil_div;

char lane_letter(LaneMap l) { return l == LaneMap::kForward ? 'f' : 'r'; }

constexpr int kMaxGridYZ = 65535;

}  // namespace

bool is_transform(const DesignPoint& d) { return d.op.kind == ops::OpKind::layout_transform; }

TransposeView transpose_view(const ops::OpSpec& op) {
  TransposeView v;
  v.batch = op.transform.batch;
  const std::int64_t c = op.transform.channels, p = op.transform.positions();
  const bool from_first = op.transform.from == ops::ConvLayout::channels_first;
  v.rows = from_first ? c : p;
  v.cols = from_first ? p : c;
  return v;
}

TransformGeometry transform_geometry(const DesignPoint& d) {
  TransformGeometry g;
  const Tile& t = d.tile;
  const RegisterTile& r = d.register_tile;
  if (r.m > 0 && r.n > 0) {
    g.read_row_groups = t.m / r.m;
    g.read_col_groups = t.n / r.n;
    g.write_row_groups = t.n / r.m;
    g.write_col_groups = t.m / r.n;
  }
  g.staged = d.staging != Staging::kNone;
  g.reads_coalesced = d.lane_a == LaneMap::kForward;
  g.writes_coalesced = d.lane_b == LaneMap::kForward;
  // Tiled: both sides move vectors along their contiguous dimension. Direct: only the coalesced
  // side does (the other side's elements of one thread are a row apart).
  g.read_vectors = r.n > 1 && (g.staged || g.reads_coalesced);
  g.write_vectors = r.n > 1 && (g.staged || !g.reads_coalesced);
  g.tile_ld = t.n + 1;
  return g;
}

std::int64_t transform_tile_bytes(const DesignPoint& d) {
  if (d.staging == Staging::kNone) return 0;
  return std::int64_t(d.tile.m) * (d.tile.n + 1) * ops::dtype_size(ops::storage_dtype(d.fixed.precision));
}

std::string transform_procedural_name(const DesignPoint& d) {
  std::ostringstream s;
  s << ops::to_string(d.op.kind) << '_' << ops::to_string(d.fixed.precision) << '_' << to_string(d.fixed.engine)
    << "_b" << d.fixed.block_size << "_t" << d.tile.m << 'x' << d.tile.n << "_r" << d.register_tile.m << 'x'
    << d.register_tile.n << "_s" << to_string(d.staging) << '_' << lane_letter(d.lane_a) << lane_letter(d.lane_b)
    << "_ro-" << to_string(d.read_once) << '_' << to_string(d.boundary) << "_k"
    << (d.k_range == KRange::kGeneric ? "gen" : "fix") << "_scale-" << to_string(d.scale);
  // Later axes only when moved from their defaults: the names of earlier designs stay.
  if (d.read_guard != ReadGuard::kPredicated) s << "_rg-" << to_string(d.read_guard);
  if (d.param_reads != ParamReads::kHoisted) s << "_pr-" << to_string(d.param_reads);
  if (d.index_type != IndexType::kInt64) s << "_idx-" << to_string(d.index_type);
  if (d.entry_reads != 0) s << "_er" << d.entry_reads;
  if (d.index_math != IndexMath::kTile) s << "_im-" << to_string(d.index_math);
  return s.str();
}

void check_transform(const DesignPoint& d, std::vector<Violation>& out) {
  auto fail = [&out](const char* rule, std::string detail) { out.push_back({rule, std::move(detail)}); };
  const int block = d.fixed.block_size;
  if (d.fixed.engine != EngineClass::kSimt || d.fragment != Fragment::kNone) {
    fail("transform-engine", "a layout transform moves data: engine class simt, tensor_core none");
  }
  // Axes with no meaning for a transpose keep one value.
  if (d.prefetch != Prefetch::kNone) fail("transform-fixed-axes", cat("prefetch ", to_string(d.prefetch), ": a transform has no k loop to prefetch (none)"));
  if (d.activation != ActivationPlacement::kFused) fail("transform-fixed-axes", "activation stripped: a transform has no activation (fused)");
  if (d.split_k != 1) fail("transform-fixed-axes", cat("split_k ", d.split_k, ": a transform has no reduction to split (1)"));
  if (d.shared_pad != SharedPad::kNone) {
    fail("transform-fixed-axes", cat("shared_pad ", to_string(d.shared_pad), ": a transform pads its tile by its own rule (none)"));
  }
  if (d.fragment_load != FragmentLoad::kStrided) {
    fail("transform-fixed-axes", cat("fragment_load ", to_string(d.fragment_load), ": a transform has no register tile of a GEMM (strided)"));
  }
  if (d.warps.m != block / kCudaWarpSize || d.warps.n != 1) {
    fail("transform-fixed-axes", cat("warps ", d.warps.m, "x", d.warps.n, ": a transform has no warp tiles (", block / kCudaWarpSize, "x1)"));
  }
  if (d.read_guard == ReadGuard::kColumnBranch && d.staging != Staging::kA) {
    fail("transform-read-guard", "read_guard column_branch branches over the read phase of a staged tile: shared_staging a");
  }
  if (d.param_reads == ParamReads::kAtStore && d.staging != Staging::kA) {
    fail("transform-param-reads", "param_reads at_store re-reads the parameters in a staged tile's write phase: shared_staging a");
  }
  if (d.entry_reads < 0 || d.entry_reads > kMaxEntryReads || d.entry_reads % kEntryReadsStep != 0) {
    fail("transform-entry-reads", cat("entry_reads ", d.entry_reads, ": 0..", kMaxEntryReads, " in steps of ", kEntryReadsStep));
  }
  if (d.index_type == IndexType::kInt32) {
    // Every element offset the kernel forms (batch x rows x cols) must fit a signed 32-bit index.
    const TransposeView v = transpose_view(d.op);
    if (v.batch * v.rows * v.cols > 2147483647LL) {
      fail("transform-index-type", cat("index_type int32: the tensor has ", v.batch * v.rows * v.cols,
                                       " elements, beyond a 32-bit index (2^31 - 1)"));
    }
  }
  if (d.staging != Staging::kNone && d.staging != Staging::kA) {
    fail("transform-staging", cat("shared_staging ", to_string(d.staging), ": a transform stages its one input tile (a) or nothing (none)"));
  }
  if (d.boundary == Boundary::kPadded) {
    fail("transform-boundary", "boundary padded: a transform has no reduction to pad (guarded or uniform_branch)");
  }
  const Tile& t = d.tile;
  const RegisterTile& r = d.register_tile;
  if (t.m <= 0 || t.n <= 0 || t.m > kMaxTileDim || t.n > kMaxTileDim || t.k != 1) {
    fail("tile-range", cat("tile ", t.m, "x", t.n, "x", t.k, ": m, n in 1..", kMaxTileDim, ", k = 1 for a transform"));
    return;
  }
  if (r.m <= 0 || r.n <= 0) {
    fail("register-tile-range", cat("register tile ", r.m, "x", r.n, " must be positive"));
    return;
  }
  const TransformGeometry g = transform_geometry(d);
  // Threads: each phase covers the tile exactly with the block.
  if (t.m % r.m != 0 || t.n % r.n != 0 || g.read_row_groups * g.read_col_groups != block) {
    fail("transform-threads", cat("reads: tile ", t.m, "x", t.n, " / (", r.m, " rows x ", r.n,
                                  " wide vectors) must give exactly the block's ", block, " threads"));
    return;
  }
  const bool write_phase = g.staged || !g.reads_coalesced;
  if (write_phase && (t.n % r.m != 0 || t.m % r.n != 0 || g.write_row_groups * g.write_col_groups != block)) {
    fail("transform-threads", cat("writes: the transposed tile ", t.n, "x", t.m, " / (", r.m, " rows x ", r.n,
                                  " wide vectors) must give exactly the block's ", block, " threads"));
    return;
  }
  if (r.m * r.n > kMaxThreadOutputs) {
    fail("register-budget", cat("register tile ", r.m, "x", r.n, " moves more than ", kMaxThreadOutputs, " elements a thread"));
  }
  // Vectors: a power of two of at most 16 bytes that never straddles a row end.
  const int elem = static_cast<int>(ops::dtype_size(ops::storage_dtype(d.fixed.precision)));
  if ((r.n & (r.n - 1)) != 0 || r.n * elem > 16) {
    fail("transform-vector", cat("vector width ", r.n, " x ", elem, " B: a power of two of at most 16 bytes"));
  } else {
    const TransposeView v = transpose_view(d.op);
    if (g.read_vectors && v.cols % r.n != 0) {
      fail("transform-vector", cat("reads of ", r.n, " elements: the input's contiguous dimension (", v.cols,
                                   ") is not a multiple"));
    }
    if (g.write_vectors && v.rows % r.n != 0) {
      fail("transform-vector", cat("writes of ", r.n, " elements: the output's contiguous dimension (", v.rows,
                                   ") is not a multiple"));
    }
  }
  if (!g.staged && d.lane_a == d.lane_b) {
    fail("transform-direct-lanes", cat("a direct transform has one thread mapping, so exactly one side is coalesced "
                                       "(lane_mapping a/b = ", to_string(d.lane_a), "/", to_string(d.lane_b), ")"));
  }
  const TransposeView v = transpose_view(d.op);
  if (ceil_div(v.rows, t.m) > kMaxGridYZ || v.batch > kMaxGridYZ) {
    fail("transform-grid", cat("grid y = ", ceil_div(v.rows, t.m), " row tiles and z = ", v.batch,
                               " transposes must be at most ", kMaxGridYZ));
  }
}

const std::vector<std::pair<std::string, std::string>>& transform_rule_descriptions() {
  static const std::vector<std::pair<std::string, std::string>> rules = {
      {"transform-engine", "layout transforms: simt, no tensor-core fragments"},
      {"transform-fixed-axes", "layout transforms: prefetch none, activation fused, split_k 1, warps block/32 x 1"},
      {"transform-staging", "layout transforms: shared_staging none (direct) or a (tiled)"},
      {"transform-boundary", "layout transforms: boundary guarded or uniform_branch"},
      {"transform-threads", "layout transforms: tile / register tile gives the block's threads in the read phase and, "
                            "when there is one, the write phase"},
      {"transform-vector", "layout transforms: vector width a power of two <= 16 bytes dividing the vectorised side's "
                           "contiguous dimension"},
      {"transform-direct-lanes", "layout transforms: a direct design coalesces exactly one side"},
      {"transform-grid", "layout transforms: at most 65535 row tiles and transposes (grid y, z)"},
      {"scale-family", "scale = alpha belongs to the layout-transform family"},
      {"transform-read-guard", "layout transforms: read_guard column_branch needs a staged tile (shared_staging a)"},
      {"read-guard-family", "read_guard other than predicated belongs to the layout-transform family"},
      {"transform-param-reads", "layout transforms: param_reads at_store needs a staged tile (shared_staging a)"},
      {"param-reads-family", "param_reads other than hoisted belongs to the layout-transform family"},
      {"transform-index-type", "layout transforms: index_type int32 needs a tensor of fewer than 2^31 elements"},
      {"transform-entry-reads", "layout transforms: entry_reads 0..16 in steps of 4"},
      {"index-type-family", "index_type, entry_reads and index_math other than int64, 0 and tile belong to the layout-transform family"},
  };
  return rules;
}

DesignPoint seed_transform(const ops::OpSpec& op, int block_size, const std::string& reference,
                           const std::string& source) {
  if (block_size <= 0 || block_size % kCudaWarpSize != 0 || block_size > kCudaMaxBlock) {
    throw InputError(source, "block", "block size " + std::to_string(block_size) + " must be a multiple of 32 in 32..1024");
  }
  DesignPoint d;
  d.reference = reference;
  d.op = op;
  d.fixed = {EngineClass::kSimt, op.precision, block_size, op.gemm_view()};
  d.staging = Staging::kA;
  d.read_once = ReadOnce::kDefault;
  d.lane_a = d.lane_b = LaneMap::kForward;
  d.prefetch = Prefetch::kNone;
  d.fragment = Fragment::kNone;
  d.activation = ActivationPlacement::kFused;
  d.split_k = 1;
  d.warps = {block_size / kCudaWarpSize, 1};
  d.boundary = Boundary::kGuarded;
  d.k_range = KRange::kGeneric;
  d.scale = Scale::kAlpha;
  d.vortex.cores = 1;
  d.vortex.threads = block_size > 512 ? 32 : 16;
  d.vortex.warps = std::max(1, next_pow2((block_size + d.vortex.threads - 1) / d.vortex.threads));
  // The 32-column tile of cuDNN's kernel; the rows and the elements a thread moves follow the
  // block (256 threads: 32 x 32, 4 elements). Scalar accesses: the vector width is a move.
  std::string last;
  for (const int tn : {32, 64, 16, 8}) {
    for (const int rm : {4, 2, 8, 1, 16}) {
      const std::int64_t tm = std::int64_t(block_size) * rm / tn;
      if (tm <= 0 || tm * tn != std::int64_t(block_size) * rm || tm > kMaxTileDim) continue;
      d.tile = {static_cast<int>(tm), tn, 1};
      d.register_tile = {rm, 1};
      d.vortex.local_mem_bytes =
          std::clamp(next_pow2(4 * transform_tile_bytes(d) * std::max(1, vortex_blocks_per_core(d))), 16384, 65536);
      const auto v = can_implement(d);
      if (!v) return d;
      last = v->rule + ": " + v->detail;
    }
  }
  throw InputError(source, "", "no valid layout-transform seed for block size " + std::to_string(block_size) + " (" + last + ")");
}

}  // namespace vxsynth::design
