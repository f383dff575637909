// The layout-transform family (docs/design-space.md, "Layout transforms"): designs for
// ops::OpKind::layout_transform, cuDNN's NCHW <-> NHWC re-layouts. Every such transform is a
// batch of 2-D transposes, seen from the input: x[batch][rows][cols] (cols contiguous) becomes
// y[batch][cols][rows] (rows contiguous). Channels first -> last: rows = channels,
// cols = positions; channels last -> first: rows = positions, cols = channels.
//
// The family reuses the axes whose meaning carries over and fixes the others:
//   shared_staging  none (direct: each element goes from global to global) | a (tiled: the tile
//                   goes through shared / local memory, padded by one element a row)
//   tile            m x n = rows x cols of the input a block moves; k = 1
//   register_tile   m = elements a thread moves per vector, strided over the tile's rows (the
//                   outputs' rows on the write side); n = vector width (consecutive elements
//                   moved as one access on the coalesced side)
//   lane_mapping    a = reads, b = writes: forward = consecutive threads walk that side's
//                   contiguous dimension (coalesced), reversed = they walk the other one. A
//                   direct design has one mapping: exactly one side is forward.
//   read_once       the cache policy of the reads
//   boundary        guarded (every access predicated) | uniform_branch (full tiles unpredicated)
//   k_range         generic (sizes from the problem) | fixed (sizes compiled in)
//   scale           none (bits copied as integers) | alpha (alpha * x in fp32, alpha = 1 at run
//                   time: one FMUL per element, as cuDNN's kernels do)
//   fixed           prefetch none, tensor_core none, activation fused, split_k 1,
//                   warps = block/32 x 1 (no GEMM warp tiles)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "design/design_point.h"
#include "design/validity.h"

namespace vxsynth::design {

bool is_transform(const DesignPoint& d);

// The transpose the op is, from the input's side.
struct TransposeView {
  std::int64_t batch = 1, rows = 1, cols = 1;
};
TransposeView transpose_view(const ops::OpSpec& op);

// Thread groups of the two phases: reads cover the tile as (tile.m / r.m) row groups x
// (tile.n / r.n) column groups; writes cover the transposed tile as (tile.n / r.m) x (tile.m / r.n).
struct TransformGeometry {
  int read_row_groups = 0, read_col_groups = 0;
  int write_row_groups = 0, write_col_groups = 0;
  bool staged = false;
  bool reads_coalesced = true, writes_coalesced = true;  // forward lane mapping on that side
  bool read_vectors = false, write_vectors = false;      // that side moves r.n elements at once
  int tile_ld = 0;  // elements per shared / local tile row (tile.n + 1)
};
TransformGeometry transform_geometry(const DesignPoint& d);

// Bytes of the shared (CUDA) / local (Vortex) tile of one block: 0 for a direct design.
std::int64_t transform_tile_bytes(const DesignPoint& d);

// e.g. "layout_transform_fp32_simt_b256_t32x32_r4x1_sa_ff_ro-default_guarded_kgen_scale-alpha".
std::string transform_procedural_name(const DesignPoint& d);

// The family's rules (after the fixed properties and the block size were checked), and the
// Vortex/H200 capacity rules every family shares are checked by validity.cpp.
void check_transform(const DesignPoint& d, std::vector<Violation>& out);
const std::vector<std::pair<std::string, std::string>>& transform_rule_descriptions();

// Seed: cuDNN's nchwToNhwcKernel at 256 threads (a 32 x 32 tile staged through shared memory
// padded to 33 columns, 4 elements a thread, coalesced reads and writes, alpha scaling); other
// block sizes keep the 32-wide tile and change the elements a thread moves.
DesignPoint seed_transform(const ops::OpSpec& op, int block_size, const std::string& reference,
                           const std::string& source);

}  // namespace vxsynth::design
