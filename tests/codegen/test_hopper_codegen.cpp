// The Hopper family's generated code (codegen/hopper_emitter.h): a sample over every precision,
// op kind and value of the family's axes on odd shapes. The CUDA side must compile for sm_90a
// with the local nvcc (it runs on the H200 only: scripts/h200-suite-refine); the Vortex side (the
// WMMA counterpart) must pass its check on the embedded simulator.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "codegen_testbed.h"
#include "design_samples.h"
#include "common/process.h"
#include "design/hopper_family.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/validity.h"
#include "../refine/sim_runner.h"

namespace vxsynth::codegen {
namespace {

using design::DesignPoint;
using ops::PrecisionPath;
namespace tb = testbed;

DesignPoint hopper(const ops::OpSpec& op, int block) {
  std::string why;
  auto d = design::seed_hopper(op, block, "", "", {}, &why);
  if (!d) ADD_FAILURE() << op.name << ": " << why;
  return d ? *d : DesignPoint{};
}

// Odd M and N (no tile divides them), K aligned for the tensor maps (16-byte rows).
std::vector<DesignPoint> seeds() {
  return {
      hopper(ops::make_linear("lin.bf16.bias", PrecisionPath::bf16, 77, 96, 72, true), 384),
      hopper(ops::make_matmul("bmm.fp16.bcast", PrecisionPath::fp16, {3}, {1}, 51, 40, 64, false, true), 256),
      hopper(ops::make_conv("conv1d.tf32.bias", PrecisionPath::tf32, 2, 24, 40, {19}, {5}, {1}, {2}, {1}, 1, true), 384),
      hopper(ops::make_conv("conv2d.bf16", PrecisionPath::bf16, 1, 8, 33, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false),
             512),
  };
}

DesignPoint with(const DesignPoint& d, const std::vector<std::string>& settings) {
  return design::apply_settings(d, settings, "test");
}

// The later axes together (the single-axis neighbours have each alone): what the H200 probe
// (scripts/h200-hopper-probe) tries, on every op kind and precision.
std::vector<DesignPoint> later_designs() {
  const auto s = seeds();
  return {
      // pi0-2's candidate: 64 x 256 accumulators per consumer, persistent, two groups in flight
      with(s[0], {"tile=128x256x64", "register_split=setmaxnreg", "schedule=persistent", "pipeline_stages=3",
                  "wgmma_in_flight=2", "bias_load=global"}),
      with(s[0], {"tile=128x256x64", "register_split=setmaxnreg", "schedule=persistent", "epilogue_store=direct",
                  "bias_load=global"}),
      // diffusion_policy-2's: split-K with the bias by bulk copy (added to slice 0's partials)
      with(s[2], {"split_k=2", "wgmma_in_flight=2"}),
      with(s[2], {"split_k=3", "bias_load=global", "register_split=setmaxnreg"}),
      // a broadcast batched matmul, persistent over batch x tiles; a linear's K slices, persistent
      with(s[1], {"schedule=persistent", "raster=m_major", "wgmma_in_flight=2"}),
      with(s[0], {"split_k=2", "epilogue_store=direct", "schedule=persistent", "bias_load=global"}),
      with(s[3], {"register_split=setmaxnreg", "tile=192x192x64", "pipeline_stages=3"}),
      // tf32 rounded in shared memory: a convolution's weights (im2col rounds its input) and
      // both operands of a linear
      with(s[2], {"split_k=2", "tf32_round=shared"}),
      with(hopper(ops::make_linear("lin.tf32", PrecisionPath::tf32, 77, 96, 72, false), 384),
           {"tf32_round=shared", "register_split=setmaxnreg", "wgmma_in_flight=2"}),
      // the swizzled bulk-store epilogue: pi0-2's persistent candidate (n 192), a grid-schedule fp16
      // matmul (the tile reuses the A ring) and a tf32 linear (32-column boxes)
      with(s[0], {"tile=128x192x64", "register_split=setmaxnreg", "schedule=persistent", "pipeline_stages=4",
                  "epilogue_store=tma_swizzled", "bias_load=global"}),
      with(s[1], {"epilogue_store=tma_swizzled"}),
      with(hopper(ops::make_linear("lin.tf32.bias", PrecisionPath::tf32, 77, 96, 72, true), 384),
           {"epilogue_store=tma_swizzled", "schedule=persistent", "bias_load=global"}),
      // split-K partial sums by bulk copy (tf32 only), a 128-byte box at a time: a convolution
      // with the bias by bulk copy (added to slice 0) and with it read from global memory
      with(s[2], {"split_k=2", "epilogue_store=tma", "tile=128x64x32"}),
      with(s[2], {"split_k=3", "epilogue_store=tma_swizzled", "bias_load=global", "tile=128x96x32"}),
      // the bias by pair loads past L1: a persistent swizzled linear and split-K partials by bulk copy
      with(s[0], {"tile=128x192x64", "register_split=setmaxnreg", "schedule=persistent", "epilogue_store=tma_swizzled",
                  "bias_load=paired"}),
      with(s[2], {"split_k=2", "epilogue_store=tma", "tile=128x64x32", "bias_load=paired"}),
  };
}

// consumer_layout columns (one 64-row A slice, the consumers side by side in n) with each
// epilogue, bias load, split-K path, schedule, cluster and tf32 rounding; pi0-4's, pi0-5's and
// diffusion_policy-2's candidates among them.
std::vector<DesignPoint> columns_designs() {
  const auto s = seeds();
  const DesignPoint lin_tf32 = hopper(ops::make_linear("lin.tf32.bias", PrecisionPath::tf32, 77, 96, 72, true), 384);
  return {
      // pi0-4's: a 64 x 64 tile, 32 columns per consumer, the tile by one bulk copy per consumer
      with(s[0], {"consumer_layout=columns", "tile=64x64x64"}),
      // pi0-5's: bias pairs past L1, a cluster along M
      with(s[0], {"consumer_layout=columns", "tile=64x64x64", "bias_load=paired", "cluster=2x1"}),
      with(s[0], {"consumer_layout=columns", "tile=64x128x64", "epilogue_store=tma_swizzled", "bias_load=paired"}),
      with(s[0], {"consumer_layout=columns", "tile=64x64x64", "epilogue_store=direct", "bias_load=global", "split_k=2"}),
      with(s[0], {"consumer_layout=columns", "tile=64x256x64", "schedule=persistent", "register_split=setmaxnreg",
                  "bias_load=global", "epilogue_store=tma_swizzled", "wgmma_in_flight=2", "pipeline_stages=3"}),
      with(s[0], {"consumer_layout=columns", "tile=64x64x64", "schedule=persistent", "bias_load=global"}),
      with(s[0], {"consumer_layout=columns", "tile=64x48x64", "epilogue_store=direct", "bias_load=tma", "cluster=1x2"}),
      // diffusion_policy-2's: tf32 split-K partials by bulk copy (32 fp32 columns = one 128-byte
      // box per consumer), the stage rounded in shared memory, the bias by bulk copy
      with(s[2], {"consumer_layout=columns", "tile=64x64x32", "split_k=2", "epilogue_store=tma_swizzled", "tf32_round=shared"}),
      with(s[2], {"consumer_layout=columns", "tile=64x64x32", "split_k=3", "epilogue_store=tma", "bias_load=paired"}),
      with(s[2], {"consumer_layout=columns", "tile=64x48x32"}),
      with(s[2], {"consumer_layout=columns", "tile=64x256x32", "split_k=2", "epilogue_store=tma_swizzled", "bias_load=global",
                  "register_split=setmaxnreg"}),
      // three consumers (512 threads): 32 columns each
      with(s[3], {"consumer_layout=columns", "tile=64x96x64"}),
      // one consumer (256 threads): the layouts compute the same tile
      with(s[1], {"consumer_layout=columns"}),
      with(lin_tf32, {"consumer_layout=columns", "tile=64x64x32", "tf32_round=shared", "epilogue_store=tma"}),
      with(lin_tf32, {"consumer_layout=columns", "tile=64x128x32", "epilogue_store=tma_swizzled", "schedule=persistent",
                      "bias_load=global", "wgmma_in_flight=2"}),
  };
}

// Every seed and its single-axis neighbours (stages, tile n, raster, epilogue, clusters, and the
// later axes one at a time), then the later axes together.
std::vector<DesignPoint> sample() {
  std::vector<DesignPoint> out;
  std::set<std::string> names;
  for (const auto& s : seeds()) {
    if (names.insert(design::procedural_name(s)).second) out.push_back(s);
    for (const auto& n : design::neighbours(s))
      if (names.insert(design::procedural_name(n.design)).second) out.push_back(n.design);
  }
  for (const auto& d : later_designs())
    if (names.insert(design::procedural_name(d)).second) out.push_back(d);
  for (const auto& d : columns_designs())
    if (names.insert(design::procedural_name(d)).second) out.push_back(d);
  return out;
}

TEST(HopperSample, CoversEveryValueOfTheFamilysAxes) {
  std::set<std::string> seen;
  for (const auto& d : sample()) {
    seen.insert("stages=" + std::to_string(d.stages));
    seen.insert("raster=" + design::to_string(d.raster));
    seen.insert("epilogue=" + design::to_string(d.epilogue_store));
    seen.insert("cluster=" + std::to_string(d.cluster.m) + "x" + std::to_string(d.cluster.n));
    seen.insert("precision=" + ops::to_string(d.fixed.precision));
    seen.insert("op=" + ops::to_string(d.op.kind));
    if (d.op.has_bias()) seen.insert("bias=" + design::to_string(d.bias_load));
    seen.insert("register_split=" + design::to_string(d.register_split));
    seen.insert("in_flight=" + std::to_string(d.wgmma_in_flight));
    seen.insert("schedule=" + design::to_string(d.schedule));
    seen.insert(d.split_k > 1 ? "split_k>1" : "split_k=1");
    if (d.split_k > 1) seen.insert("split_k>1 " + ops::to_string(d.op.kind));
    if (d.tf32_round == design::Tf32Round::kShared) seen.insert("tf32_round=shared " + ops::to_string(d.op.kind));
    seen.insert("consumer_layout=" + design::to_string(d.consumer_layout));
    if (design::hopper_columns(d)) {
      seen.insert("columns epilogue=" + design::to_string(d.epilogue_store));
      seen.insert("columns schedule=" + design::to_string(d.schedule));
      if (d.op.has_bias()) seen.insert("columns bias=" + design::to_string(d.bias_load));
      if (design::bulk_stores_partials(d)) seen.insert("columns bulk partials");
    }
  }
  for (const char* v : {"stages=3", "stages=5", "raster=m_major", "raster=n_major", "epilogue=tma", "epilogue=direct",
                        "epilogue=tma_swizzled", "cluster=2x1", "cluster=1x2", "precision=bf16", "precision=fp16", "precision=tf32", "op=linear",
                        "op=matmul", "op=conv1d", "op=conv2d", "bias=tma", "bias=global", "register_split=setmaxnreg",
                        "register_split=none", "in_flight=1", "in_flight=2", "schedule=grid", "schedule=persistent",
                        "split_k=1", "split_k>1", "split_k>1 linear", "split_k>1 conv1d", "tf32_round=shared conv1d",
                        "tf32_round=shared linear", "consumer_layout=rows", "consumer_layout=columns", "columns epilogue=direct",
                        "columns epilogue=tma", "columns epilogue=tma_swizzled", "columns schedule=grid",
                        "columns schedule=persistent", "columns bias=tma", "columns bias=global", "columns bias=paired",
                        "columns bulk partials"})
    EXPECT_TRUE(seen.count(v)) << v;
}

TEST(HopperEmit, SourcesDeclareTheirTargetAndWhatTheyDo) {
  const auto s = seeds();
  const std::string lin = emit_cuda(s[0]);
  EXPECT_EQ(lin.rfind("// vxsynth-target: sm_90a\n", 0), 0u);  // the harness builds it for sm_90a
  EXPECT_NE(lin.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(s[0].tile.n) + "k16.f32.bf16.bf16"), std::string::npos);
  EXPECT_NE(lin.find("cp.async.bulk.tensor.3d.shared::cluster"), std::string::npos);
  EXPECT_NE(lin.find("kHasBias = true"), std::string::npos);
  const std::string conv = tb::one_line(emit_cuda(s[2]));
  EXPECT_NE(conv.find("k8.f32.tf32.tf32"), std::string::npos);
  EXPECT_NE(conv.find("cvt.rna.tf32.f32"), std::string::npos);  // tf32 operands rounded to nearest
  EXPECT_NE(conv.find("kRoundTf32 = true"), std::string::npos);
  // The Vortex side says what it stands for.
  const auto vortex = emit_vortex(s[0], VortexCheck{1e-2, 1e-2, 1});
  bool noted = false;
  for (const auto& f : vortex)
    if (f.name == "kernel.cpp") noted = tb::one_line(f.text).find("The Vortex side of the Hopper design " + design::procedural_name(s[0])) != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(HopperEmit, BiasByBulkCopyLeavesNoOrdinaryLoadInTheGemm) {
  // bias_load tma: the producer copies the block's bias slice with a 1-D tensor copy and the
  // epilogue reads shared memory; bias_load global keeps the per-thread loads.
  for (const DesignPoint& seed : {seeds()[0], seeds()[2]}) {
    ASSERT_EQ(seed.bias_load, design::BiasLoad::kTma) << design::procedural_name(seed);
    const std::string tma = tb::one_line(emit_cuda(seed));
    EXPECT_NE(tma.find("cp.async.bulk.tensor.1d.shared::cluster"), std::string::npos);
    EXPECT_NE(tma.find("bar_wait(&s.bias_full, 0);"), std::string::npos);
    EXPECT_NE(tma.find("make_bias_map(&map_bias, buffers->bias, p)"), std::string::npos);
    EXPECT_EQ(tma.find("to_float(bias["), std::string::npos);
    EXPECT_EQ(tma.find("@@"), std::string::npos);
    DesignPoint global = seed;
    global.bias_load = design::BiasLoad::kGlobal;
    const std::string ldg = tb::one_line(emit_cuda(global));
    EXPECT_EQ(ldg.find("cp.async.bulk.tensor.1d"), std::string::npos);
    EXPECT_EQ(ldg.find("map_bias"), std::string::npos);
    EXPECT_NE(ldg.find("to_float(bias["), std::string::npos);
  }
}

TEST(HopperEmit, LaterAxesReachTheKernel) {
  // Designs with the later axes at their defaults keep the grid kernel they were profiled with.
  for (const auto& seed : seeds()) {
    const std::string text = tb::one_line(emit_cuda(seed));
    EXPECT_EQ(text.find("kSplitK"), std::string::npos);
    EXPECT_EQ(text.find("setmaxnreg"), std::string::npos);
    EXPECT_NE(text.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos);
  }
  const auto later = later_designs();
  {
    // setmaxnreg: the producer keeps 40, each of two consumers takes 232; the roles are the two
    // branches of one if/else (what ptxas needs to honour the split).
    const std::string t = tb::one_line(emit_cuda(later[0]));
    EXPECT_NE(t.find("constexpr int kProducerRegs = 40, kConsumerRegs = 232;"), std::string::npos);
    EXPECT_NE(t.find("setmaxnreg.dec.sync.aligned.u32 %0;\" ::\"n\"(kProducerRegs)"), std::string::npos);
    EXPECT_NE(t.find("setmaxnreg.inc.sync.aligned.u32 %0;\" ::\"n\"(kConsumerRegs)"), std::string::npos);
    EXPECT_NE(t.find("} else {  // consumers"), std::string::npos);
    EXPECT_NE(t.find("constexpr int kSplitK = 1, kInFlight = 2;"), std::string::npos);
    EXPECT_NE(t.find("wgmma.wait_group.sync.aligned %0;\" ::\"n\"(kInFlight)"), std::string::npos);
    // persistent: one block per SM, the bulk-store tile in a buffer of its own
    EXPECT_NE(t.find("constexpr bool kPersistent = true;"), std::string::npos);
    EXPECT_NE(t.find("cudaDevAttrMultiProcessorCount"), std::string::npos);
    EXPECT_NE(t.find("elem_t epi[kConsumers * 64 * kBN]"), std::string::npos);
    EXPECT_NE(t.find("elem_t* tile = s.epi + c * 64 * kBN;"), std::string::npos);
    EXPECT_EQ(t.find("reduce_split_k"), std::string::npos);
    EXPECT_EQ(t.find("@@"), std::string::npos);
  }
  {
    // split-K: fp32 partials in the workspace, the bias in slice 0 (from shared memory here),
    // reduce_split_k adds the slices in order after the GEMM on the same stream.
    const std::string t = tb::one_line(emit_cuda(later[2]));
    EXPECT_NE(t.find("constexpr int kSplitK = 2, kInFlight = 2;"), std::string::npos);
    EXPECT_NE(t.find("if (w.slice == 0) v += to_float(s.bias[col - n0]);"), std::string::npos);
    EXPECT_NE(t.find("p.partials[((static_cast<long long>(z) * kSplitK + w.slice) * p.M + row) * p.N + col] = v;"),
              std::string::npos);
    EXPECT_NE(t.find("w.partials = take(static_cast<size_t>(p.batch) * kSplitK * p.M * p.N * sizeof(float));"), std::string::npos);
    EXPECT_NE(t.find("reduce_split_k<<<"), std::string::npos);
    // peeked, not taken: the launch's return value still reports a failed GEMM launch
    EXPECT_NE(t.find("if (kSplitK > 1 && cudaPeekAtLastError() == cudaSuccess)"), std::string::npos);
    EXPECT_NE(t.find("for (int sl = 0; sl < kSplitK; ++sl) v += part[sl * mn];"), std::string::npos);
    EXPECT_EQ(t.find("to_float(bias["), std::string::npos);  // no ordinary bias load in any kernel
    EXPECT_EQ(t.find("setmaxnreg"), std::string::npos);
    EXPECT_EQ(t.find("@@"), std::string::npos);
    const std::string g = tb::one_line(emit_cuda(later[3]));  // bias_load global: slice 0 reads it with ordinary loads
    EXPECT_NE(g.find("if (w.slice == 0) v += to_float(bias[col]);"), std::string::npos);
    EXPECT_NE(g.find("kRoundTf32 = true"), std::string::npos);  // the weights' rounding copy
  }
  {
    // tf32_round shared: no rounding copy through the workspace; the consumers round each stage
    // (B only for a convolution, whose im2col rounds A) and hand it to wgmma through the proxy fence.
    const std::string conv = tb::one_line(emit_cuda(later[7]));
    EXPECT_NE(conv.find("kRoundTf32 = false"), std::string::npos);
    EXPECT_NE(conv.find("reinterpret_cast<float4*>(s.b[st])[e] = v;"), std::string::npos);
    EXPECT_EQ(conv.find("reinterpret_cast<float4*>(s.a[st])"), std::string::npos);
    EXPECT_NE(conv.find("cvt.rna.tf32.f32"), std::string::npos);
    const std::string lin = tb::one_line(emit_cuda(later[8]));
    EXPECT_NE(lin.find("reinterpret_cast<float4*>(s.a[st])[e] = v;"), std::string::npos);
    EXPECT_NE(lin.find("reinterpret_cast<float4*>(s.b[st])[e] = v;"), std::string::npos);
    const auto fence = lin.find("fence.proxy.async.shared::cta;\" ::: \"memory\"); asm volatile(\"bar.sync 1");
    EXPECT_NE(fence, std::string::npos);
    EXPECT_LT(fence, lin.find("wgmma.fence.sync.aligned", fence));
  }
}

TEST(HopperEmit, SwizzledEpilogueStagesBoxesTheCopyEngineUnswizzles) {
  const auto later = later_designs();
  const std::string persistent = tb::one_line(emit_cuda(later[9]));
  // 128-byte boxes with SWIZZLE_128B in the output map, one bulk copy per box, a 1024-byte
  // aligned staging tile (the swizzle pattern repeats every 1024 bytes)
  EXPECT_NE(persistent.find("constexpr int kBoxCols = 128 / static_cast<int>(sizeof(elem_t));"), std::string::npos);
  EXPECT_NE(persistent.find("const cuuint32_t box[3] = {static_cast<cuuint32_t>(kBoxCols), 64, 1};"), std::string::npos);
  EXPECT_NE(persistent.find("CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE"), std::string::npos);
  EXPECT_NE(persistent.find("alignas(1024) elem_t epi[kConsumers * 64 * kBN];"), std::string::npos);
  EXPECT_NE(persistent.find("for (int b = 0; b < kBN / kBoxCols; ++b)"), std::string::npos);
  EXPECT_NE(persistent.find("const int chunk = (byte >> 4) ^ (row & 7);"), std::string::npos);
  // persistent: the wait for the previous copies precedes the rewrite, and the block waits for
  // its last copies before it exits
  const auto wait = persistent.find("if (t == 0) asm volatile(\"cp.async.bulk.wait_group.read 0;\"");
  ASSERT_NE(wait, std::string::npos);
  EXPECT_LT(wait, persistent.find("elem_t* tile = s.epi + c * 64 * kBN;"));
  EXPECT_NE(persistent.find("the last tile's copies must have read shared memory"), std::string::npos);
  EXPECT_EQ(persistent.find("@@"), std::string::npos);
  // the grid schedule stages in the A ring; unswizzled designs keep their box and swizzle
  const std::string grid = tb::one_line(emit_cuda(later[10]));
  EXPECT_NE(grid.find("elem_t* tile = reinterpret_cast<elem_t*>(&s.a[0][0]) + c * 64 * kBN;"), std::string::npos);
  EXPECT_NE(grid.find("CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE"), std::string::npos);
  const std::string plain = tb::one_line(emit_cuda(seeds()[0]));
  EXPECT_NE(plain.find("const cuuint32_t box[3] = {static_cast<cuuint32_t>(kBN), 64, 1};"), std::string::npos);
  EXPECT_EQ(plain.find("SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE"), std::string::npos);
  EXPECT_EQ(plain.find("kBoxCols"), std::string::npos);
}

TEST(HopperEmit, ConsumerLayoutColumnsSharesTheASliceAndSplitsN) {
  const auto cols = columns_designs();
  for (const DesignPoint& d : cols) {
    SCOPED_TRACE(design::procedural_name(d));
    ASSERT_TRUE(design::hopper_columns(d));
    const int cn = design::hopper_consumer_n(d);
    const std::string t = tb::one_line(emit_cuda(d));
    // the wgmma of the consumer's N', on the one A slice and the consumer's B rows
    EXPECT_NE(t.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(cn) + "k"), std::string::npos);
    if (cn != d.tile.n) {
      EXPECT_EQ(t.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(d.tile.n) + "k"), std::string::npos);
    }
    EXPECT_NE(t.find("constexpr int kCN = " + std::to_string(cn) + ";"), std::string::npos);
    EXPECT_NE(t.find("kBM = 64,"), std::string::npos);
    EXPECT_NE(t.find("wgmma_tile(acc, tile_desc(&s.a[st][0]) + 2 * kk, tile_desc(&s.b[st][c * kCN * kBK]) + 2 * kk);"),
              std::string::npos);
    EXPECT_EQ(t.find("c * 64 * kBK"), std::string::npos);
    EXPECT_NE(t.find("float acc[kCN / 2];"), std::string::npos);
    EXPECT_EQ(t.find("kBN / 2"), std::string::npos);
    EXPECT_EQ(t.find("m0 + c * 64"), std::string::npos);  // no consumer owns rows
    EXPECT_NE(t.find("consumer_layout columns"), std::string::npos);
    EXPECT_EQ(t.find("@@"), std::string::npos);
  }
  // the epilogues: direct stores at columns n0 + c kCN; each consumer's part staged at c 64 kCN
  // and stored at (n0 + c kCN, m0) in kCN-wide (or 128-byte swizzled) boxes; partials per box
  const std::string staged = tb::one_line(emit_cuda(cols[0]));
  EXPECT_NE(staged.find("elem_t* tile = reinterpret_cast<elem_t*>(&s.a[0][0]) + c * 64 * kCN;"), std::string::npos);
  EXPECT_NE(staged.find("tile[row * kCN + col] = from_float(v);"), std::string::npos);
  EXPECT_NE(staged.find("v += to_float(s.bias[c * kCN + col]);"), std::string::npos);
  EXPECT_NE(staged.find("\"r\"(smem_addr(tile)), \"r\"(n0 + c * kCN), \"r\"(m0), \"r\"(z)"), std::string::npos);
  EXPECT_NE(staged.find("const cuuint32_t box[3] = {static_cast<cuuint32_t>(kCN), 64, 1};"), std::string::npos);
  const std::string paired = tb::one_line(emit_cuda(cols[1]));
  EXPECT_NE(paired.find("v += bias_pair(bias, n0 + c * kCN + col - e, p.N, e);"), std::string::npos);
  const std::string swz = tb::one_line(emit_cuda(cols[2]));
  EXPECT_NE(swz.find("for (int b = 0; b < kCN / kBoxCols; ++b)"), std::string::npos);
  EXPECT_NE(swz.find("\"r\"(n0 + c * kCN + b * kBoxCols), \"r\"(m0), \"r\"(z)"), std::string::npos);
  const std::string direct = tb::one_line(emit_cuda(cols[3]));
  EXPECT_NE(direct.find("const long long row = m0 + warp * 16 + lane / 4 + 8 * h;"), std::string::npos);
  EXPECT_NE(direct.find("const long long col = n0 + c * kCN + 8 * j + 2 * (lane % 4) + e;"), std::string::npos);
  EXPECT_NE(direct.find("for (int j = 0; j < kCN / 8; ++j)"), std::string::npos);
  const std::string persistent = tb::one_line(emit_cuda(cols[4]));
  EXPECT_NE(persistent.find("alignas(1024) elem_t epi[kConsumers * 64 * kCN];"), std::string::npos);
  EXPECT_NE(persistent.find("elem_t* tile = s.epi + c * 64 * kCN;"), std::string::npos);
  const std::string partials = tb::one_line(emit_cuda(cols[7]));
  EXPECT_NE(partials.find("for (int b = 0; b < kCN / kBoxCols; ++b)"), std::string::npos);
  EXPECT_NE(partials.find("if (w.slice == 0) v += to_float(s.bias[c * kCN + b * kBoxCols + bc]);"), std::string::npos);
  EXPECT_NE(partials.find("\"r\"(n0 + c * kCN + b * kBoxCols), \"r\"(m0), \"r\"(z * kSplitK + w.slice)"), std::string::npos);
  EXPECT_NE(partials.find("reinterpret_cast<float4*>(s.b[st])[e] = v;"), std::string::npos);  // tf32_round shared
  // rows designs keep their text: no kCN anywhere
  for (const auto& d : later_designs()) EXPECT_EQ(tb::one_line(emit_cuda(d)).find("kCN"), std::string::npos);
}

