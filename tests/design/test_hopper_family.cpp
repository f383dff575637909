// The Hopper family (design/hopper_family.h): seeds read from sm90 kernel names, every rule of
// the family named when broken, design.json round trips, neighbours that stay in the family, and
// a Vortex counterpart that is a valid GEMM design.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/error.h"
#include "common/json_io.h"
#include "design/hopper_family.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/seed.h"
#include "design/validity.h"

namespace vxsynth::design {
namespace {

namespace fs = std::filesystem;

std::string suite_ref(const std::string& bench) {
  return (fs::path("../suite/vx-robotics/h200") / bench / "reference.json").string();  // tests run in tests/
}

const KernelNameFact* fact(const DesignPoint& d, const std::string& key) {
  for (const auto& f : d.from_kernel_name)
    if (f.key == key) return &f;
  return nullptr;
}

// An odd-sized bf16 linear with bias at 384 threads (two consumer warpgroups).
DesignPoint linear_seed(int block = 384, std::int64_t k = 72) {
  std::string why;
  auto d = seed_hopper(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, k, true), block, "", "", {}, &why);
  EXPECT_TRUE(d) << why;
  return d ? *d : DesignPoint{};
}

std::string rule_of(const DesignPoint& d) {
  const auto v = can_implement(d);
  return v ? v->rule : "";
}

bool has_violation(const DesignPoint& d, const std::string& rule) {
  for (const auto& v : all_violations(d))
    if (v.rule == rule) return true;
  return false;
}

TEST(HopperFamily, Sm90ReferencesSeedTheFamily) {
  // The family comes from the sm90 name; its tile, stage and cluster tokens are inferred readings
  // (signature/kernel_name.cpp), so the seed keeps the family's defaults and the search moves them.
  const DesignPoint pi02 = seed_from_reference(suite_ref("pi0-2-linear"));
  ASSERT_TRUE(is_hopper(pi02)) << procedural_name(pi02);
  EXPECT_EQ(pi02.fragment, Fragment::kWgmmaK16);
  EXPECT_EQ(pi02.prefetch, Prefetch::kTma);
  EXPECT_EQ(pi02.stages, 4);
  EXPECT_EQ(pi02.cluster, (Cluster{1, 1}));
  // pi0-2's launch has 132 blocks on the 132-SM H200 for 448+ output tiles: a persistent kernel.
  // Its seed is the family's persistent configuration, the design locked at D 0.042 (tensor pipe
  // 82.8 % against the reference's 89.1 %): setmaxnreg, the swizzled bulk store, n 192 (n 256
  // would spill), raster m_major (7 M tiles against 86 N tiles: consecutive blocks share B).
  ASSERT_NE(fact(pi02, "launch_blocks"), nullptr);
  EXPECT_TRUE(fact(pi02, "launch_blocks")->used) << fact(pi02, "launch_blocks")->note;
  EXPECT_EQ(pi02.schedule, Schedule::kPersistent);
  EXPECT_EQ(pi02.register_split, RegisterSplit::kSetMaxNReg);
  EXPECT_EQ(pi02.epilogue_store, EpilogueStore::kTmaSwizzled);
  EXPECT_EQ(pi02.tile, (Tile{128, 192, 64}));  // 384 threads = 2 consumer warpgroups
  EXPECT_EQ(pi02.raster, Raster::kMMajor);
  EXPECT_TRUE(same_axes(pi02, read_design("../suite/vx-robotics/h200/pi0-2-linear/design.json")));
  // pi0-4's and pi0-5's launches (88 and 96 blocks) are not one per SM: grid schedule seeds.
  for (const char* b : {"pi0-4-linear", "pi0-5-linear"}) {
    const DesignPoint g = seed_from_reference(suite_ref(b));
    EXPECT_EQ(g.schedule, Schedule::kGrid) << b;
    EXPECT_EQ(g.epilogue_store, EpilogueStore::kTma) << b;
    EXPECT_EQ(fact(g, "launch_blocks"), nullptr) << b;
  }
  ASSERT_NE(fact(pi02, "family"), nullptr);
  EXPECT_TRUE(fact(pi02, "family")->used);
  EXPECT_EQ(fact(pi02, "tile"), nullptr);  // nvjet's 128x272 is not documented

  // N = 867 bf16 rows are 1734 bytes: no bulk store; one consumer at 256 threads.
  const DesignPoint pi03 = seed_from_reference(suite_ref("pi0-3-batched-matmul"));
  EXPECT_EQ(pi03.epilogue_store, EpilogueStore::kDirect);
  EXPECT_EQ(pi03.tile, (Tile{64, 128, 64}));

  const DesignPoint dp2 = seed_from_reference(suite_ref("diffusion_policy-2-conv1d"));
  EXPECT_EQ(dp2.fragment, Fragment::kWgmmaK8);  // tf32
  EXPECT_EQ(dp2.tile.k, 32);                    // one 128-byte row of fp32
  EXPECT_EQ(dp2.epilogue_store, EpilogueStore::kDirect);  // a conv's output is channels first
  // Every operand through the copy engine: the conv's bias too; pi0-2 has none to copy.
  EXPECT_EQ(dp2.bias_load, BiasLoad::kTma);
  EXPECT_EQ(pi02.bias_load, BiasLoad::kGlobal);
  EXPECT_EQ(seed_from_reference(suite_ref("pi0-5-linear")).bias_load, BiasLoad::kTma);
  EXPECT_NE(procedural_name(dp2).find("_bias-tma_"), std::string::npos) << procedural_name(dp2);

  // A pre-Hopper tensor-core kernel stays in the GEMM family.
  EXPECT_FALSE(is_hopper(seed_from_reference(suite_ref("act-5-conv2d"))));
  EXPECT_FALSE(is_hopper(seed_from_reference(suite_ref("pi0-1-batched-matmul"))));
}

TEST(HopperFamily, ADocumentedTileSetsTheWgmmaN) {
  std::string why;
  std::vector<KernelNameFact> confirmed = {{"tile", "128x64x64", false, "documented by the kernel name; agrees"},
                                           {"stages", "5", false, "documented by the kernel name; agrees"}};
  const auto d = seed_hopper(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true), 384, "", "sm90_x",
                             confirmed, &why);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->tile.n, 64);
  EXPECT_TRUE(fact(*d, "tile")->used);
  EXPECT_FALSE(fact(*d, "stages")->used);
  confirmed[0].value = "128x48x64";  // no wgmma N of the family
  const auto e = seed_hopper(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true), 384, "", "", confirmed, &why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->tile.n, 128);
  EXPECT_FALSE(fact(*e, "tile")->used);
}

