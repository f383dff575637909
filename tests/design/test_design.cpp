// Design space: axis names, design.json round trips and bad input, seeds from every suite
// reference, validity rules (each rule hit by a design built to break it), neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "common/error.h"
#include "common/json_io.h"
#include "design/hopper_family.h"
#include "design/move.h"
#include "design/no_op.h"
#include "design/neighbours.h"
#include "design/seed.h"
#include "design/validity.h"

namespace vxsynth::design {
namespace {

namespace fs = std::filesystem;

const char* kSuite = "../suite/vx-robotics/h200";

std::vector<fs::path> reference_files() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(kSuite)) {
    if (fs::is_regular_file(entry.path() / "reference.json")) out.push_back(entry.path() / "reference.json");
  }
  std::sort(out.begin(), out.end());
  return out;
}

DesignPoint linear_seed(EngineClass e = EngineClass::kSimt, ops::PrecisionPath p = ops::PrecisionPath::fp32,
                        int block = 128, ops::Activation act = ops::Activation::none) {
  return seed_design(ops::make_linear("t", p, 37, 53, 71, true, act), e, block);
}

TEST(Axes, NamesRoundTrip) {
  for (Staging v : all_values<Staging>()) {
    Staging back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  for (Fragment v : all_values<Fragment>()) {
    Fragment back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  Boundary b{};
  EXPECT_FALSE(parse("padding", b));
  // twelve, the Hopper family's four, the transforms' scale, then the Hopper family's bias_load,
  // register_split, wgmma_in_flight, schedule, tf32_round, the SIMT designs' fragment_load and
  // shared_pad, the Hopper family's consumer_layout, the transforms' read_guard and param_reads,
  // split_reduce, the Hopper family's multicast and the transforms' index_type, entry_reads and
  // index_math
  EXPECT_EQ(axis_names().size(), 32u);
  EXPECT_EQ(axis_names().back(), "index_math");
  for (IndexType v : all_values<IndexType>()) {
    IndexType back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  for (Multicast v : all_values<Multicast>()) {
    Multicast back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_EQ(value_list<Multicast>(), "none, a, b, ab");
  for (SplitReduce v : all_values<SplitReduce>()) {
    SplitReduce back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_TRUE(is_split_axis(Axis::kSplitReduce));
  EXPECT_TRUE(is_family_axis(Axis::kSplitReduce));  // optional in design.json
  EXPECT_FALSE(is_hopper_axis(Axis::kSplitReduce));
  for (ConsumerLayout v : all_values<ConsumerLayout>()) {
    ConsumerLayout back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_TRUE(is_hopper_axis(Axis::kConsumerLayout));
  EXPECT_FALSE(is_simt_axis(Axis::kConsumerLayout));
  EXPECT_EQ(axis_names()[24], "consumer_layout");
  EXPECT_EQ(axis_names()[25], "read_guard");
  EXPECT_EQ(axis_names()[26], "param_reads");
  for (ParamReads v : all_values<ParamReads>()) {
    ParamReads back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_TRUE(is_transform_axis(Axis::kParamReads));
  EXPECT_FALSE(is_hopper_axis(Axis::kParamReads));
  for (ReadGuard v : all_values<ReadGuard>()) {
    ReadGuard back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_TRUE(is_transform_axis(Axis::kReadGuard));
  EXPECT_FALSE(is_simt_axis(Axis::kReadGuard));
  for (SharedPad v : all_values<SharedPad>()) {
    SharedPad back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_TRUE(is_simt_axis(Axis::kSharedPad));
  for (FragmentLoad v : all_values<FragmentLoad>()) {
    FragmentLoad back{};
    ASSERT_TRUE(parse(to_string(v), back));
    EXPECT_EQ(back, v);
  }
  EXPECT_TRUE(is_simt_axis(Axis::kFragmentLoad));
  EXPECT_FALSE(is_hopper_axis(Axis::kFragmentLoad));
  EXPECT_EQ(kCommonAxisCount, 12u);
}

TEST(Seed, EveryReferenceGivesAValidSeedKeepingTheFixedProperties) {
  const auto files = reference_files();
  ASSERT_EQ(files.size(), 15u);
  std::set<std::string> names;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const Json ref = read_json_file(f.string());
    const bool transform = ref["op"].value("kernel_role", "") == "layout_transform";
    if (transform) {
      // The kernel is a re-layout (transform family, tested in test_transform_family.cpp); the
      // conv it serves stays reachable with served_op and keeps the GEMM view checked below.
      EXPECT_EQ(seed_from_reference(f.string()).op.kind, ops::OpKind::layout_transform);
    }
    const DesignPoint d = seed_from_reference(f.string(), transform);
    EXPECT_EQ(d.fixed.block_size, ref["fixed_properties"]["block_size"].get<int>());
    EXPECT_EQ(to_string(d.fixed.engine), ref["fixed_properties"]["engine_class"].get<std::string>());
    EXPECT_EQ(d.fixed.shape.m, ref["op"]["gemm"]["M"].get<std::int64_t>());
    EXPECT_EQ(d.fixed.shape.n, ref["op"]["gemm"]["N"].get<std::int64_t>());
    EXPECT_EQ(d.fixed.shape.k, ref["op"]["gemm"]["K"].get<std::int64_t>());
    EXPECT_EQ(d.fixed.shape.batch * 1, ref["op"]["gemm"]["batch"].get<std::int64_t>());
    EXPECT_EQ(d.reference, f.parent_path().filename().string());
    EXPECT_FALSE(can_implement(d).has_value());
    names.insert(procedural_name(d));
  }
  EXPECT_GE(names.size(), 6u);  // distinct fixed properties give distinct names
}

// The method: a property the kernel name documents is used when the launch geometry agrees
// with it; undocumented (inferred) readings are left to the search. Two references have a
// documented tile that their grid confirms.
TEST(Seed, UsesTheDocumentedTileTheLaunchConfirms) {
  std::map<std::string, std::string> used;  // benchmark -> tile taken from the name
  for (const auto& f : reference_files()) {
    SCOPED_TRACE(f.string());
    const DesignPoint d = seed_from_reference(f.string());
    EXPECT_FALSE(can_implement(d).has_value());
    for (const auto& p : d.from_kernel_name) {
      // the Hopper seed's family choice and its launch reading (test_hopper_family.cpp)
      if (p.key == "family" || p.key == "launch_blocks") continue;
      EXPECT_NE(p.note.find("documented by the kernel name"), std::string::npos) << p.note;
      if (p.used) used[d.reference] = p.value;
      if (p.key == "tile" && p.used) {
        EXPECT_EQ(std::to_string(d.tile.m) + "x" + std::to_string(d.tile.n) + "x" + std::to_string(d.tile.k), p.value);
      }
    }
  }
  // pi0-1: cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1: 32x32 tiles, 128 blocks for
  // 51 x 256 x batch 8 (2 x 8 x 8 tiles). act-2: cutlass_80_simt_sgemm_128x64_8x5: split-K 4 in z.
  EXPECT_EQ(used, (std::map<std::string, std::string>{{"act-2-linear", "128x64x8"},
                                                      {"pi0-1-batched-matmul", "32x32x32"}}));
  const DesignPoint pi0 = seed_from_reference(std::string(kSuite) + "/pi0-1-batched-matmul/reference.json");
  EXPECT_EQ(pi0.tile, (Tile{32, 32, 32}));  // the default seed would be 64x64x32
  EXPECT_EQ(pi0.warps, (WarpArrangement{2, 2}));
  EXPECT_EQ(pi0.register_tile, (RegisterTile{1, 1}));
  const DesignPoint act2 = seed_from_reference(std::string(kSuite) + "/act-2-linear/reference.json");
  EXPECT_EQ(act2.tile, (Tile{128, 64, 8}));
  EXPECT_EQ(act2.register_tile.m * act2.register_tile.n, 64);  // 128 threads for 8192 outputs
  // An inferred tile (cuBLAS xmma's tilesize32x32x8 on act-1) is not used.
  const DesignPoint act1 = seed_from_reference(std::string(kSuite) + "/act-1-linear/reference.json");
  EXPECT_TRUE(act1.from_kernel_name.empty());
  // design.json records it, and reads it back.
  const DesignPoint back = design_from_json(design_to_json(pi0), "mem");
  EXPECT_EQ(back.from_kernel_name, pi0.from_kernel_name);
  EXPECT_EQ(design_to_json(pi0)["from_kernel_name"][0]["key"], "tile");
}

TEST(Seed, ADocumentedTileTheBlockCannotHoldIsRecordedNotUsed) {
  // act-2's documented 128x64 tile with a 64-thread block: 128 outputs per thread, over the
  // register budget of 64. The seed stays valid, keeps its own tile and says why.
  Json ref = read_json_file(std::string(kSuite) + "/act-2-linear/reference.json");
  const auto facts = confirmed_name_properties(ref, "mem");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].key, "tile");
  const DesignPoint d = seed_design(op_spec_from_reference(ref, "mem"), EngineClass::kSimt, 64, "x", "mem", facts);
  EXPECT_FALSE(can_implement(d).has_value());
  ASSERT_EQ(d.from_kernel_name.size(), 1u);
  EXPECT_FALSE(d.from_kernel_name[0].used);
  EXPECT_NE(d.from_kernel_name[0].note.find("not used"), std::string::npos) << d.from_kernel_name[0].note;
  EXPECT_NE(d.tile, (Tile{128, 64, 8}));
  // A grid that does not confirm the tile (no dimension holds the split): nothing is taken.
  ref["signature"]["launch"]["grid"] = {40, 2, 1};
  EXPECT_TRUE(confirmed_name_properties(ref, "mem").empty());
}

TEST(Seed, TensorSeedsUseTheFragmentOfTheirPrecision) {
  EXPECT_EQ(linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::bf16).fragment, Fragment::kM16N16K16);
  EXPECT_EQ(linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::tf32).fragment, Fragment::kM16N16K8);
  EXPECT_THROW(linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::fp32), InputError);
  EXPECT_THROW(linear_seed(EngineClass::kSimt, ops::PrecisionPath::fp32, 100), InputError);
  for (int block : {32, 64, 96, 128, 192, 256, 384, 512, 1024}) {
    SCOPED_TRACE(block);
    EXPECT_NO_THROW(linear_seed(EngineClass::kSimt, ops::PrecisionPath::fp32, block));
    EXPECT_NO_THROW(linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::fp16, block));
  }
}

// One EngineClass for the project (common/engine_class.h): a reading may leave it unknown, a
// design may not.
TEST(Seed, AnUnknownEngineClassIsRejected) {
  EXPECT_THROW(linear_seed(EngineClass::kUnknown), InputError);
  DesignPoint d = linear_seed();
  d.fixed.engine = EngineClass::kUnknown;
  const auto v = can_implement(d);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "engine-class");
  EngineClass parsed{};
  EXPECT_FALSE(parse("unknown", parsed));
  EXPECT_TRUE(parse("tensor_core", parsed));
  EXPECT_EQ(to_string(EngineClass::kTensorCore), "tensor_core");
}

TEST(DesignJson, RoundTripsEveryField) {
  DesignPoint d = linear_seed(EngineClass::kSimt, ops::PrecisionPath::fp32, 128, ops::Activation::gelu);
  d.read_once = ReadOnce::kStreaming;
  d.lane_b = LaneMap::kReversed;
  d.split_k = 3;
  d.activation = ActivationPlacement::kStripped;
  d.boundary = Boundary::kUniformBranch;
  d.k_range = KRange::kFixed;
  d.reference = "act-1-linear";
  ASSERT_FALSE(can_implement(d).has_value()) << can_implement(d)->detail;
  const Json j = design_to_json(d);
  EXPECT_EQ(j["schema"], "vxsynth.design/1");
  EXPECT_EQ(j["name"], procedural_name(d));
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, d));
  EXPECT_EQ(back.reference, d.reference);
  EXPECT_EQ(procedural_name(back), procedural_name(d));
  EXPECT_EQ(design_to_json(back), j);
}