TEST(HopperEmit, SplitKPartialsLeaveByBulkCopyOneBoxAtATime) {
  // The threads of a split-K design with a bulk store write no partial sum to global memory: the
  // output map covers the fp32 partials [batch x kSplitK][M][N], each 64 x 32 box is staged in
  // the A ring and copied, and reduce_split_k still adds the slices.
  const auto later = later_designs();
  const std::string dense = tb::one_line(emit_cuda(later[12])), swizzled = tb::one_line(emit_cuda(later[13]));
  for (const std::string* src : {&dense, &swizzled}) {
    EXPECT_NE(src->find("make_out_map(&map_out, p.partials, p)"), std::string::npos);
    EXPECT_NE(src->find("static_cast<cuuint64_t>(p.batch * kSplitK)};"), std::string::npos);
    EXPECT_NE(src->find("constexpr int kBoxCols = 128 / static_cast<int>(sizeof(elem_t));"), std::string::npos);
    EXPECT_NE(src->find("const cuuint32_t box[3] = {static_cast<cuuint32_t>(kBoxCols), 64, 1};"), std::string::npos);
    EXPECT_NE(src->find("float* box_tile = reinterpret_cast<float*>(&s.a[0][0]) + c * 64 * kBoxCols;"), std::string::npos);
    EXPECT_NE(src->find("\"r\"(z * kSplitK + w.slice)"), std::string::npos);
    EXPECT_NE(src->find("reduce_split_k<<<"), std::string::npos);
    EXPECT_NE(src->find("stored by bulk copy"), std::string::npos);
    EXPECT_EQ(src->find("p.partials[(("), std::string::npos);  // no thread stores a partial itself
    EXPECT_EQ(src->find("@@"), std::string::npos);
  }
  EXPECT_NE(dense.find("if (w.slice == 0) v += to_float(s.bias[b * kBoxCols + bc]);"), std::string::npos);
  EXPECT_NE(dense.find("box_tile[row * kBoxCols + bc] = v;"), std::string::npos);
  EXPECT_NE(dense.find("CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE"), std::string::npos);
  EXPECT_NE(swizzled.find("if (w.slice == 0) v += n0 + b * kBoxCols + bc < p.N ?"), std::string::npos);
  EXPECT_NE(swizzled.find("const int chunk = ((bc * 4) >> 4) ^ (row & 7);"), std::string::npos);
  EXPECT_NE(swizzled.find("CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE"), std::string::npos);
  // the same design with the direct epilogue stores its partials from the threads
  const std::string direct = tb::one_line(emit_cuda(with(later[12], {"epilogue_store=direct"})));
  EXPECT_NE(direct.find("p.partials[(("), std::string::npos);
  EXPECT_NE(direct.find("make_out_map(&map_out, buffers->out, p)"), std::string::npos);
}