TEST(HopperFamily, EveryRuleIsNamedWhenBroken) {
  const DesignPoint ok = linear_seed();
  ASSERT_EQ(rule_of(ok), "") << procedural_name(ok);
  std::map<std::string, DesignPoint> broken;
  {
    DesignPoint d = ok;
    d.prefetch = Prefetch::kDoubleBuffer;  // wgmma without the TMA ring
    broken["hopper-lowering"] = d;
  }
  {
    DesignPoint d = ok;
    d.fixed.block_size = 320;
    d.warps = {10, 1};
    broken["hopper-block"] = d;
  }
  {
    std::string why;
    EXPECT_FALSE(seed_hopper(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 37, false), 384, "", "", {}, &why));
    EXPECT_NE(why.find("hopper-tma-alignment"), std::string::npos) << why;  // 37 x 2 bytes
    EXPECT_FALSE(seed_hopper(ops::make_linear("t", ops::PrecisionPath::fp32, 77, 96, 64, false), 384, "", "", {}, &why));
    EXPECT_NE(why.find("hopper-lowering"), std::string::npos) << why;
    EXPECT_FALSE(seed_hopper(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 64, false, ops::Activation::gelu), 384,
                             "", "", {}, &why));
    EXPECT_NE(why.find("hopper-op"), std::string::npos) << why;
    EXPECT_FALSE(seed_hopper(ops::make_matmul("t", ops::PrecisionPath::bf16, {2}, {2}, 40, 48, 64, true, true), 256, "",
                             "", {}, &why));
    EXPECT_NE(why.find("hopper-op"), std::string::npos) << why;  // A transposed: not K-contiguous
  }
  {
    DesignPoint d = ok;
    d.tile.n = 48;
    broken["hopper-tile"] = d;
  }
  {
    DesignPoint d = ok;
    d.read_once = ReadOnce::kStreaming;
    broken["hopper-fixed"] = d;
  }
  {
    // One consumer at 256 threads already has 255 registers: nothing to move.
    DesignPoint d = ok;
    d.fixed.block_size = 256;
    d.warps = {8, 1};
    d.tile.m = 64;
    d.register_split = RegisterSplit::kSetMaxNReg;
    broken["hopper-register-split"] = d;
  }
  {
    // Two groups in flight hold two stages: the producer needs a third.
    DesignPoint d = ok;
    d.stages = 2;
    d.epilogue_store = EpilogueStore::kDirect;
    d.wgmma_in_flight = 2;
    broken["hopper-in-flight"] = d;
    d.stages = 3;
    EXPECT_EQ(rule_of(d), "");
    d.wgmma_in_flight = 3;
    EXPECT_EQ(rule_of(d), "hopper-in-flight");
    d.wgmma_in_flight = 0;
    EXPECT_EQ(rule_of(d), "hopper-in-flight");
  }
  {
    // A bf16 design's split-K partials leave through the direct epilogue (the bulk store of
    // partials stages them in the output's type: fp32 only); each slice needs a k-tile (K 72 = 2 of 64).
    DesignPoint d = ok;
    ASSERT_EQ(d.epilogue_store, EpilogueStore::kTma);
    d.split_k = 2;
    broken["hopper-split-k"] = d;
    d.epilogue_store = EpilogueStore::kDirect;
    EXPECT_EQ(rule_of(d), "");
    d.split_k = 3;
    EXPECT_EQ(rule_of(d), "hopper-split-k");
    d.split_k = 0;
    EXPECT_EQ(rule_of(d), "hopper-split-k");
  }
  {
    // Rounding in shared memory is for tf32 operands; the seed is bf16.
    DesignPoint d = ok;
    d.tf32_round = Tf32Round::kShared;
    broken["hopper-tf32-round"] = d;
  }
  {
    // A persistent block changes tile: no bias slice in shared memory, no clusters.
    DesignPoint d = ok;
    ASSERT_EQ(d.bias_load, BiasLoad::kTma);
    d.schedule = Schedule::kPersistent;
    broken["hopper-schedule"] = d;
    d.bias_load = BiasLoad::kGlobal;
    EXPECT_EQ(rule_of(d), "");
    d.cluster = {2, 1};
    EXPECT_EQ(rule_of(d), "hopper-schedule");
  }
  {
    DesignPoint d = ok;
    d.stages = 9;
    broken["hopper-stages"] = d;
  }
  {
    // 512 threads leave 128 registers a thread: m64n256 needs 128 accumulators alone.
    DesignPoint d = ok;
    d.fixed.block_size = 512;
    d.warps = {16, 1};
    d.tile = {192, 256, 64};
    d.stages = 2;
    d.epilogue_store = EpilogueStore::kDirect;
    broken["hopper-registers"] = d;
    // setmaxnreg gives each of the three consumers 152 (40 left to the producer), but ptxas
    // compiles each wgmma within the 128 the kernel starts with: n 224 (112 + 26) does not fit
    // either way, n 192 does.
    d.register_split = RegisterSplit::kSetMaxNReg;
    EXPECT_EQ(hopper_consumer_registers(d), 152);
    EXPECT_EQ(rule_of(d), "hopper-registers");
    d.tile.n = 224;
    EXPECT_EQ(rule_of(d), "hopper-registers");
    d.tile.n = 192;
    EXPECT_EQ(rule_of(d), "");
  }
  {
    // The swizzled epilogue's staging addresses cost registers (measured with ptxas 13.0 on
    // pi0-2's designs at 384 threads): n 256 spills even with setmaxnreg's 232, n 192 spills
    // with the 168 a thread starts with and fits with 232.
    DesignPoint d = ok;
    d.epilogue_store = EpilogueStore::kTmaSwizzled;
    d.schedule = Schedule::kPersistent;
    d.bias_load = BiasLoad::kGlobal;
    d.register_split = RegisterSplit::kSetMaxNReg;
    d.stages = 3;
    d.tile.n = 256;
    EXPECT_EQ(rule_of(d), "hopper-registers");
    d.tile.n = 192;
    EXPECT_EQ(rule_of(d), "");
    d.register_split = RegisterSplit::kNone;
    EXPECT_EQ(rule_of(d), "hopper-registers");
    d.tile.n = 128;
    EXPECT_EQ(rule_of(d), "");
    d.epilogue_store = EpilogueStore::kTma;  // the unswizzled epilogue keeps the accumulator rule
    d.tile.n = 192;
    EXPECT_EQ(rule_of(d), "");
  }
  {
    // At 384 threads the kernel starts with 168 registers a thread; the producer keeps 40 and
    // the two consumers take 232: 128 x 40 + 256 x 232 = 168 x 384, the block's whole file.
    DesignPoint d = ok;
    d.register_split = RegisterSplit::kSetMaxNReg;
    EXPECT_EQ(hopper_entry_registers(384), 168);
    EXPECT_EQ(hopper_consumer_registers(d), 232);
    EXPECT_EQ(128 * kHopperProducerRegisters + 256 * hopper_consumer_registers(d), 168 * 384);
    d.fixed.block_size = 512;
    EXPECT_LE(128 * kHopperProducerRegisters + 384 * hopper_consumer_registers(d), hopper_entry_registers(512) * 512);
  }
  {
    DesignPoint d = ok;
    d.stages = 8;
    d.tile.n = 256;  // 8 x (128 + 256) x 64 x 2 bytes
    broken["cuda-shared-capacity"] = d;
  }
  {
    DesignPoint d = ok;
    d.tile.n = 256;
    d.stages = 3;  // a 256-wide staged output tile does not fit 3 x 64 columns of the A ring
    broken["hopper-epilogue"] = d;
    // A persistent block stages it in a buffer of its own (counted in shared memory).
    DesignPoint p = d;
    p.schedule = Schedule::kPersistent;
    p.bias_load = BiasLoad::kGlobal;
    EXPECT_EQ(rule_of(p), "");
    EXPECT_GE(hopper_shared_bytes(p), hopper_shared_bytes(d) + 128 * 256 * 2 - 1024);  // the 128 x 256 bf16 tile
    p.stages = 4;  // 4 x (128 + 256) x 64 x 2 + 64 KiB: beyond 227 KiB
    EXPECT_EQ(rule_of(p), "cuda-shared-capacity");
  }
  {
    DesignPoint d = ok;
    d.cluster = {3, 1};
    broken["hopper-cluster"] = d;
  }
  {
    DesignPoint d = ok;
    d.cluster = {4, 4};
    EXPECT_EQ(rule_of(d), "hopper-cluster");
  }
  {
    // A multicast of A with one block per cluster row: nobody to share with.
    DesignPoint d = ok;
    d.cluster = {2, 1};
    d.multicast = Multicast::kA;
    broken["hopper-multicast"] = d;
  }
  {
    // The family's axes on a GEMM design.
    DesignPoint d = seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true),
                                EngineClass::kTensorCore, 128);
    d.stages = 3;
    broken["hopper-axes"] = d;
  }
  {
    // 70000 batches: beyond grid z.
    DesignPoint d = ok;
    d.op = ops::make_matmul("t", ops::PrecisionPath::bf16, {70000}, {1}, 77, 96, 72, false, true);
    d.fixed.shape = d.op.gemm_view();
    d.epilogue_store = EpilogueStore::kDirect;
    d.bias_load = BiasLoad::kGlobal;  // the matmul has no bias
    broken["hopper-grid"] = d;
  }
  {
    // A bias copy for an op without a bias.
    DesignPoint d = ok;
    ASSERT_EQ(d.bias_load, BiasLoad::kTma);  // the seed copies its bias
    d.op = ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, false);
    broken["hopper-bias"] = d;
  }
  {
    // bias_load is the Hopper family's: a GEMM design with it breaks hopper-axes.
    DesignPoint d = seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true),
                                EngineClass::kTensorCore, 128);
    d.bias_load = BiasLoad::kTma;
    EXPECT_EQ(rule_of(d), "hopper-axes");
  }
  {
    // Fine on the H200, but A has 2^31 elements: beyond the Vortex side's 32-bit indices.
    DesignPoint d = ok;
    d.op = ops::make_linear("t", ops::PrecisionPath::bf16, 65536, 96, 32768, true);
    d.fixed.shape = d.op.gemm_view();
    broken["vortex-counterpart"] = d;
  }
  std::set<std::string> covered;
  for (const auto& [rule, d] : broken) {
    EXPECT_EQ(rule_of(d), rule) << procedural_name(d) << ": " << (can_implement(d) ? can_implement(d)->detail : "");
    covered.insert(rule);
  }
  covered.insert({"hopper-tma-alignment", "hopper-op"});  // through seed_hopper above
  std::set<std::string> documented;
  for (const auto& [id, text] : rule_descriptions()) documented.insert(id);
  for (const auto& rule : covered) EXPECT_TRUE(documented.count(rule)) << rule;
  for (const auto& [rule, text] : hopper_rule_descriptions()) EXPECT_TRUE(covered.count(rule)) << "untested rule " << rule;
}