// split_reduce: written (and named) only when serial, so every design made before the axis keeps
// its file, name and evaluation key; a step only where split_k > 1, offered last; split_k down to
// one slice takes the design back to separate (the coupled axis); a bad value names its field.
TEST(DesignJson, SplitReduceIsWrittenOnlyWhenSerialAndStepsOnlySplitDesigns) {
  const DesignPoint d = linear_seed();
  for (const auto& m : candidate_steps(d)) EXPECT_NE(m.axis, Axis::kSplitReduce) << "split_k 1 has nothing to reduce";
  const DesignPoint split = apply_settings(d, {"split_k=2"}, "test");
  EXPECT_FALSE(design_to_json(split)["axes"].contains("split_reduce"));
  EXPECT_EQ(procedural_name(split).find("_sr-"), std::string::npos);
  const auto steps = candidate_steps(split);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().axis, Axis::kSplitReduce);
  EXPECT_EQ(steps.back().direction, "to:serial");
  const DesignPoint serial = apply(split, steps.back());
  EXPECT_EQ(serial.split_reduce, SplitReduce::kSerial);
  EXPECT_FALSE(can_implement(serial).has_value());
  const Json j = design_to_json(serial);
  EXPECT_EQ(j["axes"]["split_reduce"], "serial");
  EXPECT_NE(procedural_name(serial).find("_sk2_"), std::string::npos);
  EXPECT_EQ(procedural_name(serial).substr(procedural_name(serial).size() - 10), "_sr-serial");
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, serial));
  EXPECT_FALSE(same_axes(back, split));
  // Down to one slice: separate again, and the step says so.
  const Move down{Axis::kSplitK, "down", "", std::nullopt};
  EXPECT_EQ(coupled_axis(serial, down), Axis::kSplitReduce);
  EXPECT_EQ(coupled_axis(split, down), std::nullopt);
  const DesignPoint one = apply(serial, down);
  EXPECT_EQ(one.split_k, 1);
  EXPECT_EQ(one.split_reduce, SplitReduce::kSeparate);
  EXPECT_FALSE(can_implement(one).has_value());
  // split_k 4 -> 2 keeps serial.
  EXPECT_EQ(apply(apply_settings(serial, {"split_k=4"}, "test"), down).split_reduce, SplitReduce::kSerial);
  Json bad = j;
  bad["axes"]["split_reduce"] = "atomic";
  try {
    design_from_json(bad, "bad.json");
    ADD_FAILURE() << "accepted split_reduce atomic";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("axes.split_reduce"), std::string::npos) << e.what();
  }
}