TEST(HopperEmit, PairedBiasLoadsEachColumnPairOncePastL1) {
  // bias_load paired: one ld.global.cg of a (bf16x2 | half2 | float2) pair per column pair, in
  // the grid kernel's tile and direct epilogues and in the general kernel's staged and split-K
  // epilogues; no ordinary element load of the bias is left.
  const auto s = seeds();
  const auto later = later_designs();
  const std::vector<std::pair<DesignPoint, const char*>> cases = {
      {with(s[0], {"bias_load=paired"}), "__nv_bfloat162"},
      {with(s[0], {"bias_load=paired", "epilogue_store=direct"}), "__nv_bfloat162"},
      {later[14], "__nv_bfloat162"},
      {later[15], "float2"},
  };
  for (const auto& [d, pair] : cases) {
    const std::string src = tb::one_line(emit_cuda(d));
    EXPECT_NE(src.find(std::string("using pair_t = ") + pair + ";"), std::string::npos) << design::procedural_name(d);
    EXPECT_NE(src.find("__ldcg(reinterpret_cast<const pair_t*>(bias + c0))"), std::string::npos);
    EXPECT_NE(src.find("bias_pair(bias, "), std::string::npos);
    EXPECT_EQ(src.find("to_float(bias["), std::string::npos) << design::procedural_name(d);
    EXPECT_EQ(src.find("map_bias"), std::string::npos);
    EXPECT_NE(src.find("_bias-pairs"), std::string::npos);
  }
}