TEST(HopperFamily, DesignJsonRoundTripsAndOnlyHopperDesignsCarryTheFamilysAxes) {
  DesignPoint d = linear_seed();
  d.stages = 5;
  d.raster = Raster::kMMajor;
  d.cluster = {2, 2};
  ASSERT_EQ(rule_of(d), "");
  const Json j = design_to_json(d);
  EXPECT_EQ(j["axes"]["pipeline_stages"], 5);
  EXPECT_EQ(j["axes"]["raster"], "m_major");
  EXPECT_EQ(j["axes"]["cluster"]["n"], 2);
  EXPECT_EQ(j["axes"]["bias_load"], "tma");  // the seed's op has a bias
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, d));
  EXPECT_EQ(procedural_name(back), procedural_name(d));
  // A design.json written before bias_load existed reads as the ordinary loads it was made with.
  Json old = j;
  old["axes"].erase("bias_load");
  EXPECT_EQ(design_from_json(old, "old.json").bias_load, BiasLoad::kGlobal);
  old["axes"]["bias_load"] = "ldg";
  try {
    design_from_json(old, "old.json");
    FAIL() << "an unknown bias_load was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("axes.bias_load"), std::string::npos) << e.what();
  }
  // No bias, no bias_load in the file.
  DesignPoint nobias = seed_from_reference(suite_ref("pi0-2-linear"));
  EXPECT_FALSE(design_to_json(nobias)["axes"].contains("bias_load"));

  const DesignPoint gemm = seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true),
                                       EngineClass::kTensorCore, 128);
  Json g = design_to_json(gemm);
  EXPECT_FALSE(g["axes"].contains("pipeline_stages"));
  EXPECT_FALSE(g["axes"].contains("cluster"));
  g["axes"]["raster"] = "m_major";
  const DesignPoint odd = design_from_json(g, "y.json");
  EXPECT_EQ(rule_of(odd), "hopper-axes");
  g["axes"]["raster"] = "diagonal";
  try {
    design_from_json(g, "y.json");
    FAIL() << "an unknown raster was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("axes.raster"), std::string::npos) << e.what();
  }
}