// split_reduce serial_vector4: serial whose running sums move a run of four at a time. Offered as
// a step only where the fragments are vector4; split_k 1 and strided fragments are named rules; a
// fragment_load step away from vector4 takes the reduction back to serial and a step onto it
// takes serial along (the coupled axis), split_k down to one slice goes to separate. Its name and
// file say it, and read back.
TEST(DesignJson, SerialVector4NeedsVector4FragmentsAndFollowsThem) {
  const DesignPoint split = apply_settings(linear_seed(), {"split_k=4"}, "test");
  for (const auto& m : candidate_steps(split)) EXPECT_NE(m.direction, "to:serial_vector4") << "strided fragments";
  const DesignPoint v4 = apply_settings(split, {"fragment_load=vector4"}, "test");
  const auto steps = candidate_steps(v4);
  const auto it = std::find_if(steps.begin(), steps.end(), [](const Move& m) { return m.direction == "to:serial_vector4"; });
  ASSERT_NE(it, steps.end());
  EXPECT_EQ(it->axis, Axis::kSplitReduce);
  const DesignPoint runs = apply(v4, *it);
  EXPECT_EQ(runs.split_reduce, SplitReduce::kSerialVector4);
  EXPECT_FALSE(can_implement(runs).has_value());
  const Json j = design_to_json(runs);
  EXPECT_EQ(j["axes"]["split_reduce"], "serial_vector4");
  EXPECT_NE(procedural_name(runs).find("_sr-serial_vector4"), std::string::npos);
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, runs));
  EXPECT_FALSE(same_axes(back, apply_settings(v4, {"split_reduce=serial"}, "test")));
  // Every neighbour is valid: the fragment_load step takes the reduction to serial with it.
  for (const auto& n : neighbours(runs)) {
    EXPECT_FALSE(can_implement(n.design).has_value()) << to_string(n.move);
    if (n.move.axis == Axis::kFragmentLoad) {
      EXPECT_EQ(n.move.coupled, Axis::kSplitReduce);
      EXPECT_EQ(n.design.split_reduce, SplitReduce::kSerial);
      EXPECT_EQ(n.design.fragment_load, FragmentLoad::kStrided);
    }
  }
  const Move to_strided{Axis::kFragmentLoad, "to:strided", "", std::nullopt};
  EXPECT_EQ(coupled_axis(runs, to_strided), Axis::kSplitReduce);
  EXPECT_EQ(coupled_axis(apply_settings(v4, {"split_reduce=serial"}, "test"), to_strided), std::nullopt);
  // A step onto vector4 takes serial to serial_vector4 (the scalar fix-up of runs of four is
  // reached only by saying so); settings keep what they say.
  const DesignPoint serial = apply_settings(split, {"split_reduce=serial"}, "test");
  const Move to_vector4{Axis::kFragmentLoad, "to:vector4", "", std::nullopt};
  EXPECT_EQ(coupled_axis(serial, to_vector4), Axis::kSplitReduce);
  EXPECT_EQ(coupled_axis(split, to_vector4), std::nullopt);  // separate stays separate
  EXPECT_EQ(apply(serial, to_vector4).split_reduce, SplitReduce::kSerialVector4);
  EXPECT_EQ(apply(split, to_vector4).split_reduce, SplitReduce::kSeparate);
  EXPECT_EQ(apply_settings(serial, {"fragment_load=vector4"}, "test").split_reduce, SplitReduce::kSerial);
  EXPECT_EQ(apply_settings(split, {"split_reduce=serial", "fragment_load=vector4"}, "test").split_reduce, SplitReduce::kSerial);
  bool offered = false;
  for (const auto& n : neighbours(serial)) {
    if (n.move.axis != Axis::kFragmentLoad) continue;
    offered = true;
    EXPECT_EQ(n.design.split_reduce, SplitReduce::kSerialVector4);
    EXPECT_EQ(n.move.coupled, Axis::kSplitReduce);
  }
  EXPECT_TRUE(offered);
  const Move down{Axis::kSplitK, "down", "", std::nullopt};
  EXPECT_EQ(apply(runs, down).split_reduce, SplitReduce::kSerialVector4);  // 4 -> 2 slices
  EXPECT_EQ(apply(apply(runs, down), down).split_reduce, SplitReduce::kSeparate);
  try {
    apply_settings(split, {"split_reduce=serial_vector4"}, "cli");
    ADD_FAILURE() << "accepted serial_vector4 with strided fragments";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("split-reduce-runs"), std::string::npos) << e.what();
  }
}