TEST(HopperEmit, SwizzledStagingAddressesAreABijectionWithoutBankConflicts) {
  // The staging address the swizzled epilogue computes (the emitted expression, restated), for
  // bf16 and fp32 tiles: every element of a 64 x n tile gets its own slot, and each store a warp
  // issues (fixed j, h, e) touches each 4-byte bank at most once for 2-byte elements (at most
  // twice for 4-byte ones), where the unswizzled layout of a 512-byte row is 8-way.
  for (int elem : {2, 4}) {
    const int box_cols = 128 / elem, n = 256;
    std::set<int> slots;
    int worst = 0, worst_plain = 0;
    for (int warp = 0; warp < 4; ++warp)
      for (int j = 0; j < n / 8; ++j)
        for (int h = 0; h < 2; ++h)
          for (int e = 0; e < 2; ++e) {
            std::map<int, std::set<int>> words_per_bank, plain_words_per_bank;
            for (int lane = 0; lane < 32; ++lane) {
              const int row = warp * 16 + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4) + e;
              const int box = col / box_cols, byte = (col % box_cols) * elem;
              const int chunk = (byte >> 4) ^ (row & 7);
              const int at = box * 64 * box_cols + row * box_cols + ((chunk << 4) | (byte & 15)) / elem;
              EXPECT_TRUE(slots.insert(at).second) << "slot " << at << " taken twice";
              words_per_bank[(at * elem / 4) % 32].insert(at * elem / 4);
              plain_words_per_bank[((row * n + col) * elem / 4) % 32].insert((row * n + col) * elem / 4);
            }
            for (const auto& [bank, words] : words_per_bank) worst = std::max(worst, static_cast<int>(words.size()));
            for (const auto& [bank, words] : plain_words_per_bank)
              worst_plain = std::max(worst_plain, static_cast<int>(words.size()));
          }
    EXPECT_EQ(slots.size(), static_cast<std::size_t>(64 * n));
    EXPECT_EQ(*slots.rbegin(), 64 * n - 1);
    EXPECT_LE(worst, elem == 2 ? 1 : 2) << elem << "-byte elements";
    EXPECT_EQ(worst_plain, 8) << elem << "-byte elements, unswizzled";
  }
}