TEST(HopperFamily, NeighboursStayInTheFamilyAndGemmDesignsNeverStepIntoIt) {
  // pi0-4: a grid-schedule seed without a bias (pi0-2's persistent seed has no cluster steps).
  const DesignPoint d = seed_from_reference(suite_ref("pi0-4-linear"));
  const auto ns = neighbours(d);
  ASSERT_GE(ns.size(), 6u);
  std::set<Axis> axes;
  for (const auto& n : ns) {
    EXPECT_TRUE(is_hopper(n.design));
    EXPECT_EQ(rule_of(n.design), "") << procedural_name(n.design);
    axes.insert(n.move.axis);
  }
  EXPECT_TRUE(axes.count(Axis::kPipelineStages));
  EXPECT_TRUE(axes.count(Axis::kCluster));
  EXPECT_TRUE(axes.count(Axis::kRaster));
  EXPECT_TRUE(axes.count(Axis::kEpilogueStore));
  EXPECT_TRUE(axes.count(Axis::kTile));
  EXPECT_FALSE(axes.count(Axis::kSplitK));
  EXPECT_FALSE(axes.count(Axis::kBiasLoad));  // pi0-4 has no bias
  {
    // pi0-2's persistent seed: its neighbours are valid too (no n 96: the swizzled boxes need
    // 128-byte rows; no cluster: persistent blocks are launched one per SM).
    const auto p = neighbours(seed_from_reference(suite_ref("pi0-2-linear")));
    ASSERT_GE(p.size(), 6u);
    for (const auto& n : p) {
      EXPECT_EQ(rule_of(n.design), "") << procedural_name(n.design);
      EXPECT_NE(n.move.axis, Axis::kCluster);
    }
  }
  {
    const DesignPoint biased = seed_from_reference(suite_ref("pi0-5-linear"));
    // bias_load steps to each other value: ordinary loads, or pair loads past L1
    std::set<BiasLoad> stepped;
    for (const auto& n : neighbours(biased)) {
      if (n.move.axis != Axis::kBiasLoad) continue;
      EXPECT_NE(n.design.bias_load, BiasLoad::kTma);
      EXPECT_EQ(rule_of(n.design), "");
      stepped.insert(n.design.bias_load);
    }
    EXPECT_EQ(stepped, (std::set<BiasLoad>{BiasLoad::kGlobal, BiasLoad::kPaired}));
    DesignPoint unbiased = seed_from_reference(suite_ref("pi0-2-linear"));
    unbiased.bias_load = BiasLoad::kPaired;
    EXPECT_EQ(rule_of(unbiased), "hopper-bias");
    EXPECT_EQ(apply(biased, {parse_setting("bias_load=global", "--set")}, "--set").bias_load, BiasLoad::kGlobal);
  }
  // A tile step moves n only; --set works on the new axes and names bad values.
  const DesignPoint up = apply(d, Move{Axis::kTile, "n:down", "", std::nullopt});
  EXPECT_EQ(up.tile, (Tile{128, 64, 64}));
  const DesignPoint set = apply(d, {parse_setting("pipeline_stages=6", "--set"), parse_setting("cluster=1x2", "--set")}, "--set");
  EXPECT_EQ(set.stages, 6);
  EXPECT_EQ(set.cluster, (Cluster{1, 2}));
  EXPECT_THROW(apply(d, {parse_setting("pipeline_stages=x", "--set")}, "--set"), InputError);
  EXPECT_THROW(apply(d, {parse_setting("pipeline_stages=12", "--set")}, "--set"), InputError);

  const DesignPoint gemm = seed_from_reference(suite_ref("pi0-1-batched-matmul"));
  for (const auto& n : neighbours(gemm)) {
    EXPECT_FALSE(is_hopper(n.design)) << procedural_name(n.design);
    EXPECT_FALSE(is_hopper_axis(n.move.axis));
  }
}

