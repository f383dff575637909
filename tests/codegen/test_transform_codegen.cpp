// The layout-transform family's generated code (codegen/transform_emitter.h), through the same
// testbed as the GEMM families: a sample in which every value of the family's axes occurs, on odd
// shapes (and shapes that admit vector widths), every precision and both directions. The CUDA
// side must compile for sm_90; the Vortex side must pass the exact check on the embedded
// simulator, here and at the profiled shapes of Diffusion Policy's four weight transforms.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>

#include "codegen/transform_emitter.h"
#include "codegen_testbed.h"
#include "design/neighbours.h"
#include "design/sample.h"
#include "design/transform_family.h"
#include "design/validity.h"
#include "../refine/sim_runner.h"
#include "refine/sim_run.h"

namespace vxsynth::codegen {
namespace {

using design::DesignPoint;
using ops::ConvLayout;
using ops::PrecisionPath;
namespace tb = testbed;

DesignPoint seed_of(const ops::OpSpec& op, int block = 256) {
  return design::seed_design(op, design::EngineClass::kSimt, block, "", "test");
}

// Odd sizes (no tile divides them) and sizes that admit 2-, 4- and 8-wide accesses.
std::vector<ops::OpSpec> sample_ops() {
  return {
      ops::make_transform("odd.nchw2nhwc.fp32", PrecisionPath::fp32, 3, 37, {5, 9}, ConvLayout::channels_first,
                          ConvLayout::channels_last),
      ops::make_transform("even.nhwc2nchw.bf16", PrecisionPath::bf16, 2, 64, {6, 8}, ConvLayout::channels_last,
                          ConvLayout::channels_first),
      ops::make_transform("weight.ncl2nlc.fp16", PrecisionPath::fp16, 5, 24, {5}, ConvLayout::channels_first,
                          ConvLayout::channels_last, "weight"),
      ops::make_transform("even.ncl2nlc.fp32", PrecisionPath::fp32, 2, 64, {32}, ConvLayout::channels_first,
                          ConvLayout::channels_last),
  };
}

// The (axis, value) pairs a design shows: the thread mappings per op (their index arithmetic
// differs with the direction and the dtype), the other axes over the whole sample.
std::set<std::string> features(const DesignPoint& d) {
  const auto g = design::transform_geometry(d);
  const std::string op = d.op.name + ":";
  std::set<std::string> out;
  if (d.read_guard == design::ReadGuard::kColumnBranch) {
    // What changes the branch's read phase, each shown once with it.
    out = {"column_branch vector=" + std::string(d.register_tile.n > 1 ? ">1" : "1"),
           "column_branch lane_a=" + design::to_string(d.lane_a), "column_branch boundary=" + design::to_string(d.boundary)};
  }
  if (d.param_reads == design::ParamReads::kAtStore) {
    // What changes the write phase that reads the parameters again, each shown once with it.
    for (const auto& f : {"at_store scale=" + design::to_string(d.scale), "at_store boundary=" + design::to_string(d.boundary),
                          "at_store read_guard=" + design::to_string(d.read_guard),
                          std::string("at_store vector=") + (d.register_tile.n > 1 ? ">1" : "1")}) {
      out.insert(f);
    }
  }
  std::set<std::string> base = {op + "lanes=" + design::to_string(d.lane_a) + "/" + design::to_string(d.lane_b) + (g.staged ? "" : " direct"),
          "read_once=" + design::to_string(d.read_once),
          "boundary=" + design::to_string(d.boundary),
          "k_range=" + design::to_string(d.k_range),
          "scale=" + design::to_string(d.scale) + ":" + ops::to_string(d.op.precision),
          op + "read_guard=" + design::to_string(d.read_guard),
          op + "param_reads=" + design::to_string(d.param_reads),
          op + "index_type=" + design::to_string(d.index_type),
          op + "entry_reads=" + std::string(d.entry_reads > 0 ? ">0" : "0"),
          "index_type=" + design::to_string(d.index_type) + (g.staged ? "" : " direct"),
          "entry_reads=" + std::string(d.entry_reads > 0 ? ">0" : "0") + (d.index_type == design::IndexType::kInt32 ? " int32" : ""),
          op + "index_math=" + design::to_string(d.index_math),
          "index_math=" + design::to_string(d.index_math) + (g.staged ? "" : " direct") + " " + design::to_string(d.boundary),
          "vector=" + std::to_string(d.register_tile.n),
          "elements=" + std::to_string(d.register_tile.m),
          "tile=" + std::to_string(d.tile.m) + "x" + std::to_string(d.tile.n)};
  out.insert(base.begin(), base.end());
  return out;
}

// Each op's seed, its single-axis neighbours, seeded random walks and the widest vectors its
// sizes allow; `all` = every one of them, else only those that show an (axis, value) pair of
// their op not yet shown (a greedy cover: every value still occurs, in far fewer designs).
std::vector<DesignPoint> sample(int random_per_op, bool all = true) {
  std::vector<DesignPoint> out;
  std::set<std::string> names, shown;
  int i = 0;
  for (const auto& op : sample_ops()) {
    const DesignPoint seed = seed_of(op, i == 2 ? 128 : 256);
    std::vector<DesignPoint> designs = design::axis_coverage(seed);
    for (auto& d : design::random_designs(seed, random_per_op, 0x7a115 + 17 * i, 4)) designs.push_back(std::move(d));
    {
      // Direct designs (reads or writes coalesced) and integer moves: several axes change at once,
      // so no single step of the move vocabulary reaches them.
      DesignPoint d = seed;
      d.staging = design::Staging::kNone;
      d.lane_b = design::LaneMap::kReversed;
      designs.push_back(d);
      d.lane_a = design::LaneMap::kReversed;
      d.lane_b = design::LaneMap::kForward;
      designs.push_back(d);
      d = seed;
      d.scale = design::Scale::kNone;
      designs.push_back(d);
    }
    if (op.precision == PrecisionPath::bf16) {  // [48 rows][64 cols]: 8 x 2 bytes
      DesignPoint d = seed;
      d.tile = {64, 32, 1};
      d.register_tile = {1, 8};
      designs.push_back(d);
    }
    if (op.name == "even.ncl2nlc.fp32") {  // [64 rows][32 cols]: 4 x 4 bytes, direct with coalesced writes
      DesignPoint d = seed;
      d.register_tile = {1, 4};
      designs.push_back(d);
      d.staging = design::Staging::kNone;
      d.lane_a = design::LaneMap::kReversed;
      designs.push_back(d);
    }
    {
      // The column branch with what changes its read phase: vectors, reversed reads, the
      // block-uniform boundary (the branch is in the guarded path only).
      for (DesignPoint d : std::vector<DesignPoint>(designs)) {
        if (d.staging != design::Staging::kA || !(d.register_tile.n > 1 || d.lane_a == design::LaneMap::kReversed ||
                                                  d.boundary == design::Boundary::kUniformBranch)) {
          continue;
        }
        d.read_guard = design::ReadGuard::kColumnBranch;
        designs.push_back(d);
      }
      // Parameters read again at each store, with what changes the write phase: the scale
      // (where alpha is read), the boundary (full tiles store through it too), vectors and the
      // column branch.
      for (DesignPoint d : std::vector<DesignPoint>(designs)) {
        if (d.staging != design::Staging::kA) continue;
        d.param_reads = design::ParamReads::kAtStore;
        designs.push_back(d);
      }
      // 32-bit index arithmetic and reads at entry on every design so far (direct ones too),
      // each alone and together (diffusion_policy-1's pair).
      for (DesignPoint d : std::vector<DesignPoint>(designs)) {
        d.index_type = design::IndexType::kInt32;
        designs.push_back(d);
        d.entry_reads = 8;
        designs.push_back(d);
        d.index_type = design::IndexType::kInt64;
        d.entry_reads = 4;
        designs.push_back(d);
      }
      // A generic layout kernel's indexing on every design so far (the batch of 5 and the
      // partial tiles of the odd shapes divide by numbers that are not powers of two).
      // (On the designs of the other transform axes' defaults and with 32-bit indexing: the
      // decode is before the tile's move, which those axes change, so their products add nothing.)
      for (DesignPoint d : std::vector<DesignPoint>(designs)) {
        if (d.entry_reads != 0 || d.param_reads != design::ParamReads::kHoisted ||
            d.read_guard != design::ReadGuard::kPredicated) {
          continue;
        }
        d.index_math = design::IndexMath::kGeneric;
        designs.push_back(d);
      }
    }
    for (auto& d : designs) {
      EXPECT_FALSE(design::can_implement(d).has_value()) << design::procedural_name(d);
      if (!names.insert(op.name + design::procedural_name(d)).second) continue;
      bool fresh = all;
      for (const auto& f : features(d)) fresh |= shown.insert(f).second;
      if (fresh) out.push_back(std::move(d));
    }
    ++i;
  }
  return out;
}

TEST(TransformSample, EveryAxisValueOccurs) {
  const auto designs = sample(2, false);
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& d : designs) {
    ASSERT_FALSE(design::can_implement(d).has_value()) << design::procedural_name(d);
    const auto g = design::transform_geometry(d);
    seen["staging"].insert(design::to_string(d.staging));
    seen["read_once"].insert(design::to_string(d.read_once));
    seen["lanes"].insert(design::to_string(d.lane_a) + "/" + design::to_string(d.lane_b) + (g.staged ? "" : " direct"));
    seen["boundary"].insert(design::to_string(d.boundary));
    seen["k_range"].insert(design::to_string(d.k_range));
    seen["scale"].insert(design::to_string(d.scale));
    if (d.read_guard == design::ReadGuard::kColumnBranch) {
      seen["column_branch"].insert(std::string("vector ") + (d.register_tile.n > 1 ? ">1" : "1"));
      seen["column_branch"].insert("lane_a " + design::to_string(d.lane_a));
      seen["column_branch"].insert("boundary " + design::to_string(d.boundary));
      seen["column_branch"].insert("op " + d.op.name);
    }
    seen["read_guard"].insert(design::to_string(d.read_guard));
    seen["param_reads"].insert(design::to_string(d.param_reads));
    seen["index_type"].insert(design::to_string(d.index_type) + (g.staged ? "" : " direct"));
    seen["entry_reads"].insert(std::to_string(d.entry_reads) + (d.index_type == design::IndexType::kInt32 ? " int32" : ""));
    seen["index_math"].insert(design::to_string(d.index_math) + (g.staged ? "" : " direct"));
    if (d.index_math == design::IndexMath::kGeneric) seen["index_math"].insert("generic op " + d.op.name);
    if (d.param_reads == design::ParamReads::kAtStore) {
      seen["at_store"].insert("scale " + design::to_string(d.scale));
      seen["at_store"].insert("boundary " + design::to_string(d.boundary));
      seen["at_store"].insert("read_guard " + design::to_string(d.read_guard));
      seen["at_store"].insert(std::string("vector ") + (d.register_tile.n > 1 ? ">1" : "1"));
      seen["at_store"].insert("op " + d.op.name);
    }
    seen["vector"].insert(std::to_string(d.register_tile.n));
    seen["tile"].insert(std::to_string(d.tile.m) + "x" + std::to_string(d.tile.n));
    seen["elements"].insert(std::to_string(d.register_tile.m));
  }
  EXPECT_EQ(seen["staging"].size(), 2u);
  EXPECT_EQ(seen["read_once"].size(), 3u);
  EXPECT_EQ(seen["boundary"].size(), 2u);
  EXPECT_EQ(seen["k_range"].size(), 2u);
  EXPECT_EQ(seen["scale"].size(), design::all_values<design::Scale>().size());
  EXPECT_EQ(seen["read_guard"].size(), design::all_values<design::ReadGuard>().size());
  EXPECT_EQ(seen["param_reads"].size(), design::all_values<design::ParamReads>().size());
  EXPECT_EQ(seen["index_type"], (std::set<std::string>{"int64", "int32", "int64 direct", "int32 direct"}));
  for (const char* c : {"0", "0 int32", "4", "8 int32"}) EXPECT_TRUE(seen["entry_reads"].count(c)) << c;
  for (const char* c : {"tile", "generic", "generic direct", "generic op odd.nchw2nhwc.fp32", "generic op weight.ncl2nlc.fp16"})
    EXPECT_TRUE(seen["index_math"].count(c)) << c;
  for (const char* c : {"scale none", "scale alpha", "scale alpha_in_range", "boundary guarded", "boundary uniform_branch",
                        "read_guard predicated", "read_guard column_branch", "vector 1", "vector >1",
                        "op odd.nchw2nhwc.fp32", "op even.nhwc2nchw.bf16", "op weight.ncl2nlc.fp16"}) {
    EXPECT_TRUE(seen["at_store"].count(c)) << c;
  }
  for (const char* c : {"vector 1", "vector >1", "lane_a forward", "lane_a reversed", "boundary guarded",
                        "boundary uniform_branch", "op odd.nchw2nhwc.fp32", "op weight.ncl2nlc.fp16"}) {
    EXPECT_TRUE(seen["column_branch"].count(c)) << c;
  }
  // Tiled: all four lane combinations; direct: reads or writes coalesced.
  for (const char* l : {"forward/forward", "forward/reversed", "reversed/forward", "forward/reversed direct",
                        "reversed/forward direct"}) {
    EXPECT_TRUE(seen["lanes"].count(l)) << l;
  }
  EXPECT_EQ(seen["vector"], (std::set<std::string>{"1", "2", "4", "8"}));
  EXPECT_GE(seen["tile"].size(), 4u);
  EXPECT_GE(seen["elements"].size(), 3u);
  std::printf("transform sample: %zu designs cover every value (of %zu in the full sample)\n", designs.size(),
              sample(2).size());
}

// index_math generic's fast division agrees with integer division for every divisor up to 5000
// and numerators across [0, 2^31), the ends included.
TEST(TransformEmit, FastDivisionIsDivision) {
  std::uint32_t n = 12345;
  for (std::uint32_t div = 1; div <= 5000; ++div) {
    const FastDivisor f = fast_divisor(div);
    for (std::uint32_t x : {0u, 1u, div - 1, div, div + 1, 2147483647u, 2147483647u - div}) ASSERT_EQ(f.divide(x), x / div) << x << "/" << div;
    for (int i = 0; i < 200; ++i) {
      n = n * 1103515245u + 12345u;
      const std::uint32_t x = n & 0x7fffffffu;
      ASSERT_EQ(f.divide(x), x / div) << x << "/" << div;
    }
  }
  for (std::uint32_t div : {65535u, 65536u, 1000003u, 2147483647u}) {
    const FastDivisor f = fast_divisor(div);
    for (std::uint32_t x : {0u, div - 1, div, 2147483647u}) EXPECT_EQ(f.divide(x), x / div) << x << "/" << div;
  }
}

// index_math generic: a 1-d grid whose tile every thread decodes with parameters it reads.
TEST(TransformEmit, GenericIndexMathSaysWhatItDoes) {
  DesignPoint d = seed_of(sample_ops()[2], 256);
  d.index_math = design::IndexMath::kGeneric;
  const std::string cu = tb::one_line(emit_cuda(d));
  EXPECT_NE(cu.find("index_math: generic"), std::string::npos);
  EXPECT_NE(cu.find("for (int d = p.ndim - 1; d >= 0; --d)"), std::string::npos);
  EXPECT_NE(cu.find("decode_tile(p, (uint32_t)blockIdx.x, &x_off, &y_off, &row0, &col0);"), std::string::npos);
  EXPECT_NE(cu.find("const dim3 grid(static_cast<unsigned>(tiles));"), std::string::npos);
  EXPECT_EQ(cu.find("blockIdx.y"), std::string::npos);
  EXPECT_NE(tb::one_line(tb::vortex_file(d, "kernel.cpp")).find("(uint32_t)(((uint64_t)n * d.mul) >> 32)"), std::string::npos);
  EXPECT_NE(tb::one_line(tb::vortex_file(d, "common.h")).find("Divisor dim[3];"), std::string::npos);
  EXPECT_EQ(design::procedural_name(d).substr(design::procedural_name(d).size() - 11), "_im-generic");
}

TEST(TransformCuda, SampleCompilesForSm90) {
  const std::string nvcc = tb::find_nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (set VXSYNTH_NVCC)";
  const auto designs = sample(2);  // all of them, in two translation units (one would hold more
                                   // than the 64 KiB of __constant__ data a unit may have)
  const auto start = std::chrono::steady_clock::now();
  const std::size_t half = designs.size() / 2;
  EXPECT_EQ(tb::compile_cuda_batch({designs.begin(), designs.begin() + half}, tb::scratch_dir("transform-cuda-1"), nvcc), "");
  EXPECT_EQ(tb::compile_cuda_batch({designs.begin() + half, designs.end()}, tb::scratch_dir("transform-cuda-2"), nvcc), "");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("nvcc: %zu transform designs compiled for sm_90 in %.1f s\n", designs.size(), seconds);
}

// read_guard column_branch: the CUDA read phase leaves by a branch over the lane's column (no
// predicate of the column inside), the Vortex one is a vx_split / vx_join region, the host
// declines a tensor whose 32-bit read strides could overflow, and the guarded-only path keeps
// the full tiles' copy unchanged.
TEST(TransformEmit, ColumnBranchSaysWhatItDoes) {
  DesignPoint d = seed_of(sample_ops()[0]);
  const std::string predicated = emit_cuda(d);
  d.read_guard = design::ReadGuard::kColumnBranch;
  const std::string cu = emit_cuda(d);
  EXPECT_NE(cu.find("read_guard: column_branch"), std::string::npos);
  EXPECT_NE(cu.find("if (col < cols) {"), std::string::npos);
  EXPECT_NE(cu.find("(rg + i * kReadRowGroups < rows_here)"), std::string::npos);
  EXPECT_NE(cu.find("if (p->cols > 2147483647LL / kTM) return false;"), std::string::npos);
  EXPECT_EQ(predicated.find("rows_here"), std::string::npos);
  // The write phase is the predicated design's, line for line.
  const auto writes = [](const std::string& src) { return src.substr(src.find("// Writes:"), src.find("// One block per tile") - src.find("// Writes:")); };
  EXPECT_EQ(writes(cu), writes(predicated));
  const auto vortex = emit_vortex(d, {});
  std::string kernel;
  for (const auto& f : vortex)
    if (f.name == "kernel.cpp") kernel = f.text;
  const auto reads = kernel.find("const idx_t src = ");
  ASSERT_NE(reads, std::string::npos);
  EXPECT_LT(kernel.find("vx_split((int)(col < cols))", reads), kernel.find("__syncthreads();", reads));
  d.boundary = design::Boundary::kUniformBranch;
  const std::string uniform = emit_cuda(d);
  const auto full = uniform.find("void move_tile_full(");
  ASSERT_NE(full, std::string::npos);
  EXPECT_EQ(uniform.find("rows_here", full), std::string::npos);  // full tiles: no guard, no branch
}

// param_reads at_store: every store of the write phase takes the output pointer (and alpha, when
// the design scales) from store_base / store_alpha with the store's index; the CUDA host fills
// the four constant slots before the launch and sets the slot factor to 0; the Vortex side reads
// the argument block through volatile loads; the read phase is the hoisted design's.
TEST(TransformEmit, ParamReadsAtStoreSaysWhatItDoes) {
  DesignPoint d = seed_of(sample_ops()[0]);
  ASSERT_EQ(d.staging, design::Staging::kA);
  d.scale = design::Scale::kAlphaInRange;
  const std::string hoisted = emit_cuda(d);
  d.param_reads = design::ParamReads::kAtStore;
  const std::string cu = emit_cuda(d);
  EXPECT_NE(cu.find("param_reads: at_store"), std::string::npos);
  EXPECT_NE(cu.find("__constant__ StoreParams c_store[4];"), std::string::npos);
  EXPECT_NE(cu.find("c_store[(((int)threadIdx.x + i) * p.slot) & 3].y"), std::string::npos);
  EXPECT_NE(cu.find("store_vec(store_base(p, i) + y_plane + col * rows + row, e);"), std::string::npos);
  EXPECT_NE(cu.find("scale(e[j], store_alpha(p, i))"), std::string::npos);
  EXPECT_EQ(cu.find("scale(e[j], p.alpha)"), std::string::npos);  // no store scales by the hoisted alpha
  EXPECT_NE(cu.find("p->slot = 0;"), std::string::npos);
  EXPECT_LT(cu.find("cudaMemcpyToSymbolAsync(c_store, slots"), cu.find("transform<<<"));
  EXPECT_EQ(hoisted.find("store_base"), std::string::npos);
  EXPECT_EQ(hoisted.find("slot"), std::string::npos);
  // The read phase is the hoisted design's, line for line.
  const auto reads = [](const std::string& src) { return src.substr(src.find("// Reads:"), src.find("// Writes:") - src.find("// Reads:")); };
  EXPECT_EQ(reads(cu), reads(hoisted));
  const std::string kernel = tb::vortex_file(d, "kernel.cpp");
  EXPECT_NE(kernel.find("((const volatile Params*)&p)->out_addr"), std::string::npos);
  EXPECT_NE(kernel.find("((const volatile Params*)&p)->alpha"), std::string::npos);
  EXPECT_NE(kernel.find("store_vec(store_base(p, i) + y_plane + col * rows + row, e);"), std::string::npos);
  // Without a scale there is no alpha to read at the store.
  d.scale = design::Scale::kNone;
  const std::string plain = emit_cuda(d);
  EXPECT_NE(plain.find("store_base(p, i)"), std::string::npos);
  EXPECT_EQ(plain.find("store_alpha(p, i)"), std::string::npos);
}

// index_type int32: the CUDA side indexes in 32 bits and its host declines a tensor of 2^31
// elements; entry_reads: the CUDA side reads a zero table per thread at entry through the
// slot factor (0 at run time) and folds the reads into the output pointer, the host writes the
// table before the launch; the Vortex side (32-bit already) makes volatile loads of its
// argument block instead. A design at the defaults has none of it.
TEST(TransformEmit, IndexTypeAndEntryReadsSayWhatTheyDo) {
  DesignPoint d = seed_of(sample_ops()[0]);
  const std::string plain = emit_cuda(d);
  d.index_type = design::IndexType::kInt32;
  d.entry_reads = 12;
  const std::string cu = emit_cuda(d);
  EXPECT_NE(cu.find("typedef int idx_t;"), std::string::npos);
  EXPECT_NE(cu.find("if (pr->n_img * pr->c_in * positions > 2147483647LL) return false;"), std::string::npos);
  EXPECT_NE(cu.find("__constant__ int c_entry[32];"), std::string::npos);
  EXPECT_NE(cu.find("for (int k = 0; k < 12; ++k) z |= c_entry[(((int)threadIdx.x + k) * p.slot) & 31];"), std::string::npos);
  EXPECT_NE(cu.find("y += z;"), std::string::npos);
  EXPECT_NE(cu.find("p->slot = 0;"), std::string::npos);
  EXPECT_LT(cu.find("cudaMemcpyToSymbolAsync(c_entry, zeros"), cu.find("transform<<<"));
  EXPECT_NE(cu.find("index_type: int32"), std::string::npos);
  EXPECT_NE(cu.find("entry_reads: 12"), std::string::npos);
  for (const char* absent : {"typedef int idx_t;", "c_entry", "slot", "2147483647LL) return false;  // index_type"}) {
    EXPECT_EQ(plain.find(absent), std::string::npos) << absent;
  }
  EXPECT_NE(plain.find("typedef long long idx_t;"), std::string::npos);
  const std::string kernel = tb::vortex_file(d, "kernel.cpp");
  DesignPoint p = d;
  p.index_type = design::IndexType::kInt64;
  p.entry_reads = 0;
  const std::string plain_kernel = tb::vortex_file(p, "kernel.cpp");
  EXPECT_NE(kernel.find("for (int k = 0; k < 12; ++k) z |= (int)((const volatile Params*)&p)->rows & 0;"), std::string::npos);
  EXPECT_NE(kernel.find("typedef int32_t idx_t;"), std::string::npos);
  EXPECT_EQ(plain_kernel.find("volatile"), std::string::npos);
}

TEST(TransformEmit, SourcesSayWhatTheyDo) {
  const DesignPoint seed = seed_of(sample_ops()[0]);
  const std::string cu = emit_cuda(seed);
  EXPECT_NE(cu.find("VXSYNTH_OP_LAYOUT_TRANSFORM"), std::string::npos);
  EXPECT_NE(cu.find("__shared__ bits_t tile[kTM * kLd]"), std::string::npos);
  EXPECT_NE(cu.find("scale("), std::string::npos);
  EXPECT_EQ(cu.find("move_tile_full"), std::string::npos);  // guarded: no unpredicated path
  DesignPoint d = seed;
  d.staging = design::Staging::kNone;
  d.lane_b = design::LaneMap::kReversed;
  d.boundary = design::Boundary::kUniformBranch;
  d.scale = design::Scale::kNone;
  d.read_once = design::ReadOnce::kStreaming;
  const std::string direct = emit_cuda(d);
  EXPECT_EQ(direct.find("__shared__"), std::string::npos);
  EXPECT_NE(direct.find("move_tile_full"), std::string::npos);
  EXPECT_NE(direct.find("__ldcs"), std::string::npos);
  EXPECT_EQ(direct.find("scale("), std::string::npos);
  const auto vortex = emit_vortex(d, {});
  auto text_of = [&vortex](const std::string& name) {
    for (const auto& f : vortex)
      if (f.name == name) return f.text;
    ADD_FAILURE() << "no " << name;
    return std::string();
  };
  EXPECT_NE(text_of("kernel.cpp").find("vx_split"), std::string::npos);  // guarded stores diverge
  // The host program is every benchmark's; the transform's bench.h asks it for the exact check,
  // whatever tolerance the caller gave.
  EXPECT_NE(text_of("bench.h").find("constexpr bool kExact = true;"), std::string::npos);
  for (const auto& f : emit_vortex(seed_of(sample_ops()[1]), {0.5, 0.5, 3})) {
    if (f.name == "main.cpp") {
      EXPECT_EQ(text_of("main.cpp"), f.text);
    }
  }
  EXPECT_NE(text_of("main.cpp").find("ops::read_tensor_file"), std::string::npos);
  // An invalid design names its rule.
  d.lane_b = design::LaneMap::kForward;
  try {
    emit_cuda(d);
    ADD_FAILURE() << "emitted an invalid design";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("transform-direct-lanes"), std::string::npos) << e.what();
  }
}