// The consumer_layout columns candidates of the three benches whose vendor kernels run a 64-row
// (or 48-row) tile at 384 threads, as the lead sets them for the H200: each valid, each wgmma N'.
std::vector<std::pair<DesignPoint, int>> bench_columns_candidates() {
  const auto lock = [](const char* bench) {
    return design::read_design((std::filesystem::path("../suite/vx-robotics/h200") / bench / "design.json").string());
  };
  return {
      {with(lock("pi0-4-linear"), {"consumer_layout=columns", "tile=64x64x64"}), 32},
      {with(lock("pi0-4-linear"), {"consumer_layout=columns", "tile=64x128x64"}), 64},
      {with(lock("pi0-5-linear"), {"consumer_layout=columns", "tile=64x64x64"}), 32},
      {with(lock("pi0-5-linear"), {"consumer_layout=columns", "tile=64x32x64"}), 16},
      {with(lock("diffusion_policy-2-conv1d"), {"consumer_layout=columns", "tile=64x64x32"}), 32},
      {with(lock("diffusion_policy-2-conv1d"), {"consumer_layout=columns", "tile=64x256x32"}), 128},
  };
}

TEST(HopperEmit, BenchColumnsCandidatesAreValidWithTheirWgmmaN) {
  for (const auto& [d, cn] : bench_columns_candidates()) {
    SCOPED_TRACE(design::procedural_name(d));
    EXPECT_EQ(design::hopper_consumer_n(d), cn);
    const std::string t = tb::one_line(emit_cuda(d));
    EXPECT_NE(t.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(cn) + "k"), std::string::npos);
    EXPECT_NE(t.find("kBM = 64,"), std::string::npos);
  }
}