TEST(HopperFamily, LaterAxesRoundTripStepAndLeaveLockedDesignsAlone) {
  // The locked Hopper designs read and write back the same JSON: the later axes (split_k > 1,
  // register_split, wgmma_in_flight, schedule) appear in design.json only when moved.
  for (const char* bench : {"pi0-2-linear", "pi0-4-linear", "pi0-5-linear", "diffusion_policy-2-conv1d"}) {
    const std::string path = (fs::path("../suite/vx-robotics/h200") / bench / "design.json").string();
    const Json file = read_json_file(path);
    EXPECT_EQ(design_to_json(read_design(path)), file) << bench;
  }
  // pi0-2's locked design with the later axes back at their defaults (the lock moves on as the
  // suite is refined; what is tested here is stepping from the defaults).
  const DesignPoint pi02 = apply(read_design("../suite/vx-robotics/h200/pi0-2-linear/design.json"),
                                 {parse_setting("tile=128x128x64", "--set"), parse_setting("register_split=none", "--set"),
                                  parse_setting("schedule=grid", "--set"), parse_setting("wgmma_in_flight=1", "--set"),
                                  parse_setting("pipeline_stages=5", "--set"), parse_setting("epilogue_store=tma", "--set")},
                                 "--set");
  const DesignPoint moved = apply(pi02,
                                  {parse_setting("tile=128x256x64", "--set"), parse_setting("register_split=setmaxnreg", "--set"),
                                   parse_setting("wgmma_in_flight=2", "--set"), parse_setting("schedule=persistent", "--set"),
                                   parse_setting("pipeline_stages=3", "--set"), parse_setting("epilogue_store=tma", "--set")},
                                  "--set");
  const Json j = design_to_json(moved);
  EXPECT_EQ(j["axes"]["register_split"], "setmaxnreg");
  EXPECT_EQ(j["axes"]["wgmma_in_flight"], 2);
  EXPECT_EQ(j["axes"]["schedule"], "persistent");
  EXPECT_TRUE(same_axes(design_from_json(j, "x.json"), moved));
  EXPECT_NE(procedural_name(moved).find("_setmaxnreg_if2_persistent"), std::string::npos) << procedural_name(moved);
  // Bad values name their field.
  auto error_of = [](Json bad) -> std::string {
    try {
      require_valid(design_from_json(bad, "bad.json"), "bad.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  {
    Json bad = j;
    bad["axes"]["register_split"] = "setmaxreg";
    EXPECT_NE(error_of(bad).find("axes.register_split"), std::string::npos) << error_of(bad);
    bad = j;
    bad["axes"]["schedule"] = "stream_k";
    EXPECT_NE(error_of(bad).find("axes.schedule"), std::string::npos) << error_of(bad);
    bad = j;
    bad["axes"]["wgmma_in_flight"] = "two";
    EXPECT_NE(error_of(bad).find("axes.wgmma_in_flight"), std::string::npos) << error_of(bad);
    bad = j;
    bad["axes"]["wgmma_in_flight"] = 3;
    EXPECT_NE(error_of(bad).find("wgmma_in_flight 3"), std::string::npos) << error_of(bad);
    bad = j;
    bad["axes"]["split_k"] = 2;  // bf16: partials leave through the direct epilogue, not the bulk store
    EXPECT_NE(error_of(bad).find("hopper-split-k"), std::string::npos) << error_of(bad);
  }
  {
    // The later axes are the Hopper family's: a GEMM design with one breaks hopper-axes.
    DesignPoint gemm = seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true), EngineClass::kTensorCore, 128);
    gemm.register_split = RegisterSplit::kSetMaxNReg;
    EXPECT_EQ(rule_of(gemm), "hopper-axes");
    gemm.register_split = RegisterSplit::kNone;
    gemm.schedule = Schedule::kPersistent;
    EXPECT_EQ(rule_of(gemm), "hopper-axes");
  }
  // Single-axis neighbours: pi0-2 (no bias, bulk-store epilogue) steps register_split,
  // wgmma_in_flight and schedule, not split_k; diffusion_policy-2 (direct epilogue, bias by bulk
  // copy) steps split_k but cannot go persistent.
  auto steps = [](const DesignPoint& d) {
    std::set<std::string> out;
    for (const auto& n : neighbours(d)) {
      EXPECT_EQ(rule_of(n.design), "") << procedural_name(n.design);
      out.insert(to_string(n.move.axis) + " " + n.move.direction);
    }
    return out;
  };
  const auto p = steps(pi02);
  for (const char* s : {"register_split to:setmaxnreg", "wgmma_in_flight up", "schedule to:persistent"}) EXPECT_TRUE(p.count(s)) << s;
  for (const char* s : {"split_k up", "wgmma_in_flight down", "split_k down"}) EXPECT_FALSE(p.count(s)) << s;
  const DesignPoint dp2 = apply(read_design("../suite/vx-robotics/h200/diffusion_policy-2-conv1d/design.json"),
                                {parse_setting("tile=128x128x32", "--set"), parse_setting("split_k=1", "--set"),
                                 parse_setting("tf32_round=workspace", "--set"), parse_setting("epilogue_store=direct", "--set")},
                                "--set");
  const auto q = steps(dp2);
  for (const char* s : {"split_k up", "register_split to:setmaxnreg", "wgmma_in_flight up"}) EXPECT_TRUE(q.count(s)) << s;
  EXPECT_FALSE(q.count("schedule to:persistent"));
  EXPECT_TRUE(q.count("tf32_round to:shared"));  // tf32 only
  EXPECT_FALSE(p.count("tf32_round to:shared"));
  {
    // tf32 (fp32 storage) split-K partials may leave by bulk copy, box by box through the A ring:
    // diffusion_policy-2's lock (n 256, split_k 8, swizzled) with either bulk store, even where the whole
    // tile would not fit the ring or the swizzled full-tile staging would need too many registers.
    const DesignPoint lock = read_design("../suite/vx-robotics/h200/diffusion_policy-2-conv1d/design.json");
    ASSERT_EQ(lock.split_k, 8);
    const auto lock_steps = steps(lock);
    EXPECT_TRUE(lock_steps.count("epilogue_store to:tma"));
    EXPECT_TRUE(lock_steps.count("epilogue_store to:direct"));
    for (const char* ep : {"epilogue_store=tma", "epilogue_store=tma_swizzled"}) {
      DesignPoint d = apply(lock, {parse_setting(ep, "--set")}, "--set");
      EXPECT_EQ(rule_of(d), "") << ep;
      d.split_k = 1;  // the finished tile of a convolution is channels first: no bulk store
      EXPECT_TRUE(has_violation(d, "hopper-epilogue")) << ep;
      d.split_k = 8;
      d.bias_load = BiasLoad::kGlobal;
      d.schedule = Schedule::kPersistent;  // the ring refills under a persistent block's epilogue
      EXPECT_EQ(rule_of(d), "hopper-split-k") << ep;
    }
  }
  const DesignPoint split = apply(dp2, Move{Axis::kSplitK, "up", "", std::nullopt});
  EXPECT_EQ(split.split_k, 2);
  EXPECT_TRUE(steps(split).count("split_k down"));
  // The Vortex side keeps split_k (the GEMM family's two passes) and has none of the others.
  DesignPoint all = apply(split, {parse_setting("split_k=8", "--set"), parse_setting("register_split=setmaxnreg", "--set"),
                                  parse_setting("wgmma_in_flight=2", "--set"), parse_setting("tf32_round=shared", "--set")},
                          "--set");
  EXPECT_EQ(design_to_json(all)["axes"]["tf32_round"], "shared");
  EXPECT_NE(procedural_name(all).find("_round-shared"), std::string::npos);
  const DesignPoint v = vortex_counterpart(all);
  EXPECT_EQ(rule_of(v), "") << procedural_name(v);
  EXPECT_EQ(v.split_k, 8);
  EXPECT_EQ(v.register_split, RegisterSplit::kNone);
  EXPECT_EQ(v.wgmma_in_flight, 1);
  EXPECT_EQ(v.schedule, Schedule::kGrid);
  EXPECT_EQ(v.tf32_round, Tf32Round::kWorkspace);
}

