// The twelve optimization axes of a design point (docs/design-space.md). Each axis is a small
// type whose values are scoped enums or small integers; each value selects exactly one
// component in the CUDA and the Vortex emitters (src/codegen).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vxsynth::design {

// 1. Shared-memory staging: which operands are copied through shared (CUDA) / local (Vortex)
//    memory tiles before the mainloop reads them.
enum class Staging { kNone, kA, kB, kAB };

// 2. Read-once staging: the cache-residency policy of operand loads that are read once.
//    kDefault = ordinary loads, kReadOnly = the non-coherent read-only path (__ldg),
//    kStreaming = evict-first streaming loads (__ldcs).
enum class ReadOnce { kDefault, kReadOnly, kStreaming };

// 3. Lane-contiguous mapping of one operand's global loads: kForward = consecutive threads
//    read consecutive addresses (the operand's contiguous dimension), kReversed = consecutive
//    threads walk the other dimension.
enum class LaneMap { kForward, kReversed };

// 4. Tile dimensions of one block: m x n outputs, k reduction step.
struct Tile {
  int m = 64, n = 64, k = 8;
  bool operator==(const Tile&) const = default;
};

// 5. Register tiling / ILP: outputs per thread (SIMT) or WMMA fragments per warp (tensor core),
//    m x n.
struct RegisterTile {
  int m = 4, n = 4;
  bool operator==(const RegisterTile&) const = default;
};

// 6. Software prefetching (instead of async copies): kRegisters = the next k-tile is loaded
//    into registers while the current one is computed; kDoubleBuffer = it is stored into the
//    second of two shared/local tiles.
enum class Prefetch { kNone, kRegisters, kDoubleBuffer, kTma, kCpAsync };
// kTma (Hopper family only, design/hopper_family.h): the operands arrive by bulk tensor copies
// (TMA, cp.async.bulk.tensor) into a ring of pipeline_stages shared tiles, completion on
// mbarriers, issued by one producer warpgroup. Vortex has no asynchronous copies: its side is a
// software-pipelined prefetch into local memory (the method's substitution).
// kCpAsync (sm80-class designs: neither Hopper nor transform; added after the others, so it is
// last in the domain): the staged tiles are a ring of pipeline_stages shared tiles filled
// pipeline_stages - 1 k-tiles ahead by cp.async (global -> shared without a register round trip,
// out-of-range elements zero-filled by the copy), one commit group per k-tile, as CUTLASS's and
// cuBLAS's sm80 multistage kernels do. Vortex has no asynchronous copy: the same ring is filled by
// ordinary (synchronous) word copies, with the barriers in the same places.

// 7. Tensor-core lowering: the fragment shape (kNone = SIMT FMA): WMMA shapes (k16 for
//    bf16/fp16, m16n16k8 for tf32) or PTX mma.sync shapes (mma_m16n8k16 for bf16/fp16,
//    mma_m16n8k8 for tf32).
//    kWgmmaK16 / kWgmmaK8 (Hopper family only): warpgroup MMA wgmma.mma_async m64nNk16 (bf16,
//    fp16) / m64nNk8 (tf32), N = tile.n, operands from shared-memory descriptors.
enum class Fragment { kNone, kM16N16K16, kM32N8K16, kM8N32K16, kM16N16K8, kMmaM16N8K16, kMmaM16N8K8, kWgmmaK16, kWgmmaK8 };
bool is_mma_sync(Fragment f);
bool is_wgmma(Fragment f);

// 8. Fused-activation stripping: the GEMM epilogue applies the activation (kFused) or a
//    separate elementwise pass does (kStripped).
enum class ActivationPlacement { kFused, kStripped };

// 9. Split-K without atomics: the number of K slices (1 = none); > 1 writes partial sums and
//    a reduction pass adds them.
// (an int in DesignPoint::split_k)

// 10. Per-block decomposition: the warp arrangement inside the fixed block, m x n warps.
struct WarpArrangement {
  int m = 2, n = 2;
  bool operator==(const WarpArrangement&) const = default;
};

// 11. Boundary handling: kGuarded = every global access is predicated; kPadded = a pre-pass
//     copies the operands into zero-padded tile multiples so the mainloop has no predicates;
//     kUniformBranch = interior blocks take an unpredicated path, edge blocks the predicated
//     one (the branch is uniform over the block).
enum class Boundary { kGuarded, kPadded, kUniformBranch };