// fragment_load: written only when moved from strided, so every design made before the axis keeps
// its file and name; a SIMT neighbour, never a tensor-core one; a bad value names its field.
TEST(DesignJson, FragmentLoadIsWrittenOnlyWhenMovedAndStepsOnlySimtDesigns) {
  DesignPoint d = linear_seed();
  const Json strided = design_to_json(d);
  EXPECT_FALSE(strided["axes"].contains("fragment_load"));
  EXPECT_EQ(procedural_name(d).find("_fl-"), std::string::npos);
  const auto steps = candidate_steps(d);
  const auto it = std::find_if(steps.begin(), steps.end(), [](const Move& m) { return m.axis == Axis::kFragmentLoad; });
  ASSERT_NE(it, steps.end());
  EXPECT_EQ(it->direction, "to:vector4");
  const DesignPoint v = apply(d, *it);
  EXPECT_EQ(v.fragment_load, FragmentLoad::kVector4);
  const Json j = design_to_json(v);
  EXPECT_EQ(j["axes"]["fragment_load"], "vector4");
  EXPECT_NE(procedural_name(v).find("_fl-vector4"), std::string::npos);
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, v));
  EXPECT_FALSE(same_axes(back, d));
  Json bad = j;
  bad["axes"]["fragment_load"] = "vector8";
  try {
    design_from_json(bad, "bad.json");
    ADD_FAILURE() << "accepted fragment_load vector8";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("axes.fragment_load"), std::string::npos) << e.what();
  }
  const DesignPoint tensor = linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::bf16);
  for (const auto& m : candidate_steps(tensor)) {
    EXPECT_NE(m.axis, Axis::kFragmentLoad);
    EXPECT_NE(m.axis, Axis::kSharedPad);
  }
}

// shared_pad words4: four more words per k row of each staged tile, in the design's size facts
// (so the capacity rules see them), in design.json and the name only when set.
TEST(DesignJson, SharedPadGrowsTheTilesAndIsWrittenOnlyWhenSet) {
  DesignPoint d = linear_seed();
  d.prefetch = Prefetch::kDoubleBuffer;
  EXPECT_FALSE(design_to_json(d)["axes"].contains("shared_pad"));
  const std::int64_t plain = cuda_shared_bytes(d);
  EXPECT_EQ(plain, 2 * std::int64_t(d.tile.k) * (d.tile.m + d.tile.n) * 4);
  const auto steps = candidate_steps(d);
  const auto it = std::find_if(steps.begin(), steps.end(), [](const Move& m) { return m.axis == Axis::kSharedPad; });
  ASSERT_NE(it, steps.end());
  const DesignPoint p = apply(d, *it);
  EXPECT_EQ(p.shared_pad, SharedPad::kWords4);
  EXPECT_EQ(cuda_shared_bytes(p), 2 * std::int64_t(d.tile.k) * (d.tile.m + 4 + d.tile.n + 4) * 4);
  EXPECT_EQ(vortex_local_bytes(p), cuda_shared_bytes(p));
  const Json j = design_to_json(p);
  EXPECT_EQ(j["axes"]["shared_pad"], "words4");
  EXPECT_NE(procedural_name(p).find("_sp-words4"), std::string::npos);
  EXPECT_TRUE(same_axes(design_from_json(j, "x.json"), p));
}