TEST(HopperFamily, ConsumerLayoutColumnsSplitsTheTileNOverOneSixtyFourRowSlice) {
  // pi0-4's design (M = 51: a 128-row tile pads the wgmma 2.5x) in the rows layout of its lock
  // before session 17, then with the consumers side by side (its lock since).
  DesignPoint lock = read_design("../suite/vx-robotics/h200/pi0-4-linear/design.json");
  lock.consumer_layout = ConsumerLayout::kRows;
  lock.tile = {128, 64, 64};
  ASSERT_EQ(rule_of(lock), "") << procedural_name(lock);
  EXPECT_FALSE(design_to_json(lock)["axes"].contains("consumer_layout"));  // the default is not written
  EXPECT_EQ(procedural_name(lock).find("_cols"), std::string::npos);
  const DesignPoint cols = apply(lock, {parse_setting("consumer_layout=columns", "--set"), parse_setting("tile=64x64x64", "--set")}, "--set");
  EXPECT_EQ(rule_of(cols), "") << procedural_name(cols);
  EXPECT_EQ(hopper_consumer_n(cols), 32);
  EXPECT_EQ(hopper_consumer_n(lock), 64);
  const Json j = design_to_json(cols);
  EXPECT_EQ(j["axes"]["consumer_layout"], "columns");
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, cols));
  EXPECT_NE(procedural_name(cols).find("_cols"), std::string::npos) << procedural_name(cols);
  EXPECT_EQ(procedural_name(back), procedural_name(cols));
  {
    Json bad = j;
    bad["axes"]["consumer_layout"] = "diagonal";
    try {
      design_from_json(bad, "bad.json");
      FAIL() << "an unknown consumer_layout was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("axes.consumer_layout"), std::string::npos) << e.what();
    }
  }
  // The rules, named when broken.
  {
    DesignPoint d = cols;
    d.tile.m = 128;  // the rows layout's m
    EXPECT_EQ(rule_of(d), "hopper-tile");
    d = cols;
    d.tile.n = 72;  // 36 columns per consumer: not a multiple of 8
    EXPECT_EQ(rule_of(d), "hopper-tile");
    d.tile.n = 16 * 17;  // beyond the copy engine's 256-row box
    EXPECT_EQ(rule_of(d), "hopper-tile");
    d.tile.n = 48;  // N' 24 is a wgmma N
    EXPECT_EQ(rule_of(d), "") << procedural_name(d);
    d.epilogue_store = EpilogueStore::kTmaSwizzled;  // 24 bf16 = 48 bytes per consumer: no 128-byte boxes
    EXPECT_EQ(rule_of(d), "hopper-epilogue");
    d.tile.n = 128;  // 64 bf16 = 128 bytes
    EXPECT_EQ(rule_of(d), "") << procedural_name(d);
    d = lock;
    d.tile = {64, 64, 64};  // a 64-row tile needs the columns layout at 384 threads
    EXPECT_EQ(rule_of(d), "hopper-tile");
  }
  {
    // Split-K partials by bulk copy stage one 64-row box per consumer in the A ring (64 rows a stage).
    DesignPoint d = apply(read_design("../suite/vx-robotics/h200/diffusion_policy-2-conv1d/design.json"),
                          {parse_setting("consumer_layout=columns", "--set"), parse_setting("tile=64x64x32", "--set")}, "--set");
    ASSERT_TRUE(bulk_stores_partials(d));
    EXPECT_EQ(rule_of(d), "") << procedural_name(d);
    d.fixed.block_size = 512;  // three consumers
    d.warps = {16, 1};
    d.tile.n = 96;
    EXPECT_EQ(rule_of(d), "") << procedural_name(d);
    d.stages = 2;
    d.wgmma_in_flight = 1;
    EXPECT_EQ(rule_of(d), "hopper-epilogue");
    d.stages = 3;
    d.tile.n = 48;  // 16 fp32 columns per consumer: half a 128-byte box
    EXPECT_EQ(rule_of(d), "hopper-epilogue");
    d.tile.n = 72;  // N' 24 fp32 = 96 bytes
    EXPECT_EQ(rule_of(d), "hopper-epilogue");
    d.tile.n = 60;  // N' 20: no wgmma N
    EXPECT_EQ(rule_of(d), "hopper-tile");
  }
  {
    // Outside the family the axis stays at rows.
    DesignPoint gemm = seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true), EngineClass::kTensorCore, 128);
    gemm.consumer_layout = ConsumerLayout::kColumns;
    EXPECT_EQ(rule_of(gemm), "hopper-axes");
    for (const auto& m : candidate_steps(seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true),
                                                     EngineClass::kTensorCore, 128)))
      EXPECT_NE(m.axis, Axis::kConsumerLayout);
  }
  // The step: last among the Hopper steps but multicast's; the tile follows the layout both ways.
  auto layout_step = [](const DesignPoint& d) {
    std::vector<Move> steps = candidate_steps(d);
    while (!steps.empty() && steps.back().axis == Axis::kMulticast) steps.pop_back();
    return steps.empty() ? Move{} : steps.back();
  };
  EXPECT_EQ(layout_step(lock).axis, Axis::kConsumerLayout);
  EXPECT_EQ(layout_step(lock).direction, "to:columns");
  const DesignPoint stepped = apply(lock, Move{Axis::kConsumerLayout, "to:columns", "", std::nullopt});
  EXPECT_EQ(stepped.tile, (Tile{64, 64, 64}));
  EXPECT_EQ(layout_step(stepped).direction, "to:rows");
  const DesignPoint rows = apply(stepped, Move{Axis::kConsumerLayout, "to:rows", "", std::nullopt});
  EXPECT_EQ(rows.tile, lock.tile);
  EXPECT_TRUE(same_axes(rows, lock));
  {
    // 512 threads: three consumers, n rounded to 3 x a multiple of 8.
    DesignPoint s512 = linear_seed(512);
    ASSERT_EQ(s512.tile, (Tile{192, 128, 64}));
    s512.epilogue_store = EpilogueStore::kDirect;
    const DesignPoint c3 = apply(s512, Move{Axis::kConsumerLayout, "to:columns", "", std::nullopt});
    EXPECT_EQ(c3.tile, (Tile{64, 120, 64}));
    EXPECT_EQ(hopper_consumer_n(c3), 40);
  }
  // tile n steps keep n = consumers x N'; halving below N' 8 breaks hopper-tile.
  DesignPoint t = stepped;
  for (int n : {32, 16}) {
    t = apply(t, Move{Axis::kTile, "n:down", "", std::nullopt});
    EXPECT_EQ(t.tile.n, n);
  }
  EXPECT_THROW(apply(t, Move{Axis::kTile, "n:down", "", std::nullopt}), InputError);  // n 8: N' 4
  EXPECT_EQ(apply(stepped, Move{Axis::kTile, "n:up", "", std::nullopt}).tile.n, 128);
  // Every neighbour of a columns design is valid and keeps the layout unless it steps it.
  for (const auto& n : neighbours(stepped)) {
    EXPECT_EQ(rule_of(n.design), "") << procedural_name(n.design);
    if (n.move.axis != Axis::kConsumerLayout) {
      EXPECT_EQ(n.design.consumer_layout, ConsumerLayout::kColumns);
    }
  }
  // The Vortex side: a WMMA design near the 64 x n tile, rows (no warpgroups there).
  for (const DesignPoint& d : {cols, stepped}) {
    const DesignPoint v = vortex_counterpart(d);
    EXPECT_EQ(rule_of(v), "") << procedural_name(v);
    EXPECT_EQ(v.consumer_layout, ConsumerLayout::kRows);
    EXPECT_LE(std::abs(v.tile.m - d.tile.m) + std::abs(v.tile.n - d.tile.n), 64) << procedural_name(v);
  }
}