void run_all(const std::vector<DesignPoint>& designs, const std::string& label) {
  sim_runner::run_all(designs, label, /*exact=*/true);
}

TEST(TransformVortex, SamplePassesTheExactCheckOnTheSimulator) { run_all(sample(2, false), "transform-vortex"); }

// The seeds of Diffusion Policy's four weight transforms at the profiled shapes: 2048 x 2048 x 5
// (diffusion_policy-1) and 1024 x 4096 x 5 (-3) floats, 84 MB each, and 1024 x 1024 x 5 (-4 and
// -5: the same op, run once). About 7 G thread-instructions for each of the large ones.
TEST(TransformVortex, DiffusionPolicySeedsPassAtTheProfiledShapes) {
  std::vector<DesignPoint> seeds;
  std::vector<std::string> ops;
  for (const char* name : {"diffusion_policy-1-conv1d", "diffusion_policy-3-conv1d", "diffusion_policy-4-conv1d",
                           "diffusion_policy-5-conv1d"}) {
    DesignPoint d = design::seed_from_reference(std::string("../suite/vx-robotics/h200/") + name + "/reference.json");
    ASSERT_EQ(d.op.kind, ops::OpKind::layout_transform);
    const std::string op = ops::op_spec_to_json(d.op)["transform"].dump() + design::procedural_name(d);
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) {
      EXPECT_EQ(std::string(name), "diffusion_policy-5-conv1d");  // the same weight shape as -4
      continue;
    }
    ops.push_back(op);
    seeds.push_back(std::move(d));
  }
  ASSERT_EQ(seeds.size(), 3u);
  run_all(seeds, "transform-dp-seeds");
}

}  // namespace
}  // namespace vxsynth::codegen