// prefetch cp_async: its ring's depth (pipeline_stages) is written and named only for it, so every
// other GEMM design keeps its file and name; the step to it comes last, the stage steps after it.
TEST(DesignJson, CpAsyncRingIsWrittenAndNamedOnlyForCpAsync) {
  const DesignPoint d = linear_seed();
  EXPECT_FALSE(design_to_json(d)["axes"].contains("pipeline_stages"));
  const auto steps = candidate_steps(d);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().axis, Axis::kPrefetch);
  EXPECT_EQ(steps.back().direction, "to:cp_async");
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) EXPECT_NE(steps[i].direction, "to:cp_async");
  const DesignPoint ring = apply(d, steps.back());
  EXPECT_EQ(ring.prefetch, Prefetch::kCpAsync);
  EXPECT_EQ(ring.stages, kCpAsyncDefaultStages);
  EXPECT_EQ(procedural_name(ring), procedural_name(d).replace(procedural_name(d).find("_pregisters_"), 12, "_pcp_async_") + "_st3");
  const Json j = design_to_json(ring);
  EXPECT_EQ(j["axes"]["prefetch"], "cp_async");
  EXPECT_EQ(j["axes"]["pipeline_stages"], 3);
  const DesignPoint back = design_from_json(j, "x.json");
  EXPECT_TRUE(same_axes(back, ring));
  EXPECT_EQ(procedural_name(back), procedural_name(ring));
  // A cp_async design's last steps are the ring's depth; leaving cp_async drops the ring.
  const auto ring_steps = candidate_steps(ring);
  ASSERT_GE(ring_steps.size(), 2u);
  EXPECT_EQ(ring_steps[ring_steps.size() - 2].axis, Axis::kPipelineStages);
  EXPECT_EQ(ring_steps[ring_steps.size() - 2].direction, "up");
  EXPECT_EQ(ring_steps.back().direction, "down");
  EXPECT_EQ(apply(ring, Move{Axis::kPipelineStages, "up", "", std::nullopt}).stages, 4);
  EXPECT_EQ(apply(ring, Move{Axis::kPipelineStages, "down", "", std::nullopt}).stages, 2);
  EXPECT_FALSE(try_apply(apply(ring, Move{Axis::kPipelineStages, "down", "", std::nullopt}),
                         Move{Axis::kPipelineStages, "down", "", std::nullopt}));  // cp-async-stages: 1
  const DesignPoint left = apply(ring, Move{Axis::kPrefetch, "to:double_buffer", "", std::nullopt});
  EXPECT_EQ(left.stages, 1);
  EXPECT_FALSE(design_to_json(left)["axes"].contains("pipeline_stages"));
  EXPECT_EQ(apply(ring, Move{Axis::kSharedStaging, "to:none", "", std::nullopt}).stages, 1);
  // Sets: cp_async brings the default ring; a later pipeline_stages set overrides it.
  EXPECT_EQ(apply_settings(d, {"prefetch=cp_async"}, "cli").stages, 3);
  EXPECT_EQ(apply_settings(d, {"prefetch=cp_async", "pipeline_stages=5"}, "cli").stages, 5);
  EXPECT_EQ(apply_settings(ring, {"prefetch=registers"}, "cli").stages, 1);
  // The ring is in the size facts (the capacity rules see it).
  const DesignPoint five = apply_settings(d, {"prefetch=cp_async", "pipeline_stages=5"}, "cli");
  EXPECT_EQ(cuda_shared_bytes(five), 5 * cuda_shared_bytes(d));
  EXPECT_EQ(vortex_local_bytes(five), 5 * vortex_local_bytes(d));
  // pipeline_stages on another prefetch is the Hopper family's: rejected.
  Json bad = design_to_json(d);
  bad["axes"]["pipeline_stages"] = 3;
  EXPECT_EQ(can_implement(design_from_json(bad, "bad.json"))->rule, "hopper-axes");
  // Hopper chains are unchanged: their steps hold no cp_async.
  for (const auto& ref : reference_files()) {
    const DesignPoint seed = seed_from_reference(ref.string());
    if (!is_hopper(seed)) continue;
    for (const auto& m : candidate_steps(seed)) EXPECT_NE(m.direction, "to:cp_async") << ref;
  }
}

// Which designs take cp_async: fp32/tf32 SIMT and tensor tiles; 16-bit tensor tiles when their
// 4-byte pairs along k are contiguous and aligned in global memory.
TEST(Validity, CpAsyncTakesTheTilesItCanCopyRaw) {
  auto with_ring = [](DesignPoint d, int stages = 3) {
    d.prefetch = Prefetch::kCpAsync;
    d.stages = stages;
    return d;
  };
  auto rule_of = [](const DesignPoint& d) { return can_implement(d) ? can_implement(d)->rule : std::string("valid"); };
  EXPECT_EQ(rule_of(with_ring(linear_seed())), "valid");                                                   // SIMT fp32
  // SIMT tf32 at 8 stages: the seed's Vortex local memory (4x headroom) cannot hold the ring, and
  // a move grows it (a power of two) as the ring outgrows it.
  const DesignPoint tf32 = linear_seed(EngineClass::kSimt, ops::PrecisionPath::tf32);
  EXPECT_EQ(rule_of(with_ring(tf32, 8)), "vortex-local-capacity");
  const DesignPoint eight = apply_settings(tf32, {"prefetch=cp_async", "pipeline_stages=8"}, "cli");
  EXPECT_EQ(rule_of(eight), "valid");
  EXPECT_GT(eight.vortex.local_mem_bytes, tf32.vortex.local_mem_bytes);
  EXPECT_EQ(apply(eight, Move{Axis::kPipelineStages, "down", "", std::nullopt}).vortex.local_mem_bytes,
            eight.vortex.local_mem_bytes);  // never shrinks
  EXPECT_EQ(rule_of(with_ring(linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::tf32), 2)), "valid");  // fp32 tiles
  DesignPoint mma = linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::tf32);
  mma = apply(mma, Move{Axis::kTensorCore, "to:mma_m16n8k8", "", std::nullopt});
  EXPECT_EQ(rule_of(with_ring(mma, 4)), "valid");
  // bf16: K = 71 is odd (pairs of odd rows misaligned); an even K, or padded copies, are fine.
  const auto bf16 = [](std::int64_t k, bool tb) {
    return seed_design(ops::make_matmul("m", ops::PrecisionPath::bf16, {3}, {1}, 29, 45, k, false, tb), EngineClass::kTensorCore, 64);
  };
  EXPECT_EQ(rule_of(with_ring(linear_seed(EngineClass::kTensorCore, ops::PrecisionPath::bf16))), "cp-async-element");
  EXPECT_EQ(rule_of(with_ring(bf16(68, true))), "valid");
  EXPECT_EQ(rule_of(with_ring(bf16(68, false))), "cp-async-element");  // B [k][n]: pairs along k are N apart
  EXPECT_EQ(rule_of(with_ring(bf16(67, true))), "cp-async-element");
  DesignPoint padded = with_ring(bf16(67, false));
  padded.boundary = Boundary::kPadded;
  EXPECT_EQ(rule_of(padded), "valid");
  const DesignPoint conv = seed_design(ops::make_conv("c", ops::PrecisionPath::fp16, 1, 6, 10, {9, 11}, {3, 3}, {2, 2}, {1, 1},
                                                      {1, 1}, 2, true, ops::ConvLayout::channels_last),
                                       EngineClass::kTensorCore, 256);
  EXPECT_EQ(rule_of(with_ring(conv)), "cp-async-element");  // implicit im2col pairs are not neighbours
  const DesignPoint conv_tf32 = seed_design(ops::make_conv("c", ops::PrecisionPath::tf32, 1, 6, 10, {9, 11}, {3, 3}, {2, 2},
                                                           {1, 1}, {1, 1}, 2, true, ops::ConvLayout::channels_last),
                                            EngineClass::kTensorCore, 256);
  EXPECT_EQ(rule_of(with_ring(conv_tf32)), "valid");  // 4-byte elements, one a copy
  DesignPoint unstaged = with_ring(linear_seed());
  unstaged.staging = Staging::kNone;
  EXPECT_EQ(rule_of(unstaged), "prefetch-staging");
  // A 16-bit tensor design whose pairs are not contiguous has no cp_async neighbour that is valid.
  for (const auto& n : neighbours(conv)) EXPECT_NE(n.design.prefetch, Prefetch::kCpAsync);
}

