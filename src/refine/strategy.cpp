#include "refine/strategy.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "design/hopper_family.h"
#include "design/neighbours.h"
#include "design/no_op.h"
#include "design/validity.h"

namespace vxsynth::refine {

using design::Axis;
using design::Move;
using signature::MetricId;

namespace {

std::string fmt(double v, int digits = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

const RevisionRecord* find_record(const ChainState& c, int revision) {
  for (const auto& r : c.records) {
    if (r.revision == revision) return &r;
  }
  return nullptr;
}

bool has_signature(const RevisionRecord& r) { return r.d.has_value(); }

// A value with a prior of its own (ours). prefetch cp_async was expected to close the ACT
// proxies' speed gap (act-3: 105 against 217 GB/s at the same DRAM bytes). On the H200 (session
// 18, all five ACT chains from their locks) it raised the DRAM rate on act-2, act-4 and act-5,
// but it also took coalescing from 100 to 0 on all five: that metric counts ordinary global loads
// only, and those kernels kept none (the split-K locks add their bias in the reduction pass;
// act-5's conv has none), while the vendor's keep a few (act-3's: the bias). That costs 0.1 of D,
// so alone it is a named response of 0.05, no longer the first step tried.
double move_response(const ResponseTable& table, const Move& m, const design::DesignPoint& d, MetricId metric) {
  double v = table[design::index_of(m.axis)][signature::index_of(metric)];
  const bool dram_or_sm = metric == MetricId::kDramBandwidth || metric == MetricId::kComputeThroughput;
  if (m.axis == Axis::kPrefetch && m.direction == "to:" + design::to_string(design::Prefetch::kCpAsync)) {
    if (dram_or_sm || metric == MetricId::kOccupancy) v = std::max(v, 0.05);
  }
  if (m.axis == Axis::kPipelineStages && !design::is_hopper(d) && dram_or_sm) v = std::max(v, 0.05);
  return v;
}

}  // namespace

const ResponseTable& prior_responses() {
  // Magnitudes from the method's published responses (docs/refine.md, "Response table"): where
  // the paper gives a number it is used; a response it names without a number is 0.05; a
  // metric it says the axis leaves alone is 0.
  static const ResponseTable table = [] {
    ResponseTable t{};
    auto set = [&t](Axis a, MetricId m, double v) { t[design::index_of(a)][signature::index_of(m)] = v; };
    using M = MetricId;
    // Shared-memory staging (linear layers: L1 -0.55, coalescing +0.56, occupancy -0.15; work
    // per byte 0.05).
    set(Axis::kSharedStaging, M::kL1HitRate, 0.55);
    set(Axis::kSharedStaging, M::kCoalescing, 0.56);
    set(Axis::kSharedStaging, M::kL2HitRate, 0.16);
    set(Axis::kSharedStaging, M::kOccupancy, 0.15);
    set(Axis::kSharedStaging, M::kArithmeticIntensity, 0.05);
    set(Axis::kSharedStaging, M::kDramBandwidth, 0.05);
    // Read-once staging: the opposite direction on the traffic metrics (+0.52 L1 in the pi0 case).
    set(Axis::kReadOnce, M::kL1HitRate, 0.52);
    set(Axis::kReadOnce, M::kCoalescing, 0.16);
    set(Axis::kReadOnce, M::kL2HitRate, 0.16);
    set(Axis::kReadOnce, M::kArithmeticIntensity, 0.05);
    set(Axis::kReadOnce, M::kDramBandwidth, 0.05);
    // Lane-contiguous mapping: traffic metrics 0.16 on average, coalescing first.
    set(Axis::kLaneMapping, M::kCoalescing, 0.16);
    set(Axis::kLaneMapping, M::kL1HitRate, 0.16);
    set(Axis::kLaneMapping, M::kL2HitRate, 0.16);
    set(Axis::kLaneMapping, M::kArithmeticIntensity, 0.05);
    set(Axis::kLaneMapping, M::kDramBandwidth, 0.05);
    // Tile, register tile, prefetch: about 0.06 in both traffic and work-per-byte groups;
    // register tiling lowers occupancy by 0.07-0.13; prefetch raises DRAM bandwidth.
    for (Axis a : {Axis::kTile, Axis::kRegisterTile, Axis::kPrefetch}) {
      for (M m : {M::kL1HitRate, M::kL2HitRate, M::kCoalescing, M::kArithmeticIntensity, M::kDramBandwidth}) set(a, m, 0.06);
    }
    set(Axis::kRegisterTile, M::kOccupancy, 0.10);
    set(Axis::kTile, M::kOccupancy, 0.05);
    set(Axis::kPrefetch, M::kOccupancy, 0.05);
    set(Axis::kTile, M::kComputeThroughput, 0.05);
    // Tensor-core lowering: coalescing 0.91 (lane-to-element mapping).
    set(Axis::kTensorCore, M::kCoalescing, 0.91);
    set(Axis::kTensorCore, M::kTensorUtilization, 0.05);
    // Fused-activation stripping and the generic K range: set by the op in the seed.
    set(Axis::kActivation, M::kDramBandwidth, 0.05);
    set(Axis::kActivation, M::kComputeThroughput, 0.05);
    set(Axis::kKRange, M::kComputeThroughput, 0.05);
    // Split-K: DRAM bandwidth and achieved compute (more parallelism along K).
    set(Axis::kSplitK, M::kDramBandwidth, 0.05);
    set(Axis::kSplitK, M::kComputeThroughput, 0.05);
    set(Axis::kSplitK, M::kOccupancy, 0.05);
    set(Axis::kSplitK, M::kL2HitRate, 0.05);
    // Per-block decomposition: coalescing first.
    set(Axis::kWarps, M::kCoalescing, 0.16);
    set(Axis::kWarps, M::kL1HitRate, 0.05);
    set(Axis::kWarps, M::kOccupancy, 0.05);
    // Boundary handling: machine-busy metrics and the loads of the edge tiles.
    set(Axis::kBoundary, M::kActiveLaneFraction, 0.05);
    set(Axis::kBoundary, M::kOccupancy, 0.05);
    set(Axis::kBoundary, M::kCoalescing, 0.05);
    set(Axis::kBoundary, M::kL1HitRate, 0.05);
    // Bias by bulk copy (ours, not the method's): the Hopper proxies of pi0-5 and
    // diffusion_policy-2 that read their bias with ordinary loads sat 0.5-0.98 away on L1 hit
    // rate and 0.25-0.5 on coalescing (docs/measurements/h200-hopper.md).
    set(Axis::kBiasLoad, M::kL1HitRate, 0.5);
    set(Axis::kBiasLoad, M::kCoalescing, 0.4);
    // Where the finished tile (or split-K partials) leaves (ours): per-thread stores go through
    // L1, a bulk copy does not. Measured on the H200 (suite runs of 2026-12-01/02): direct
    // epilogues show L1 hit rates of 80-93 % on pi0-2/-4/-5 and 50-85 % on diffusion_policy-2
    // where the bulk stores and the vendor kernels show 0.
    set(Axis::kEpilogueStore, M::kL1HitRate, 0.5);
    // The Hopper family's later axes (ours): more wgmma work per stage and fewer idle phases
    // move the tensor pipe and compute throughput (pi0-2: 55 % tensor use against nvjet's 89 %).
    set(Axis::kRegisterSplit, M::kTensorUtilization, 0.05);
    set(Axis::kRegisterSplit, M::kComputeThroughput, 0.05);
    set(Axis::kWgmmaInFlight, M::kTensorUtilization, 0.05);
    set(Axis::kSchedule, M::kTensorUtilization, 0.05);
    set(Axis::kSchedule, M::kComputeThroughput, 0.05);
    set(Axis::kSchedule, M::kOccupancy, 0.05);
    // tf32 rounding in shared memory drops the weight copy's pass through DRAM.
    set(Axis::kTf32Round, M::kDramBandwidth, 0.05);
    set(Axis::kTf32Round, M::kCoalescing, 0.05);
    // 16-byte fragment loads cut a SIMT mainloop's shared-memory instructions to a quarter: the
    // kernel runs nearer its FMA bound, so throughput and the DRAM rate move (CUTLASS's SIMT
    // kernels read their fragments this way; ours were 1.6-2.2x slower at the same bytes).
    set(Axis::kFragmentLoad, M::kComputeThroughput, 0.1);
    set(Axis::kFragmentLoad, M::kDramBandwidth, 0.1);
    // Padded shared rows remove the staging stores' bank conflicts (8-way at k-step 8).
    set(Axis::kSharedPad, M::kComputeThroughput, 0.1);
    set(Axis::kSharedPad, M::kDramBandwidth, 0.1);
    // Columns: a 64-row tile (cuBLAS's 48x64 / 64x64 nvjet tiles at 384 threads), so a short M
    // stops padding the wgmma to 128 rows (pi0-4, M = 51: tensor work per DRAM byte 126 against
    // the vendor's 65), and more B rows per block change what L2 holds.
    set(Axis::kConsumerLayout, M::kArithmeticIntensity, 0.1);
    set(Axis::kConsumerLayout, M::kL2HitRate, 0.05);
    set(Axis::kConsumerLayout, M::kTensorUtilization, 0.05);
    // A branch over the read phase's columns (cuDNN's transpose): the loads run with the lanes
    // inside the tensor only, and the kernel issues fewer instructions per element (measured on
    // diffusion_policy-1/-4 by hand: lanes 1.0 -> 0.65, SM throughput 69-72 -> 78-82 %).
    set(Axis::kReadGuard, M::kActiveLaneFraction, 0.3);
    set(Axis::kReadGuard, M::kComputeThroughput, 0.1);
    // Parameters re-read from the constant bank at each store (cuDNN's transpose): the ADU pipe
    // (constant loads) becomes the busiest unit, as in cuDNN's kernel at 97-99 % where our
    // hoisted locks are ALU-bound at about 76 % (docs/measurements, session 18).
    set(Axis::kParamReads, M::kComputeThroughput, 0.3);
    // The split-K fix-up inside the GEMM kernel (cuDNN's conv, sgemm_largek): its reads of the
    // running sums are ordinary global loads, the only ones of a cp.async mainloop (whose
    // coalescing reads 0 without them, ACT's references about 90-100), and the partial-sum
    // traffic moves into the profiled kernel.
    set(Axis::kSplitReduce, M::kCoalescing, 0.3);
    set(Axis::kSplitReduce, M::kDramBandwidth, 0.05);
    set(Axis::kSplitReduce, M::kArithmeticIntensity, 0.05);
    // Multicast copies (cuBLAS's clustered nvjet kernels): a shared tile leaves DRAM once per
    // group where the blocks missed in L2 before (diffusion_policy-2, cluster 2x1 with b:
    // arithmetic intensity 62 -> 124 FLOP/B). ncu's L2 hit rate hardly moves (pi0-4 41.6 ->
    // 42.6 %, pi0-5 65.7 -> 68.9): L2 still serves each block its slices (session 23).
    set(Axis::kMulticast, M::kArithmeticIntensity, 0.1);
    set(Axis::kMulticast, M::kDramBandwidth, 0.05);
    // 32-bit index arithmetic: fewer instructions an element (no .WIDE pairs), so a transform
    // that issues as fast as it can runs shorter and moves more bytes a second (diffusion_policy-1
    // by hand: 191 -> 133 us, lanes 0.75 -> 0.63); per-thread reads at entry load the ADU pipe at
    // full lanes (with int32 and 8 reads: SM throughput 75.7 -> 97.2 %, lanes 0.75; session 23).
    set(Axis::kIndexType, M::kDramBandwidth, 0.1);
    set(Axis::kIndexType, M::kActiveLaneFraction, 0.1);
    set(Axis::kEntryReads, M::kComputeThroughput, 0.2);
    set(Axis::kEntryReads, M::kActiveLaneFraction, 0.05);
    // A generic layout kernel's indexing (cuDNN's nchwToNhwc): a fast-division decode of the tile
    // index and a stride sum per thread, its parameters read in a loop: more integer and constant
    // work an element, so more issue slots and a little lower lane use where tiles are partial.
    set(Axis::kIndexMath, M::kComputeThroughput, 0.2);
    set(Axis::kIndexMath, M::kActiveLaneFraction, 0.02);
    return t;
  }();
  return table;
}

ResponseTable BuiltinStrategy::responses(const ChainState& chain) const {
  ResponseTable sum = prior_responses();
  std::array<int, design::kAxisCount> n{};
  for (const auto& r : chain.records) {
    if (r.kind != "single" || r.moves.size() != 1 || !has_signature(r)) continue;
    const RevisionRecord* p = find_record(chain, r.parent);
    if (p == nullptr || !has_signature(*p)) continue;
    const auto a = design::index_of(r.moves[0].axis);
    ++n[a];
    for (const auto& m : signature::metric_table()) {
      const auto i = signature::index_of(m.id);
      if (r.signature[i] && p->signature[i]) {
        sum[a][i] += signature::metric_distance(m, *r.signature[i], *p->signature[i], options_.distance);
      }
    }
  }
  for (std::size_t a = 0; a < design::kAxisCount; ++a) {
    for (auto& v : sum[a]) v /= 1.0 + n[a];
  }
  return sum;
}

std::string same_operator_reason(const std::vector<Move>& moves, const design::DesignPoint& d) {
  static const std::map<Axis, std::string> why = {
      {Axis::kSharedStaging, "operands pass through shared (Vortex: local) memory tiles; every output is the same sum of the same products"},
      {Axis::kReadOnce, "only the cache policy of the loads changes, not the values loaded"},
      {Axis::kLaneMapping, "only which lane loads which element changes; the staged values and their order are kept"},
      {Axis::kTile, "a block covers another output tile or reduction step; each output is still the full sum over K"},
      {Axis::kRegisterTile, "threads (warps) own other sets of outputs; each output is the same sum"},
      {Axis::kPrefetch, "the next k-tile is loaded earlier; the same values are multiplied in the same order"},
      {Axis::kTensorCore, "another fragment shape of the same engine class and operand types; fp32 accumulation is kept"},
      {Axis::kActivation, "the activation runs as a separate elementwise pass on the same GEMM result"},
      {Axis::kSplitK, "K is cut into slices whose partial sums a reduction pass adds (no atomics): the sum is reassociated, within the tolerance"},
      {Axis::kWarps, "the block's warps are arranged differently over the same tile; the block size is kept"},
      {Axis::kBoundary, "edges are handled by padding or a uniform branch instead of predicates; out-of-range elements still contribute nothing"},
      {Axis::kKRange, "K becomes a compile-time constant equal to the op's K"},
      {Axis::kPipelineStages, "the copy engine runs more or fewer k-tiles ahead; the same tiles are multiplied in the same order"},
      {Axis::kRaster, "consecutive blocks walk the other tile index; every block still computes its own tile"},
      {Axis::kEpilogueStore, "the finished tile leaves through shared memory and one bulk copy instead of per-thread stores; the values are the same"},
      {Axis::kCluster, "blocks are launched in clusters (no data is shared between them); each block computes the same tile"},
      {Axis::kScale, "each element is copied as bits or passes the FPU as alpha * x with alpha = 1, exact for every non-NaN value; every element lands in the same place"},
      {Axis::kBiasLoad, "the bias slice reaches shared memory by one bulk copy instead of per-thread loads; the same value is added"},
      {Axis::kRegisterSplit, "the producer warpgroup hands registers to the consumers (setmaxnreg); the same wgmma sums are computed"},
      {Axis::kWgmmaInFlight, "a consumer waits for its wgmma groups one k-tile later; the same tiles are multiplied in the same order"},
      {Axis::kSchedule, "a block per SM walks the output tiles instead of a block per tile; every tile is the same sum"},
      {Axis::kTf32Round, "the tf32 operands are rounded to nearest (cvt.rna) in shared memory instead of by copies in the workspace; the same rounded values are multiplied"},
      {Axis::kSharedPad, "the shared tiles' rows are four words longer; the same values are staged and read"},
      {Axis::kConsumerLayout, "the consumer warpgroups split the tile's columns over one 64-row slice instead of its rows; each output is the same wgmma sum in the same K order"},
      {Axis::kFragmentLoad, "threads own runs of four consecutive rows and columns, read from the shared tiles as 16-byte vectors; each output is the same sum in the same K order"},
      {Axis::kParamReads, "each store reads the output pointer and alpha again from a constant copy of the same values; every element is stored to the same place with the same scale"},
      {Axis::kSplitReduce, "the K slices' partial sums are added in the GEMM kernel, slice after slice under a per-tile flag, instead of by a second kernel; each output is the same fp32 sum in the same slice order"},
      {Axis::kIndexType, "the element offsets are computed in 32 instead of 64 bits, for a tensor whose every offset fits (the host declines a larger one); every element is read from and stored to the same place"},
      {Axis::kEntryReads, "each thread reads zeros from a constant table at entry and adds them to the output pointer; every element is stored to the same place with the same value"},
      {Axis::kIndexMath, "each thread finds its tile by dividing a linear tile index over the view's dimensions and sums the strides for its offsets, with the divisors and strides read from the parameters; it moves the same tile, so every element lands in the same place"},
      {Axis::kMulticast, "a cluster's blocks copy slices of the operand tiles they share into each other's shared memory instead of each copying the whole tile; every block multiplies the same tiles in the same order"},
      {Axis::kReadGuard, "the lanes whose column lies outside the tensor skip the read phase by a branch instead of predicated accesses; every element in the tensor is read once and lands in the same place"},
  };
  std::string s;
  for (const auto& m : moves) s += (s.empty() ? "" : "; ") + design::to_string(m.axis) + ": " + why.at(m.axis);
  s += ". The op, engine class " + design::to_string(d.fixed.engine) + ", precision " +
       ops::to_string(d.fixed.precision) + ", block " + std::to_string(d.fixed.block_size) +
       " and shape are unchanged; the source-output check against the vendor operator confirms it.";
  return s;
}

namespace {

// Whether `d` holds a no-op value (design/no_op.h) that `from` does not: a move that only moves
// counters. Moves that drop one (entry_reads down) stay.
bool gains_no_op(const design::DesignPoint& from, const design::DesignPoint& d) {
  const auto before = design::no_op_values(from);
  for (const auto& v : design::no_op_values(d))
    if (std::none_of(before.begin(), before.end(), [&](const auto& b) { return b.axis == v.axis; })) return true;
  return false;
}

}  // namespace

std::vector<Proposal> BuiltinStrategy::propose(const ChainState& chain, int width, const AvailableFn& available) {
  std::vector<Proposal> out;
  if (width <= 0) return out;
  const ResponseTable table = responses(chain);
  auto candidate_of = [&](const design::DesignPoint& d) {
    Candidate c;
    c.chain = chain.name;
    c.key = design_key(d);
    c.design = d;
    return c;
  };
  auto score_of = [&](const std::vector<Move>& moves, std::vector<std::pair<double, std::size_t>>* parts) {
    std::array<double, signature::kMetricCount> cut{};
    for (const auto& m : moves) {
      for (std::size_t i = 0; i < signature::kMetricCount; ++i) {
        const double remaining = chain.current_distances[i].value_or(0.0);
        const MetricId metric = static_cast<MetricId>(i);  // index_of is the cast back
        cut[i] = std::max(cut[i], std::min(move_response(table, m, chain.current, metric), remaining));
      }
    }
    double score = 0;
    for (std::size_t i = 0; i < signature::kMetricCount; ++i) {
      score += cut[i];
      if (parts && cut[i] > 0) parts->push_back({cut[i], i});
    }
    if (parts) std::sort(parts->begin(), parts->end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    return score;
  };
  auto describe = [&](Proposal& p, double score, std::vector<std::pair<double, std::size_t>>& parts, const std::string& lead) {
    std::string why = lead;
    for (std::size_t k = 0; k < parts.size() && k < 2; ++k) {
      const auto i = parts[k].second;
      const std::string key(signature::metric_table()[i].key);
      p.targets.push_back(key);
      why += (k ? "; " : "") + key + " (distance " + fmt(chain.current_distances[i].value_or(0)) + ", expected cut " +
             fmt(parts[k].first) + ")";
    }
    why += "; expected total cut " + fmt(score);
    p.why = why;
    p.same_operator = same_operator_reason(p.moves, p.design);
  };

  // Reverted single moves from the retained design; and for a failed step, what its opposite
  // is expected to take off: the per-metric distances the failed step made worse.
  std::vector<const RevisionRecord*> reverted_here;
  struct Mirror {
    std::array<double, signature::kMetricCount> gain{};
    double total = 0;
    int revision = 0;
  };
  std::map<std::pair<Axis, std::string>, Mirror> mirror;  // (axis, opposite direction) -> what it may take back
  int reverted_since_retain = 0;
  for (const auto& r : chain.records) {
    if (r.decision == "retained") reverted_since_retain = 0;
    if (r.kind != "single" || r.decision == "retained" || r.decision == "start") continue;
    if (r.parent == chain.current_revision) {
      ++reverted_since_retain;
      // Pairs are made of moves that lowered D, only not by the margin: two such steps may add up.
      if (r.decision == "reverted" && r.d && r.delta_d && *r.delta_d < 0) reverted_here.push_back(&r);
    }
    const auto back = design::opposite_direction(r.moves[0].direction);
    const RevisionRecord* p = find_record(chain, r.parent);
    if (!back || p == nullptr || !r.d || !p->d) continue;
    Mirror m;
    m.revision = r.revision;
    for (std::size_t i = 0; i < signature::kMetricCount; ++i) {
      if (r.distances[i] && p->distances[i]) {
        // It cannot take off more than what remains of that metric's distance.
        m.gain[i] = std::min(std::max(0.0, *r.distances[i] - *p->distances[i]), chain.current_distances[i].value_or(0.0));
        m.total += m.gain[i];
      }
    }
    mirror[{r.moves[0].axis, *back}] = m;
  }

  // Single moves: valid neighbours not evaluated yet, ranked by expected cut. A step whose
  // opposite failed is a revisit: it is expected to take off at least what the failure added
  // (the metrics the failed step moved away from the reference, mirrored).
  struct Ranked {
    design::Neighbour n;
    double score;
    int revisit;  // the failed revision it mirrors, or -1
    std::vector<std::pair<double, std::size_t>> parts;
  };
  std::vector<Ranked> singles;
  std::set<std::string> keys;
  for (auto& n : design::neighbours(chain.current)) {
    if (gains_no_op(chain.current, n.design)) continue;
    const Candidate c = candidate_of(n.design);
    if (chain.evaluated.count(c.key) || keys.count(c.key) || !available(c)) continue;
    keys.insert(c.key);
    Ranked r{n, 0, -1, {}};
    r.score = score_of({n.move}, &r.parts);
    const auto m = mirror.find({n.move.axis, n.move.direction});
    if (m != mirror.end() && m->second.total > r.score) {
      r.score = m->second.total;
      r.revisit = m->second.revision;
      r.parts.clear();
      for (std::size_t i = 0; i < signature::kMetricCount; ++i) {
        if (m->second.gain[i] > 0) r.parts.push_back({m->second.gain[i], i});
      }
      std::sort(r.parts.begin(), r.parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    }
    singles.push_back(std::move(r));
  }
  std::stable_sort(singles.begin(), singles.end(), [](const Ranked& a, const Ranked& b) { return a.score > b.score; });

  // Pairs of reverted single moves that lowered D (the closest first: lowest D, different axes)
  // once single moves stop improving, or when none is left. One pair leads the round; where the
  // single moves left cannot fill the width, further pairs do, so a chain near the end of its
  // neighbourhood does not spend a round (an ncu process) per pair.
  const std::size_t pair_quota =
      static_cast<std::size_t>(std::max(1, width - static_cast<int>(std::min<std::size_t>(singles.size(), width))));
  if (reverted_since_retain >= options_.pair_after || singles.empty()) {
    std::vector<const RevisionRecord*> best = reverted_here;
    std::stable_sort(best.begin(), best.end(), [](const RevisionRecord* a, const RevisionRecord* b) { return *a->d < *b->d; });
    for (std::size_t i = 0; i < best.size() && out.size() < pair_quota; ++i) {
      for (std::size_t j = i + 1; j < best.size() && out.size() < pair_quota; ++j) {
        if (best[i]->moves[0].axis == best[j]->moves[0].axis) continue;
        const std::vector<Move> moves = {best[i]->moves[0], best[j]->moves[0]};
        design::DesignPoint d;
        try {
          d = design::apply(chain.current, moves);
        } catch (const InputError&) {
          continue;
        }
        if (gains_no_op(chain.current, d)) continue;
        const Candidate c = candidate_of(d);
        if (chain.evaluated.count(c.key) || keys.count(c.key) || !available(c)) continue;
        keys.insert(c.key);
        Proposal p;
        p.kind = "pair";
        p.moves = moves;
        p.design = d;
        std::vector<std::pair<double, std::size_t>> parts;
        const double score = score_of(moves, &parts);
        describe(p, score, parts,
                 "single moves stopped improving (" + std::to_string(reverted_since_retain) + " reverted since the last retained revision): r" +
                     std::to_string(best[i]->revision) + " and r" + std::to_string(best[j]->revision) +
                     " came closest (D " + fmt(*best[i]->d, 4) + ", " + fmt(*best[j]->d, 4) + "); together they target ");
        out.push_back(std::move(p));
      }
    }
  }
  for (auto& r : singles) {
    if (static_cast<int>(out.size()) >= width) break;
    Proposal p;
    p.kind = "single";
    p.moves = {r.n.move};
    p.design = r.n.design;
    describe(p, r.score, r.parts,
             r.revisit >= 0 ? "revisits " + design::to_string(r.n.move.axis) + " in the other direction: r" +
                                  std::to_string(r.revisit) + " went the opposite way and moved away from the reference; targets "
                            : "targets ");
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace vxsynth::refine