// 12. Generic K range: K read at run time (kGeneric) or compiled in as a constant (kFixed).
enum class KRange { kGeneric, kFixed };

// Layout-transform family only (docs/design-space.md, "Layout transforms"): how an element is
// moved. kNone = its bits are copied as an integer; kAlpha = it passes through the FPU as
// alpha * x with alpha = 1 read at run time, as cuDNN's transform kernels do (one FMUL per
// element: exact for every non-NaN value, and the arithmetic intensity of the vendor kernel).
// kAlphaInRange = the same multiply, done only by the lanes whose element is inside the tensor
// (inside the guarded store, after the tile is read), as cuDNN's nchwToNhwc kernels do: one FMUL
// per element moved, and the edge tiles' idle lanes inactive (kAlpha multiplies every lane's
// staged value, so a tile reaching past a short dimension multiplies 2.6x the elements).
enum class Scale { kNone, kAlpha, kAlphaInRange };
inline bool scales(Scale s) { return s != Scale::kNone; }

// Hopper family only (design/hopper_family.h): axes of their own (13-16, 18-22).
// 13. Pipeline stages: the depth of the TMA ring (2..8, bounded by shared memory), or of the
//     cp.async ring of a prefetch cp_async design (2..8, bounded by shared memory); 1 elsewhere.
// (an int in DesignPoint::stages)
// 14. Raster: which tile index consecutive blocks walk. kNMajor = blockIdx.x walks the N tiles
//     (consecutive blocks share one A tile), kMMajor = it walks the M tiles (they share one B
//     tile in L2).
enum class Raster { kNMajor, kMMajor };
// 15. Epilogue store: kDirect = each thread stores its accumulators with ordinary stores;
//     kTma = the warpgroup's tile is staged in shared memory and stored with one bulk tensor copy;
//     kTmaSwizzled = the same, staged as 128-byte-swizzled boxes of 128-byte rows (the copy
//     engine's SWIZZLE_128B) so the staging writes are free of shared-memory bank conflicts, one
//     bulk copy per box.
enum class EpilogueStore { kDirect, kTma, kTmaSwizzled };
// A bulk-store epilogue (kTma or kTmaSwizzled): the tile leaves through the copy engine.
inline bool is_bulk_store(EpilogueStore e) { return e != EpilogueStore::kDirect; }
// 18 (listed after cluster). Bias load: kGlobal = the epilogue reads the bias with ordinary
//     loads; kTma = the producer copies the block's bias slice into shared memory with one bulk
//     tensor copy, so the kernel issues no ordinary global load at all (as nvjet's kernels do).
//     Only for an op with a bias.
enum class BiasLoad { kGlobal, kTma, kPaired };
// 16. Cluster: thread-block clusters of m x n blocks (m along the M tiles); 1 x 1 = none. Vortex
//     has no clusters (its side records that).
struct Cluster {
  int m = 1, n = 1;
  bool operator==(const Cluster&) const = default;
};
// 19. Register split: kNone = every warpgroup keeps the registers the kernel starts with
//     (65536 / block); kSetMaxNReg = the producer warpgroup gives registers back
//     (setmaxnreg.dec) and the consumer warpgroups take them (setmaxnreg.inc), so a consumer
//     can hold a 64 x 256 fp32 accumulator without spilling (as cuBLAS's nvjet_sm90 kernels do).
enum class RegisterSplit { kNone, kSetMaxNReg };
// 20. wgmma groups in flight: how many committed wgmma groups a consumer leaves running before
//     it waits (1 or 2); the stage a group read is released once the group completed.
// (an int in DesignPoint::wgmma_in_flight)
// 21. Schedule: kGrid = one block per output tile (and K slice); kPersistent = one block per SM
//     walks the tiles, so the producer loads the next tile while the consumers finish this one.
enum class Schedule { kGrid, kPersistent };
// 22. tf32 rounding: wgmma reads an fp32 operand as tf32 by dropping its low 13 bits, where the
//     vendor's tf32 path rounds to nearest. kWorkspace = the operands are rounded by pre-passes
//     into the workspace (im2col for a convolution's input, a copy for the others); kShared = the
//     consumers round each stage in shared memory before their wgmmas, so no pass copies the
//     weights through DRAM (im2col still rounds what it copies). tf32 designs only.
enum class Tf32Round { kWorkspace, kShared };
// SIMT only (fragment none, neither Hopper nor transform): axis 23.
// 23. Fragment load: how a thread reads its register tile's operand values from the shared
//     tiles each k step. kStrided = its kTM (kTN) rows are strided by the thread grid, one
//     4-byte shared load each; kVector4 = they come in runs of four consecutive rows, one 16-byte
//     load per run (float4, as CUTLASS's SIMT GEMMs read their fragments): a quarter of the
//     shared-memory instructions for the same FMAs. The register tile's m and n are multiples
//     of four. Vortex has no vector loads: the same runs as four word loads.
enum class FragmentLoad { kStrided, kVector4 };
// 24. Shared pad: kNone = row k of a SIMT shared tile holds kBM (kBN) words; kWords4 = it holds
//     four more, so the staging stores of consecutive k (the copy walks k along a K-contiguous
//     operand) fall in distinct banks instead of one (an 8-way conflict with k-step 8), and rows
//     stay 16-byte aligned for vector4 fragments. The same layout in Vortex local memory.
enum class SharedPad { kNone, kWords4 };
// Hopper family: axis 25.
// 25. Consumer layout: how the consumer warpgroups share the block tile. kRows = consumer c owns
//     rows 64c .. 64c + 63 (tile m = 64 x consumers, each wgmma m64 x tile n); kColumns = every
//     consumer reads the one 64-row A slice and owns columns c N' .. (c + 1) N' - 1 (tile m = 64,
//     tile n = consumers x N', each wgmma m64 x N'), as cuBLAS's 64-row nvjet tiles at 384
//     threads do: a short M (51 rows) no longer pads the wgmma to 128 rows.
enum class ConsumerLayout { kRows, kColumns };
// 26. Read guard (layout transforms, staged designs): kPredicated = every lane runs the read
//     phase, its accesses predicated (nvcc if-converts them: no divergence); kColumnBranch = the
//     thread's first source element and tile slot first (every lane), then the lanes whose
//     column lies outside the tensor branch past the loads, and each access checks its row.
//     Where a tile overhangs the tensor's columns (5 of 32 on diffusion_policy's weights) the
//     loads run with few lanes active, as in cuDNN's transpose. Vortex: the same region between
//     vx_split and vx_join.
enum class ReadGuard { kPredicated, kColumnBranch };
// 27. Parameter reads (layout transforms, staged designs): kHoisted = the output pointer and
//     alpha are read once and kept in registers (the compiler's choice); kAtStore = each store of
//     the write phase reads them again from the constant bank (CUDA: a __constant__ copy indexed
//     by a per-thread run-time zero, so the compiler can neither keep nor merge them, and the
//     loads are per-thread LDCs, not uniform ULDCs), as cuDNN's transpose
//     does (LDC.64 and LDC before each guarded STG: its SM throughput is the ADU pipe's, 97-99 %).
//     Vortex: volatile loads from the kernel's argument block at each store.
enum class ParamReads { kHoisted, kAtStore };
// 28. Split-K reduction (GEMM designs with split_k > 1, outside the Hopper and transform
//     families): kSeparate = every slice stores its fp32 partial sums and a second kernel adds
//     them in slice order; kSerial = in the GEMM kernel itself, slice s of a tile waits for a
//     per-tile flag to read s (an acquire load), adds its sums to the running fp32 sums of slices
//     0..s-1 (ordinary global loads), stores them or, at the last slice, finishes the output,
//     then releases the flag to s+1. The sums are added in the same order as kSeparate's. As
//     cuDNN's and cuBLAS's in-kernel split-K (ACT's conv and sgemm_largek): one kernel, whose
//     fix-up reads are its only ordinary global loads when the mainloop copies with cp.async.
//     Vortex: the two passes of kSeparate (a spinning block could wait for one not yet
//     scheduled on its core).
//   kSerialVector4: kSerial whose running sums are read and written a run of four outputs at a
//     time (one 16-byte load and store per run; rows of the running sums padded to a multiple
//     of four). Needs fragment_load vector4, whose runs these are: with per-output accesses a
//     warp's fix-up loads use a quarter of each sector they touch (act-2, session 21). The sums
//     and their order are kSerial's.
enum class SplitReduce { kSeparate, kSerial, kSerialVector4 };
// Hopper family: axis 29.
// 29. Multicast: which operand tiles a block's copy engine delivers to the other blocks of its
//     cluster that need the same tile (cp.async.bulk.tensor .multicast::cluster). kA = the
//     blocks of a cluster row (same M tile, cluster.n of them) share A: each loads 1/cluster.n
//     of the A tile's rows for all of them; kB = the blocks of a cluster column (same N tile)
//     share B the same way; kAB = both. Every block still receives whole tiles; L2 serves each
//     shared tile once per group instead of once per block, as cuBLAS's clustered nvjet kernels
//     do (pi0-4: L2 hit rate 24.5 % against 40.6 % for per-block copies). A stage is free for
//     the next copy once the consumers of every block it was delivered to have released it.
enum class Multicast { kNone, kA, kB, kAB };
inline bool multicast_a(Multicast v) { return v == Multicast::kA || v == Multicast::kAB; }
inline bool multicast_b(Multicast v) { return v == Multicast::kB || v == Multicast::kAB; }
// Layout-transform family: axes 30 and 31.
// 30. Index type (layout transforms, CUDA side): kInt64 = the index arithmetic in 64 bits (any
//     tensor size); kInt32 = in 32 bits, for a tensor of fewer than 2^31 elements, as cuDNN's
//     transpose computes its addresses (its SASS: 32-bit IMADs, no .WIDE pairs); a launch on a
//     larger tensor is declined. Vortex computes in 32 bits either way (RV32).
enum class IndexType { kInt64, kInt32 };
// 31. Entry reads (layout transforms, an integer 0..16 in steps of 4): each thread reads that
//     many words of a constant-bank table through a per-thread index at entry, folded into the
//     output pointer as a zero. RETIRED: the reads compute nothing (a value that only moves a
//     counter), so the search no longer proposes it; it stays readable so the one lock made with
//     it (diffusion_policy-1) regenerates until the operator-scope re-lock replaces it.
//     index_math generic (axis 32) is the vendor work it stood for.
inline constexpr int kMaxEntryReads = 16, kEntryReadsStep = 4;
// 32. Index math (layout transforms): how a thread finds its tile and the addresses it moves.
//     kTile = the tile's origin from the three grid coordinates (column tile, row tile,
//     transpose), the strides compiled into the access expressions; kGeneric = the indexing of a
//     generic N-d layout kernel, as cuDNN's nchwToNhwc and CUTLASS's FastDivmod do: a 1-d grid of
//     tiles, each thread decoding its tile index over the view's dimensions (batch, row tiles,
//     column tiles) by fast division with the divisor, multiplier and shift of each dimension
//     read from the kernel's parameters in a loop over the dimension count (also a parameter),
//     and its input and output offsets summed over the dimensions' strides, read the same way.
//     Every decoded coordinate and offset feeds an address. Vortex: the same loop over the same
//     parameters in its argument block.
enum class IndexMath { kTile, kGeneric };
// Whether the GEMM kernel adds the K slices in turn (kSerial, kSerialVector4).
bool serial_reduce(SplitReduce v);
// The Hopper family also takes split_k (axis 9): K slices over the grid, fp32 partial sums in
// the workspace, added in slice order by a second pass (docs/design-space.md).