void expect_input_error(const Json& j, const std::string& field_part) {
  try {
    design_from_json(j, "bad.json");
    ADD_FAILURE() << "accepted a design with a broken " << field_part;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_NE(std::string(e.field()).find(field_part), std::string::npos) << e.what();
  }
}

TEST(DesignJson, BadFieldsNameTheField) {
  const Json good = design_to_json(linear_seed());
  Json j = good;
  j["schema"] = "vxsynth.design/2";
  EXPECT_THROW(design_from_json(j, "bad.json"), InputError);
  j = good;
  j["axes"]["boundary"] = "padding";
  expect_input_error(j, "axes.boundary");
  j = good;
  j["axes"]["tile"]["m"] = "64";
  expect_input_error(j, "axes.tile.m");
  j = good;
  j["axes"].erase("split_k");
  expect_input_error(j, "axes.split_k");
  j = good;
  j["axes"]["splitk"] = 2;
  expect_input_error(j, "axes.splitk");
  j = good;
  j["vortex"]["warps"] = -4;
  expect_input_error(j, "vortex.warps");
  j = good;
  j["fixed"]["engine_class"] = "cuda_core";
  expect_input_error(j, "fixed.engine_class");
}

// One design per rule, each built to break exactly that rule first.
TEST(Validity, EachRuleIsReportedByName) {
  struct Case {
    std::string rule;
    std::function<void(DesignPoint&)> edit;
    EngineClass engine = EngineClass::kSimt;
    ops::PrecisionPath precision = ops::PrecisionPath::fp32;
    int block = 128;
  };
  const std::vector<Case> cases = {
      {"fixed-precision", [](DesignPoint& d) { d.fixed.precision = ops::PrecisionPath::bf16; }},
      {"fixed-shape", [](DesignPoint& d) { d.fixed.shape.k += 1; }},
      {"block-size", [](DesignPoint& d) { d.tile.m *= 2; }},
      {"engine-class", [](DesignPoint& d) { d.fragment = Fragment::kM16N16K16; }},
      {"fragment-dtype", [](DesignPoint& d) { d.fragment = Fragment::kM16N16K8; }, EngineClass::kTensorCore,
       ops::PrecisionPath::bf16},
      {"tile-range", [](DesignPoint& d) { d.tile.k = 0; }},
      {"warp-arrangement", [](DesignPoint& d) { d.warps = {4, 4}; }},
      {"register-tile", [](DesignPoint& d) { d.register_tile.m = 5; }},
      {"register-budget",
       [](DesignPoint& d) {
         d.tile = {128, 128, 8};
         d.register_tile = {16, 8};
       }},
      {"tile-fragments", [](DesignPoint& d) { d.tile.m += 16; }, EngineClass::kTensorCore, ops::PrecisionPath::fp16},
      {"fragment-load",
       [](DesignPoint& d) {  // runs of four need a register tile of fours: 8x2 is not
         d.register_tile = {8, 2};
         d.tile = {d.tile.m * 2, d.tile.n / 2, d.tile.k};
         d.fragment_load = FragmentLoad::kVector4;
       }},
      {"fragment-load", [](DesignPoint& d) { d.fragment_load = FragmentLoad::kVector4; }, EngineClass::kTensorCore,
       ops::PrecisionPath::fp16},
      {"shared-pad",
       [](DesignPoint& d) {
         d.staging = Staging::kNone;
         d.prefetch = Prefetch::kNone;
         d.shared_pad = SharedPad::kWords4;
       }},
      {"shared-pad", [](DesignPoint& d) { d.shared_pad = SharedPad::kWords4; }, EngineClass::kTensorCore,
       ops::PrecisionPath::fp16},
      {"tensor-staging", [](DesignPoint& d) { d.staging = Staging::kA; }, EngineClass::kTensorCore,
       ops::PrecisionPath::fp16},
      {"prefetch-staging",
       [](DesignPoint& d) {
         d.staging = Staging::kNone;
         d.prefetch = Prefetch::kRegisters;
       }},
      {"lane-unstaged",
       [](DesignPoint& d) {
         d.staging = Staging::kB;
         d.prefetch = Prefetch::kNone;
         d.lane_a = LaneMap::kReversed;
       }},
      {"activation-strip", [](DesignPoint& d) { d.activation = ActivationPlacement::kStripped; }},
      {"split-k", [](DesignPoint& d) { d.split_k = 64; }},
      {"cuda-shared-capacity",
       [](DesignPoint& d) {
         d.tile = {256, 256, 64};
         d.register_tile = {8, 8};
         d.warps = {4, 8};
         d.prefetch = Prefetch::kDoubleBuffer;
       },
       EngineClass::kSimt, ops::PrecisionPath::fp32, 1024},
      {"cuda-shared-capacity",  // the cp.async ring counts stages x tiles
       [](DesignPoint& d) {
         d.tile = {256, 256, 64};
         d.register_tile = {8, 8};
         d.warps = {4, 8};
         d.prefetch = Prefetch::kCpAsync;
         d.stages = 2;
       },
       EngineClass::kSimt, ops::PrecisionPath::fp32, 1024},
      {"cp-async-stages",
       [](DesignPoint& d) {
         d.prefetch = Prefetch::kCpAsync;
         d.stages = 1;  // a ring of one: nothing could be in flight
       }},
      {"cp-async-stages",
       [](DesignPoint& d) {
         d.prefetch = Prefetch::kCpAsync;
         d.stages = 9;
       }},
      {"cp-async-element",  // a SIMT tile holds fp32 values: bf16 operands would be converted at stash
       [](DesignPoint& d) {
         d.prefetch = Prefetch::kCpAsync;
         d.stages = 3;
       },
       EngineClass::kSimt, ops::PrecisionPath::bf16},
      {"cp-async-element",  // 16-bit pairs along k of an odd K (71) are not 4-byte aligned
       [](DesignPoint& d) {
         d.prefetch = Prefetch::kCpAsync;
         d.stages = 3;
       },
       EngineClass::kTensorCore, ops::PrecisionPath::bf16},
      {"hopper-axes",  // pipeline_stages > 1 outside the Hopper family is the cp.async ring only
       [](DesignPoint& d) { d.stages = 3; }},
      {"vortex-config", [](DesignPoint& d) { d.vortex.threads = 3; }},
      {"vortex-block-fit", [](DesignPoint& d) { d.vortex.warps = 4; }},
      {"vortex-local-capacity", [](DesignPoint& d) { d.vortex.local_mem_bytes = 1024; }},
      {"vortex-tensor-tile",
       [](DesignPoint& d) {
         d.vortex.threads = 16;
         d.vortex.warps = 8;
       },
       EngineClass::kTensorCore,
       ops::PrecisionPath::bf16},
  };
  std::set<std::string> covered;
  try {
    // Too large for RV32 indices: a 50000 x 50000 output.
    seed_design(ops::make_linear("big", ops::PrecisionPath::fp32, 50000, 50000, 64), EngineClass::kSimt, 128, "", "big");
    ADD_FAILURE() << "accepted a 2.5e9-element output";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vortex-index-range"), std::string::npos) << e.what();
    covered.insert("vortex-index-range");
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.rule);
    DesignPoint d = linear_seed(c.engine, c.precision, c.block);
    ASSERT_FALSE(can_implement(d).has_value());
    c.edit(d);
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, c.rule) << v->detail;
    EXPECT_FALSE(v->detail.empty());
    try {
      require_valid(d, "d.json");
      ADD_FAILURE() << "require_valid accepted it";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.rule), std::string::npos);
    }
    covered.insert(c.rule);
  }
  // The layout-transform family's rules, on the seed of an odd-sized weight transform (3
  // transposes of [7 rows][5 cols]: no vector width divides a row).
  const std::vector<Case> transform_cases = {
      {"transform-engine", [](DesignPoint& d) { d.fixed.engine = EngineClass::kTensorCore; }},
      {"transform-fixed-axes", [](DesignPoint& d) { d.prefetch = Prefetch::kRegisters; }},
      {"transform-fixed-axes", [](DesignPoint& d) { d.split_k = 2; }},
      {"transform-fixed-axes", [](DesignPoint& d) { d.fragment_load = FragmentLoad::kVector4; }},
      {"transform-fixed-axes", [](DesignPoint& d) { d.shared_pad = SharedPad::kWords4; }},
      {"transform-fixed-axes", [](DesignPoint& d) { d.warps = {4, 2}; }},
      {"transform-staging", [](DesignPoint& d) { d.staging = Staging::kAB; }},
      {"transform-boundary", [](DesignPoint& d) { d.boundary = Boundary::kPadded; }},
      {"tile-range", [](DesignPoint& d) { d.tile.k = 2; }},
      {"transform-threads", [](DesignPoint& d) { d.tile.m = 64; }},  // 512 threads' worth of reads
      {"transform-threads",
       [](DesignPoint& d) {  // reads fit (32 x 8 groups); 3 rows a thread do not divide 8 output rows
         d.tile = {96, 8, 1};
         d.register_tile = {3, 1};
       }},
      {"transform-vector", [](DesignPoint& d) { d.register_tile = {2, 2}; }},  // 2-wide reads of 5-element rows
      {"transform-vector",
       [](DesignPoint& d) {  // 8 x 4 bytes: wider than one access
         d.tile = {32, 64, 1};
         d.register_tile = {1, 8};
       }},
      {"transform-direct-lanes", [](DesignPoint& d) { d.staging = Staging::kNone; }},
      {"register-budget",
       [](DesignPoint& d) {
         d.tile = {256, 256, 1};
         d.register_tile = {256, 1};
       }},
  };
  auto transform_seed = [](std::int64_t batch) {
    return seed_design(ops::make_transform("t", ops::PrecisionPath::fp32, batch, 7, {5}, ops::ConvLayout::channels_first,
                                           ops::ConvLayout::channels_last, "weight"),
                       EngineClass::kSimt, 256, "", "t.json");
  };
  for (const auto& c : transform_cases) {
    SCOPED_TRACE("transform " + c.rule);
    DesignPoint d = transform_seed(3);
    ASSERT_FALSE(can_implement(d).has_value());
    c.edit(d);
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, c.rule) << v->detail;
    covered.insert(c.rule);
  }
  try {
    transform_seed(70000);  // more transposes than grid z can hold
    ADD_FAILURE() << "accepted 70000 transposes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("transform-grid"), std::string::npos) << e.what();
    covered.insert("transform-grid");
  }
  {
    DesignPoint d = linear_seed();
    d.scale = Scale::kAlpha;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "scale-family");
    covered.insert(v->rule);
  }
  {
    DesignPoint d = linear_seed();
    d.read_guard = ReadGuard::kColumnBranch;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "read-guard-family");
    covered.insert(v->rule);
  }
  {
    DesignPoint d = transform_seed(3);
    d.staging = Staging::kNone;
    d.lane_b = LaneMap::kReversed;
    ASSERT_FALSE(can_implement(d).has_value());  // a direct design
    d.read_guard = ReadGuard::kColumnBranch;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "transform-read-guard") << v->detail;
    covered.insert(v->rule);
  }
  {
    DesignPoint d = linear_seed();
    d.index_type = IndexType::kInt32;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "index-type-family") << v->detail;
    covered.insert(v->rule);
  }
  {
    DesignPoint d = transform_seed(3);
    d.entry_reads = 5;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "transform-entry-reads") << v->detail;
    covered.insert(v->rule);
  }
  covered.insert("transform-index-type");  // TransformDesign.IndexTypeAndEntryReadsAreLaterAxesOfTransforms (a 2^31-element tensor)
  {
    DesignPoint d = linear_seed();
    d.param_reads = ParamReads::kAtStore;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "param-reads-family");
    covered.insert(v->rule);
  }
  {
    DesignPoint d = transform_seed(3);
    d.staging = Staging::kNone;
    d.lane_b = LaneMap::kReversed;
    ASSERT_FALSE(can_implement(d).has_value());  // a direct design
    d.param_reads = ParamReads::kAtStore;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "transform-param-reads") << v->detail;
    covered.insert(v->rule);
  }
  {
    DesignPoint d = linear_seed();
    d.split_reduce = SplitReduce::kSerial;  // split_k 1
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "split-reduce") << v->detail;
    covered.insert(v->rule);
  }
  {
    DesignPoint d = apply_settings(linear_seed(), {"split_k=2"}, "test");
    d.split_reduce = SplitReduce::kSerialVector4;  // strided fragments
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "split-reduce-runs") << v->detail;
    EXPECT_NE(v->detail.find("fragment_load must be vector4 (it is strided)"), std::string::npos) << v->detail;
    covered.insert(v->rule);
  }
  {
    DesignPoint d = transform_seed(3);
    d.split_reduce = SplitReduce::kSerial;
    const auto v = can_implement(d);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->rule, "split-reduce-family") << v->detail;
    covered.insert(v->rule);
  }
  // Every documented rule except the range guard on register tiles is exercised here.
  for (const auto& [rule, text] : rule_descriptions()) {
    if (rule == "register-tile-range") continue;
    // The Hopper family's rules: HopperFamily.EveryRuleIsNamedWhenBroken (test_hopper_family.cpp).
    if (rule.rfind("hopper-", 0) == 0 || rule == "vortex-counterpart") continue;
    EXPECT_TRUE(covered.count(rule)) << "untested rule " << rule;
  }
}

