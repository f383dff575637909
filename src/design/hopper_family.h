// The Hopper family (docs/design-space.md, "Hopper family"): GEMM and implicit-GEMM designs in
// the manner of cuBLAS's nvjet_sm90 and CUTLASS's sm90 kernels. One producer warpgroup issues
// bulk tensor copies (TMA) into a ring of `pipeline_stages` shared tiles, completion on
// mbarriers; `block / 128 - 1` consumer warpgroups each issue wgmma.mma_async m64nNk16 (bf16,
// fp16) or m64nNk8 (tf32) on a 64-row slice of the block tile, accumulators in registers.
//
// The family reuses the axes whose meaning carries over and fixes the others:
//   tensor_core      wgmma_m64k16 (bf16/fp16) | wgmma_m64k8 (tf32): fixed by the precision
//   prefetch         tma (fixed)
//   tile             m = 64 x consumer warpgroups (fixed by the block), n = the wgmma N (a
//                    multiple of 32 in 32..256), k = one 128-byte row (64 bf16/fp16, 32 tf32);
//                    with consumer_layout columns m = 64 and n = consumers x N' (N' the wgmma
//                    N, a multiple of 8; n at most 256, the copy engine's box)
//   pipeline_stages  2..8, bounded by shared memory
//   raster           n_major | m_major: which tile index consecutive blocks walk
//   epilogue_store   direct (ordinary stores) | tma (the tile goes out by one bulk copy) |
//                    tma_swizzled (staged as 128-byte-swizzled boxes: no bank conflicts)
//   cluster          m x n blocks, 1, 2 or 4 each, at most 8 (portable cluster size)
//   bias_load        global (the epilogue's ordinary loads) | tma (one bulk copy of the block's
//                    bias slice into shared memory); ops with a bias only
//   register_split   none | setmaxnreg (the producer gives registers to the consumers)
//   wgmma_in_flight  1 | 2 committed wgmma groups left running before a consumer waits
//   schedule         grid (a block per tile) | persistent (a block per SM walks the tiles)
//   split_k          1..64 K slices (fp32 partials in the workspace, a second pass adds them)
//   tf32_round       workspace (pre-passes round the tf32 operands) | shared (the consumers
//                    round each stage in shared memory); tf32 only
//   consumer_layout  rows (consumer c owns rows 64c..) | columns (the consumers share one
//                    64-row A slice, consumer c owns columns c N' .. (c + 1) N' - 1)
//   multicast        none | a | b | ab: the operand tiles the blocks of a cluster row (A) or
//                    column (B) share, each block copying a slice for all of them
//   fixed            shared_staging ab, lanes forward, read_once default, register_tile 1x1,
//                    warps = block/32 x 1, activation fused (the op has none),
//                    boundary guarded (the copy engine zero-fills, the epilogue predicates),
//                    k_range generic
//
// Vortex 2.x has neither asynchronous copies, warpgroup MMA nor clusters: the Vortex side of a
// Hopper design is its counterpart (vortex_counterpart): the WMMA design of the same block tile
// (as close as the block's warps allow) with a software-pipelined prefetch into local memory.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "design/design_point.h"
#include "design/validity.h"

namespace vxsynth::design {

// A design of this family: wgmma lowering or TMA copies (validity requires both together).
bool is_hopper(const DesignPoint& d);

// split_k > 1 with a bulk-store epilogue: the bulk copies write the fp32 partial sums
// [batch x slices][M][N] to the workspace, one 64-row x 128-byte box at a time through the A
// ring (reduce_split_k writes the output), instead of the finished tile.
inline bool bulk_stores_partials(const DesignPoint& d) { return d.split_k > 1 && is_bulk_store(d.epilogue_store); }

inline constexpr int kWarpgroupThreads = 128;
inline constexpr int kHopperMinStages = 2, kHopperMaxStages = 8;
inline constexpr int kHopperMaxInFlight = 2;
// register_split setmaxnreg: what the producer warpgroup keeps (CUTLASS's choice; it only issues copies).
inline constexpr int kHopperProducerRegisters = 40;
int hopper_consumers(const DesignPoint& d);         // block / 128 - 1
int hopper_tile_k(ops::PrecisionPath precision);    // elements of one 128-byte row
// The N of one consumer's wgmma (and its accumulator columns): tile n for consumer_layout rows,
// tile n / consumers for columns (0 when n does not divide).
int hopper_consumer_n(const DesignPoint& d);
// consumer_layout columns: the consumers share one 64-row A slice (tile m 64) and split tile n.
inline bool hopper_columns(const DesignPoint& d) { return d.consumer_layout == ConsumerLayout::kColumns; }
Fragment hopper_fragment(ops::PrecisionPath precision);

// Registers a thread of the kernel starts with (__launch_bounds__(block, 1): 65536 / block in
// steps of 8, at most 255), and what a consumer thread has for its accumulators and the rest:
// the same, or with register_split setmaxnreg what the producer's 128 threads give back, shared
// among the consumers (a multiple of 8; 232 at 384 threads, 152 at 512). 0 when the split
// does not apply (256 threads: one consumer already has 255).
int hopper_entry_registers(int block_size);
int hopper_consumer_registers(const DesignPoint& d);

// Dynamic shared memory of one block: the ring, its mbarriers and the 1024-byte alignment slack.
std::int64_t hopper_shared_bytes(const DesignPoint& d);

// e.g. "linear_bf16_hopper_b384_t128x128x64_st5_rm-m_major_ep-tma_c1x1_wgmma_m64k16"; the later
// axes add "_sk4", "_setmaxnreg", "_if2", "_persistent", "_round-shared", "_cols" when not at their defaults.
std::string hopper_procedural_name(const DesignPoint& d);

// The family's rules (after the fixed properties and the block size were checked); the Vortex
// counterpart is checked against every rule of the GEMM family.
void check_hopper(const DesignPoint& d, std::vector<Violation>& out);
const std::vector<std::pair<std::string, std::string>>& hopper_rule_descriptions();

// The Vortex side: the WMMA (tensor unit) design of the block whose tile is nearest the Hopper
// tile, both operands staged, double-buffered (the prefetch depth Vortex's pipeline offers) or
// unbuffered for one stage; the Hopper-only axes at their defaults. Uses d.vortex as it is.
DesignPoint vortex_counterpart(const DesignPoint& d);

// A Hopper seed for `op` at `block_size` (256, 384, 512): tile n 128, 4 stages, n-major raster,
// a bulk-store epilogue where the output takes one, the bias by bulk copy, no cluster; a documented and confirmed tile
// (`confirmed`, as seed_design takes it) sets n when the family can take it. nullopt and `why`
// set when the family cannot implement the op (layout, alignment, precision, block).
// `kernel_name` non-empty records the family choice in from_kernel_name.
std::optional<DesignPoint> seed_hopper(const ops::OpSpec& op, int block_size, const std::string& reference,
                                       const std::string& kernel_name, std::vector<KernelNameFact> confirmed,
                                       std::string* why);

// True when the kernel name is a Hopper tensor-core kernel (nvjet_sm90*, sm90_xmma*, *gmma*).
bool hopper_kernel_name(const std::string& kernel_name);

}  // namespace vxsynth::design