// Names as written in design.json and procedural names.
std::string to_string(Staging v);
std::string to_string(ReadOnce v);
std::string to_string(LaneMap v);
std::string to_string(Prefetch v);
std::string to_string(Fragment v);
std::string to_string(ActivationPlacement v);
std::string to_string(Boundary v);
std::string to_string(KRange v);
std::string to_string(Scale v);
std::string to_string(Raster v);
std::string to_string(EpilogueStore v);
std::string to_string(BiasLoad v);
std::string to_string(RegisterSplit v);
std::string to_string(Schedule v);
std::string to_string(Tf32Round v);
std::string to_string(FragmentLoad v);
std::string to_string(SharedPad v);
std::string to_string(ConsumerLayout v);
std::string to_string(ReadGuard v);
std::string to_string(ParamReads v);
std::string to_string(SplitReduce v);
std::string to_string(Multicast v);
std::string to_string(IndexType v);
std::string to_string(IndexMath v);

// Parsers: false when the name is unknown.
bool parse(const std::string& s, Staging& out);
bool parse(const std::string& s, ReadOnce& out);
bool parse(const std::string& s, LaneMap& out);
bool parse(const std::string& s, Prefetch& out);
bool parse(const std::string& s, Fragment& out);
bool parse(const std::string& s, ActivationPlacement& out);
bool parse(const std::string& s, Boundary& out);
bool parse(const std::string& s, KRange& out);
bool parse(const std::string& s, Scale& out);
bool parse(const std::string& s, Raster& out);
bool parse(const std::string& s, EpilogueStore& out);
bool parse(const std::string& s, BiasLoad& out);
bool parse(const std::string& s, RegisterSplit& out);
bool parse(const std::string& s, Schedule& out);
bool parse(const std::string& s, Tf32Round& out);
bool parse(const std::string& s, FragmentLoad& out);
bool parse(const std::string& s, SharedPad& out);
bool parse(const std::string& s, ConsumerLayout& out);
bool parse(const std::string& s, ReadGuard& out);
bool parse(const std::string& s, ParamReads& out);
bool parse(const std::string& s, SplitReduce& out);
bool parse(const std::string& s, Multicast& out);
bool parse(const std::string& s, IndexType& out);
bool parse(const std::string& s, IndexMath& out);