// Compiles `designs` as one translation unit for sm_90a with `extra` nvcc flags; nvcc's output.
std::string compile_batch(const std::vector<DesignPoint>& designs, const std::string& scratch, std::vector<std::string> extra,
                          int* rc) {
  const std::string nvcc = tb::find_nvcc();
  const auto dir = tb::scratch_dir(scratch);
  // One translation unit, each design in a namespace of its own (the headers first, so their
  // include guards keep them out of the namespaces).
  std::ofstream unit(dir / "batch.cu");
  unit << "#include <cuda.h>\n#include <cudaTypedefs.h>\n#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n"
          "#include <cuda_fp16.h>\n#include \"vxsynth_candidate.h\"\n";
  for (std::size_t i = 0; i < designs.size(); ++i) {
    const std::string name = "design" + std::to_string(i) + ".cu";
    std::ofstream(dir / name) << emit_cuda(designs[i]);
    unit << "#define vxsynth_candidate_launch vxsynth_candidate_launch_" << i << "\n"
         << "#define vxsynth_candidate_workspace_bytes vxsynth_candidate_workspace_bytes_" << i << "\n"
         << "namespace design" << i << " {\n#include \"" << name << "\"\n}\n"
         << "#undef vxsynth_candidate_launch\n#undef vxsynth_candidate_workspace_bytes\n";
  }
  unit.close();
  const auto start = std::chrono::steady_clock::now();
  std::string output;
  std::vector<std::string> command = {nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-std=c++17", "-c", (dir / "batch.cu").string(),
                                      "-o", (dir / "batch.o").string(), "-I", VXSYNTH_CANDIDATE_ABI_DIR, "-I", dir.string()};
  command.insert(command.end(), extra.begin(), extra.end());
  *rc = run_program(command, &output);
  std::printf("nvcc: %zu Hopper designs compiled for sm_90a in %.1f s\n", designs.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return output;
}

TEST(HopperCuda, SampleCompilesForSm90a) {
  if (tb::find_nvcc().empty()) GTEST_SKIP() << "nvcc not found (set VXSYNTH_NVCC)";
  int rc = 0;
  const std::string output = compile_batch(sample(), "hopper-cuda", {}, &rc);
  EXPECT_EQ(rc, 0) << output;
}

TEST(HopperCuda, BenchColumnsCandidatesCompileForSm90aWithoutSpills) {
  if (tb::find_nvcc().empty()) GTEST_SKIP() << "nvcc not found (set VXSYNTH_NVCC)";
  std::vector<DesignPoint> designs;
  for (const auto& [d, cn] : bench_columns_candidates()) designs.push_back(d);
  int rc = 0;
  const std::string output = compile_batch(designs, "hopper-cuda-bench-columns", {"-O3", "-Xptxas", "-warn-spills,-Werror"}, &rc);
  EXPECT_EQ(rc, 0) << output;
}

TEST(HopperCuda, LaterAxesKeepAccumulatorsInRegisters) {
  // The designs of the general kernel (split_k, setmaxnreg, two groups in flight, persistent)
  // compiled with ptxas's spills as errors, on the -O3 the harness builds with: a register
  // budget the validity rules allow must hold the accumulators (BN 256 at 384 threads spills 60
  // bytes without setmaxnreg and none with it), ptxas must honour setmaxnreg (C7508 says it
  // did not) and keep the wgmma pipeline (C7514 says it serialized it).
  if (tb::find_nvcc().empty()) GTEST_SKIP() << "nvcc not found (set VXSYNTH_NVCC)";
  std::vector<DesignPoint> designs;
  for (const auto& d : sample()) {
    if (d.split_k != 1 || d.register_split != design::RegisterSplit::kNone || d.wgmma_in_flight != 1 ||
        d.schedule != design::Schedule::kGrid || design::hopper_columns(d))
      designs.push_back(d);
  }
  ASSERT_GE(designs.size(), 10u);
  int rc = 0;
  const std::string output = compile_batch(designs, "hopper-cuda-regs", {"-O3", "-Xptxas", "-warn-spills,-Werror"}, &rc);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(output.find("C7508"), std::string::npos) << output;
  EXPECT_EQ(output.find("C7514"), std::string::npos) << output;
}

TEST(HopperEmit, MulticastCopiesASlicePerBlockAndReleasesEachStageToItsGroup) {
  const auto sample = multicast_sample();
  ASSERT_GE(sample.size(), 15u);
  std::set<std::string> values;
  for (const auto& d : sample) {
    SCOPED_TRACE(design::procedural_name(d));
    values.insert(design::to_string(d.multicast));
    const std::string src = tb::one_line(emit_cuda(d));
    const bool a = design::multicast_a(d.multicast), b = design::multicast_b(d.multicast);
    // a block copies a slice of a shared tile (the map's box) to its whole group ...
    EXPECT_NE(src.find(std::string("constexpr int kSliceA = ") + (a ? "kBM / kClusterN" : "kBM") +
                       ", kSliceB = " + (b ? "kBN / kClusterM" : "kBN") + ";"),
              std::string::npos);
    EXPECT_NE(src.find("make_map(&map_a, a, p.M, p.K, p.batch, p.a_stride, kSliceA)"), std::string::npos);
    EXPECT_NE(src.find("make_map(&map_b, b, p.N, p.K, p.batch, p.b_stride, kSliceB)"), std::string::npos);
    EXPECT_EQ(src.find("tma_load_multicast(&s.a[st][place.pn * kSliceA * kBK]") != std::string::npos, a);
    EXPECT_EQ(src.find("tma_load_multicast(&s.b[st][place.pm * kSliceB * kBK]") != std::string::npos, b);
    EXPECT_EQ(src.find("tma_load(s.a[st]") != std::string::npos, !a);
    EXPECT_EQ(src.find("tma_load(s.b[st]") != std::string::npos, !b);
    EXPECT_NE(src.find(".multicast::cluster"), std::string::npos);
    // ... every block takes part (none returns before the cluster barrier) ...
    EXPECT_EQ(src.find("a block the cluster shape added beyond the tiles"), std::string::npos);
    EXPECT_NE(src.find("barrier.cluster.arrive.release.aligned"), std::string::npos);
    // ... a stage waits for the consumers of every block it went to, and nobody exits early
    EXPECT_NE(src.find("bar_init(&s.empty[i], kConsumers * __popc(place.peers));"), std::string::npos);
    EXPECT_EQ(src.find("bar_arrive(&s.empty"), std::string::npos);
    EXPECT_NE(src.find("release_to(&s.empty[(it - kInFlight) % kStages], place.peers);"), std::string::npos);
    // the remote arrival without a cluster-scope release: that one costs a MEMBAR.ALL.GPU per
    // arrival (2.2-2.5x slower kernels on the H200)
    EXPECT_NE(src.find("mbarrier.arrive.shared::cluster.b64 _, [remote];"), std::string::npos);
    EXPECT_EQ(src.find("mbarrier.arrive.release.cluster"), std::string::npos);
    EXPECT_NE(src.find("for (int u = it > kStages ? it - kStages : 0; u < it; ++u) bar_wait(&s.empty[u % kStages]"),
              std::string::npos);
    // the twin without multicast is the text it was: per-block copies, early return
    DesignPoint twin = d;
    twin.multicast = design::Multicast::kNone;
    const std::string plain = tb::one_line(emit_cuda(twin));
    EXPECT_EQ(plain.find("multicast"), std::string::npos);
    EXPECT_EQ(plain.find("kSlice"), std::string::npos);
  }
  EXPECT_EQ(values, (std::set<std::string>{"a", "b", "ab"}));
}

TEST(HopperCuda, MulticastSampleCompilesForSm90aWithoutSpills) {
  if (tb::find_nvcc().empty()) GTEST_SKIP() << "nvcc not found (set VXSYNTH_NVCC)";
  int rc = 0;
  const std::string output = compile_batch(multicast_sample(), "hopper-cuda-multicast", {"-O3", "-Xptxas", "-warn-spills,-Werror"}, &rc);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(output.find("C7514"), std::string::npos) << output;
}

TEST(HopperVortex, CounterpartsPassOnTheEmbeddedSimulator) {
  // The seeds (each precision and op kind) and one neighbour of each other axis of the first.
  std::vector<DesignPoint> designs = seeds();
  // split_k carries over to the counterpart (the GEMM family's two passes on Vortex).
  designs.push_back(later_designs()[3]);
  // consumer_layout columns: the counterpart of a 64 x n tile (two and three consumers).
  designs.push_back(columns_designs()[0]);
  designs.push_back(columns_designs()[11]);
  sim_runner::run_all(designs, "hopper-vortex");
}

}  // namespace
}  // namespace vxsynth::codegen