TEST(Neighbours, AreValidSingleAxisStepsCoveringEveryAxis) {
  std::set<std::string> axes_seen;
  for (const auto& f : reference_files()) {
    const DesignPoint d = seed_from_reference(f.string());
    const auto list = neighbours(d);
    // The Hopper family fixes most axes: its seeds have 6..9 moves (tile n, stages, raster,
    // epilogue store, cluster).
    EXPECT_GE(list.size(), is_hopper(d) ? 6u : 8u) << f;
    std::set<std::string> names;
    for (const auto& n : list) {
      EXPECT_FALSE(can_implement(n.design).has_value()) << to_string(n.move);
      EXPECT_NE(procedural_name(n.design), procedural_name(d));
      EXPECT_EQ(n.design.fixed.block_size, d.fixed.block_size);
      EXPECT_EQ(n.design.fixed.engine, d.fixed.engine);
      EXPECT_EQ(procedural_name(apply(d, n.move)), procedural_name(n.design)) << to_string(n.move);
      names.insert(procedural_name(n.design));
      axes_seen.insert(to_string(n.move.axis));
    }
    EXPECT_EQ(names.size(), list.size()) << "two neighbours are the same design";
  }
  // activation needs an op with an activation, split_reduce a split seed (the suite's seeds have
  // split_k 1: DesignJson.SplitReduceIsWrittenOnlyWhenSerialAndStepsOnlySplitDesigns), multicast
  // a cluster of two or more blocks (the Hopper seeds have none: HopperFamily.Multicast*); the
  // rest occur on the suite's seeds.
  for (const auto& axis : axis_names()) {
    // entry_reads is retired: a step only takes a design that has it back towards 0.
    if (axis == "activation" || axis == "split_reduce" || axis == "multicast" || axis == "entry_reads") continue;
    EXPECT_TRUE(axes_seen.count(axis)) << axis;
  }
  const DesignPoint with_act = linear_seed(EngineClass::kSimt, ops::PrecisionPath::fp32, 128, ops::Activation::relu);
  bool strip = false;
  for (const auto& n : neighbours(with_act)) strip |= n.move.axis == Axis::kActivation;
  EXPECT_TRUE(strip);
}