// All values of an enum axis, in domain order (neighbours step along this order).
template <typename E>
const std::vector<E>& all_values();

// The names of all values, for error messages ("one of a, b, c").
template <typename E>
std::string value_list();

// One more value of an enum axis, at run time, under `name`: to_string, parse, all_values and
// design.json then know it. A new value normally goes into the enum and its name table; this
// is for values that live outside the design part (a test's toy value, a plugin). WorkError
// when the value or the name is taken.
template <typename E>
void add_value(E value, const std::string& name);

// Fragment geometry (0 for kNone).
struct FragmentShape {
  int m = 0, n = 0, k = 0;
};
FragmentShape fragment_shape(Fragment f);
bool staged_a(Staging s);
bool staged_b(Staging s);

// The twelve axes of ARCHITECTURE.md, in its order, then the Hopper family's four, the
// layout-transform family's one, the Hopper family's later five (each written in design.json
// only for that family's designs) and the SIMT designs' fragment_load and shared_pad (written
// only when not at their defaults), the Hopper family's consumer_layout and the transform
// family's read_guard and param_reads, split_reduce, the Hopper family's multicast and the
// transform family's index_type and entry_reads (written only when not at their defaults); to_string
// gives the design.json key.
enum class Axis {
  kSharedStaging,
  kReadOnce,
  kLaneMapping,
  kTile,
  kRegisterTile,
  kPrefetch,
  kTensorCore,
  kActivation,
  kSplitK,
  kWarps,
  kBoundary,
  kKRange,
  kPipelineStages,
  kRaster,
  kEpilogueStore,
  kCluster,
  kScale,
  kBiasLoad,  // Hopper family (after scale: the axes were numbered as they came)
  kRegisterSplit,  // Hopper family
  kWgmmaInFlight,  // Hopper family
  kSchedule,       // Hopper family
  kTf32Round,      // Hopper family
  kFragmentLoad,   // SIMT designs
  kSharedPad,      // SIMT designs
  kConsumerLayout, // Hopper family
  kReadGuard,      // layout-transform family
  kParamReads,     // layout-transform family
  kSplitReduce,    // GEMM designs with split_k > 1
  kMulticast,      // Hopper family
  kIndexType,      // layout-transform family
  kEntryReads,     // layout-transform family (retired: read, never proposed)
  kIndexMath,      // layout-transform family
};
inline constexpr std::size_t kAxisCount = 32;
// The first kCommonAxisCount axes belong to every design; the rest to one family each.
inline constexpr std::size_t kCommonAxisCount = 12;
bool is_hopper_axis(Axis a);     // pipeline_stages, raster, epilogue_store, cluster, bias_load, register_split, wgmma_in_flight, schedule, tf32_round, consumer_layout, multicast
bool is_transform_axis(Axis a);  // scale, read_guard, param_reads, index_type, entry_reads, index_math
bool is_simt_axis(Axis a);       // fragment_load, shared_pad
bool is_split_axis(Axis a);      // split_reduce
// A family's own axis: optional in design.json (its default when absent).
inline bool is_family_axis(Axis a) {
  return is_hopper_axis(a) || is_transform_axis(a) || is_simt_axis(a) || is_split_axis(a);
}

std::string to_string(Axis a);
bool parse(const std::string& s, Axis& out);  // false on an unknown name
const std::vector<Axis>& all_axes();
inline std::size_t index_of(Axis a) { return static_cast<std::size_t>(a); }

// The axis names (to_string of all_axes()), in the order of ARCHITECTURE.md, then the Hopper
// family's, then the layout-transform family's.
const std::vector<std::string>& axis_names();

}  // namespace vxsynth::design