TEST(HopperFamily, MulticastSharesTilesAlongTheClusterAndLeavesWithIt) {
  // pi0-4's lock: consumer_layout columns (tile 64x64), cluster 1x2 (a cluster row of two blocks).
  const DesignPoint lock = read_design("../suite/vx-robotics/h200/pi0-4-linear/design.json");
  ASSERT_EQ(lock.cluster, (Cluster{1, 2}));
  ASSERT_EQ(lock.multicast, Multicast::kNone);
  // Only a multicast along a dimension with two or more blocks is offered by a valid step.
  std::set<std::string> valid;
  for (const auto& n : neighbours(lock))
    if (n.move.axis == Axis::kMulticast) valid.insert(n.move.direction);
  EXPECT_EQ(valid, (std::set<std::string>{"to:a"}));
  DesignPoint a = apply(lock, Move{Axis::kMulticast, "to:a", "", std::nullopt});
  EXPECT_EQ(a.multicast, Multicast::kA);
  EXPECT_EQ(procedural_name(a), procedural_name(lock) + "_mc-a");
  // design.json: written only when not none, read back as it was.
  const Json j = design_to_json(a);
  EXPECT_EQ(j.at("axes").at("multicast"), "a");
  EXPECT_FALSE(design_to_json(lock).at("axes").contains("multicast"));
  EXPECT_TRUE(same_axes(design_from_json(j, "t"), a));
  // A cluster step down to one block along n takes the multicast with it (and says so).
  const Move down{Axis::kCluster, "n:down", "", std::nullopt};
  EXPECT_EQ(coupled_axis(a, down), Axis::kMulticast);
  const DesignPoint one = apply(a, down);
  EXPECT_EQ(one.cluster, (Cluster{1, 1}));
  EXPECT_EQ(one.multicast, Multicast::kNone);
  EXPECT_FALSE(coupled_axis(lock, down).has_value());
  // ab on a 2x2 cluster; m:down keeps the A share (a cluster row still has two blocks).
  DesignPoint ab = a;
  ab.cluster = {2, 2};
  ab.multicast = Multicast::kAB;
  EXPECT_EQ(rule_of(ab), "");
  const DesignPoint m1 = apply(ab, Move{Axis::kCluster, "m:down", "", std::nullopt});
  EXPECT_EQ(m1.multicast, Multicast::kA);
  // The slices: whole 8-row groups of the 128-byte swizzle.
  DesignPoint b = lock;
  b.cluster = {4, 1};
  b.multicast = Multicast::kB;
  b.tile.n = 80;  // columns: 2 consumers x N' 40; 4 slices of 20 rows
  b.tile.m = 64;
  EXPECT_EQ(rule_of(b), "hopper-multicast");
  EXPECT_NE(can_implement(b)->detail.find("tile n 80 in 4 slices"), std::string::npos) << can_implement(b)->detail;
  b.tile.n = 96;  // 4 slices of 24 rows
  EXPECT_EQ(rule_of(b), "");
  // Outside the family it stays none, and the Vortex side has no clusters.
  DesignPoint gemm = seed_design(ops::make_linear("t", ops::PrecisionPath::bf16, 77, 96, 72, true), EngineClass::kTensorCore, 128);
  gemm.multicast = Multicast::kA;
  EXPECT_EQ(rule_of(gemm), "hopper-axes");
  EXPECT_EQ(vortex_counterpart(a).multicast, Multicast::kNone);
}

TEST(HopperFamily, VortexCounterpartIsAValidWmmaDesignNearTheHopperTile) {
  for (const char* bench : {"pi0-2-linear", "pi0-3-batched-matmul", "pi0-4-linear", "pi0-5-linear", "diffusion_policy-2-conv1d"}) {
    SCOPED_TRACE(bench);
    const DesignPoint d = seed_from_reference(suite_ref(bench));
    const DesignPoint v = vortex_counterpart(d);
    EXPECT_FALSE(is_hopper(v));
    EXPECT_EQ(rule_of(v), "") << procedural_name(v);
    EXPECT_EQ(v.fragment, d.fixed.precision == ops::PrecisionPath::tf32 ? Fragment::kM16N16K8 : Fragment::kM16N16K16);
    EXPECT_EQ(v.prefetch, Prefetch::kDoubleBuffer);
    EXPECT_EQ(v.fixed.block_size, d.fixed.block_size);
    EXPECT_LE(std::abs(v.tile.m - d.tile.m) + std::abs(v.tile.n - d.tile.n), d.tile.m + d.tile.n);
    EXPECT_EQ(v.op.name, d.op.name);
  }
}

}  // namespace
}  // namespace vxsynth::design