// The values that do nothing at a design's shape, on the committed locks that hold them (the
// issue's list: diffusion_policy-1's uniform branch and entry reads, pi0-3's uniform branch,
// pi0-4's and pi0-5's clusters without multicast) and on one that holds none.
TEST(NoOp, ValuesThatDoNothingAtTheLockedShapes) {
  auto axes_of = [](const std::string& bench) {
    std::set<std::string> out;
    for (const auto& v : no_op_values(read_design("../suite/vx-robotics/h200/" + bench + "/design.json"))) {
      out.insert(to_string(v.axis));
      EXPECT_FALSE(v.why.empty());
    }
    return out;
  };
  EXPECT_EQ(axes_of("diffusion_policy-1-conv1d"), (std::set<std::string>{"boundary", "entry_reads"}));
  EXPECT_EQ(axes_of("pi0-3-batched-matmul"), (std::set<std::string>{"boundary"}));
  EXPECT_EQ(axes_of("pi0-4-linear"), (std::set<std::string>{"cluster"}));
  EXPECT_EQ(axes_of("pi0-5-linear"), (std::set<std::string>{"cluster"}));
  EXPECT_TRUE(axes_of("act-2-linear").empty());
  // uniform_branch does something once a block is interior, a cluster once it multicasts.
  DesignPoint d = read_design("../suite/vx-robotics/h200/pi0-3-batched-matmul/design.json");
  d.tile.m = 32;
  EXPECT_TRUE(no_op_values(d).empty());
  DesignPoint h = read_design("../suite/vx-robotics/h200/pi0-4-linear/design.json");
  h.multicast = Multicast::kB;
  for (const auto& v : no_op_values(h)) EXPECT_NE(v.axis, Axis::kCluster);
  EXPECT_NE(describe(no_op_values(read_design("../suite/vx-robotics/h200/pi0-5-linear/design.json"))).find("share nothing"),
            std::string::npos);
}

}  // namespace
}  // namespace vxsynth::design
