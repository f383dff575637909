// The layout-transform family: the transforms derived from Diffusion Policy's references, their
// seeds (cuDNN's kernel geometry), the served conv kept reachable, JSON, neighbours.
#include <gtest/gtest.h>

#include <set>

#include "common/error.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/hopper_family.h"
#include "design/seed.h"
#include "design/transform_family.h"
#include "design/validity.h"

namespace vxsynth::design {
namespace {

std::string ref(const std::string& name) { return "../suite/vx-robotics/h200/" + name + "/reference.json"; }

template <typename F>
void expect_input_error(F f, std::initializer_list<const char*> fragments) {
  try {
    f();
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    for (const char* frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
  }
}

}  // namespace

// Each profiled launch re-lays out the conv's weight [Cout][Cin][5]: grid (1, Cin/32, Cout).
TEST(TransformSeed, DiffusionPolicyReferencesAreWeightTransforms) {
  struct Expect {
    const char* name;
    std::int64_t cout, cin;
  };
  for (const Expect& e : {Expect{"diffusion_policy-1-conv1d", 2048, 2048}, Expect{"diffusion_policy-3-conv1d", 1024, 4096},
                          Expect{"diffusion_policy-4-conv1d", 1024, 1024}, Expect{"diffusion_policy-5-conv1d", 1024, 1024}}) {
    SCOPED_TRACE(e.name);
    const DesignPoint d = seed_from_reference(ref(e.name));
    ASSERT_EQ(d.op.kind, ops::OpKind::layout_transform);
    const ops::TransformParams& t = d.op.transform;
    EXPECT_EQ(t.tensor, "weight");
    EXPECT_EQ(t.batch, e.cout);
    EXPECT_EQ(t.channels, e.cin);
    EXPECT_EQ(t.spatial, (std::vector<std::int64_t>{5}));
    EXPECT_EQ(t.from, ops::ConvLayout::channels_first);
    EXPECT_EQ(t.to, ops::ConvLayout::channels_last);
    EXPECT_EQ(d.op.precision, ops::PrecisionPath::fp32);  // the tensors of a tf32 conv are fp32
    EXPECT_EQ(d.op.inputs()[0].shape, (ops::Shape{e.cout, e.cin, 5}));
    EXPECT_EQ(d.op.output().shape, (ops::Shape{e.cout, 5, e.cin}));
    EXPECT_EQ(d.reference, e.name);
    // The seed is cuDNN's kernel: 256 threads, a 32 x 32 tile in 32 x 33 floats of shared
    // memory (the reference's 4224 bytes), 4 elements a thread, alpha scaling.
    EXPECT_EQ(d.fixed.block_size, 256);
    EXPECT_EQ(d.tile, (Tile{32, 32, 1}));
    EXPECT_EQ(d.register_tile, (RegisterTile{4, 1}));
    EXPECT_EQ(d.staging, Staging::kA);
    EXPECT_EQ(cuda_shared_bytes(d), 4224);
    EXPECT_EQ(d.scale, Scale::kAlpha);
    EXPECT_FALSE(can_implement(d).has_value());
    // The conv behind it is still reachable.
    const DesignPoint conv = seed_from_reference(ref(e.name), true);
    EXPECT_EQ(conv.op.kind, ops::OpKind::conv1d);
    EXPECT_EQ(conv.fixed.shape.k, e.cin * 5);
  }
  // diffusion_policy-2 is the TF32 conv itself.
  const DesignPoint conv = seed_from_reference(ref("diffusion_policy-2-conv1d"));
  EXPECT_EQ(conv.op.kind, ops::OpKind::conv1d);
  EXPECT_EQ(conv.op.precision, ops::PrecisionPath::tf32);
}

TEST(TransformSeed, DerivationSaysWhyItCannotMatch) {
  Json r = read_json_file(ref("diffusion_policy-1-conv1d"));
  const ops::OpSpec served = op_spec_from_reference(r, "r.json", true);
  // The second launch configuration, (1, 64, 1), is the activation [1][2048][4].
  Json act = r;
  act["launch"]["grid"] = {1, 64, 1};
  const ops::OpSpec a = derive_transform(act, served, "r.json");
  EXPECT_EQ(a.transform.tensor, "activation");
  EXPECT_EQ(a.inputs()[0].shape, (ops::Shape{1, 2048, 4}));
  // A grid no tensor explains.
  Json bad = r;
  bad["launch"]["grid"] = {3, 64, 2048};
  expect_input_error([&] { derive_transform(bad, served, "r.json"); }, {"r.json", "launch.grid", "weight [1, 64, 2048]"});
  bad = r;
  bad["kernel"]["name"] = "void cudnn::someTransposeKernel<float>()";
  expect_input_error([&] { derive_transform(bad, served, "r.json"); }, {"kernel.name", "nchwToNhwc"});
  // The reverse direction of cuDNN's output transform: rows = positions.
  bad = r;
  bad["kernel"]["name"] = "void cudnn::engines_precompiled::nhwcToNchwKernel<float, float, float, true, false>()";
  bad["launch"]["grid"] = {64, 1, 1};  // the output [1][2048][4] stored NLC: 4 rows x 2048 columns
  const ops::OpSpec out = derive_transform(bad, served, "r.json");
  EXPECT_EQ(out.transform.from, ops::ConvLayout::channels_last);
  EXPECT_EQ(out.inputs()[0].shape, (ops::Shape{1, 4, 2048}));
  EXPECT_EQ(out.output().shape, (ops::Shape{1, 2048, 4}));
}

TEST(TransformDesign, JsonRoundTripAndScaleErrors) {
  const DesignPoint d = seed_from_reference(ref("diffusion_policy-4-conv1d"));
  const Json j = design_to_json(d);
  EXPECT_EQ(j["axes"]["scale"], "alpha");
  const DesignPoint back = design_from_json(j, "d.json");
  EXPECT_TRUE(same_axes(back, d));
  EXPECT_EQ(procedural_name(back), procedural_name(d));
  EXPECT_EQ(procedural_name(d), "layout_transform_fp32_simt_b256_t32x32_r4x1_sa_ff_ro-default_guarded_kgen_scale-alpha");
  Json bad = j;
  bad["axes"]["scale"] = "beta";
  expect_input_error([&] { design_from_json(bad, "d.json"); }, {"d.json", "axes.scale", "none, alpha"});
  // A GEMM design.json without the field reads as scale none.
  const DesignPoint conv = seed_from_reference(ref("diffusion_policy-2-conv1d"));
  EXPECT_FALSE(design_to_json(conv)["axes"].contains("scale"));
  EXPECT_EQ(design_from_json(design_to_json(conv), "c.json").scale, Scale::kNone);
}

// Neighbours come from the shared move vocabulary (move.h): the steps valid for a transform.
TEST(TransformDesign, NeighboursAreValidMovesOfTheVocabulary) {
  const DesignPoint seed = seed_from_reference(ref("diffusion_policy-1-conv1d"));
  std::set<Axis> axes;
  for (const auto& n : neighbours(seed)) {
    SCOPED_TRACE(to_string(n.move));
    EXPECT_FALSE(can_implement(n.design).has_value());
    EXPECT_EQ(n.design.fixed.block_size, 256);
    EXPECT_EQ(n.design.op.kind, ops::OpKind::layout_transform);
    EXPECT_NE(procedural_name(n.design), procedural_name(seed));
    EXPECT_EQ(procedural_name(apply(seed, n.move)), procedural_name(n.design));
    axes.insert(n.move.axis);
  }
  for (Axis a : {Axis::kReadOnce, Axis::kLaneMapping, Axis::kTile, Axis::kBoundary, Axis::kKRange, Axis::kScale}) {
    EXPECT_TRUE(axes.count(a)) << to_string(a);
  }
  // Direct designs are reached by setting them (several axes change together).
  const DesignPoint direct = apply(seed, {parse_setting("shared_staging=none"), parse_setting("lane_b=reversed")});
  EXPECT_EQ(direct.staging, Staging::kNone);
  EXPECT_FALSE(can_implement(direct).has_value());
  // Vector widths appear where rows allow them: a transform of [64 rows][48 cols] in bf16.
  const DesignPoint even = seed_design(ops::make_transform("e", ops::PrecisionPath::bf16, 2, 64, {6, 8},
                                                           ops::ConvLayout::channels_first, ops::ConvLayout::channels_last),
                                       EngineClass::kSimt, 256);
  bool vector = false;
  for (const auto& n : neighbours(even)) vector |= n.design.register_tile.n > 1;
  EXPECT_TRUE(vector);
}

// scale is an axis like the others: a step, a `gen --set` setting, JSON; other families refuse
// any value but none through the validity rule.
TEST(TransformDesign, ScaleIsAnAxisOfTheMoveVocabulary) {
  const DesignPoint seed = seed_from_reference(ref("diffusion_policy-1-conv1d"));
  ASSERT_EQ(seed.scale, Scale::kAlpha);
  EXPECT_TRUE(is_transform_axis(Axis::kScale));
  EXPECT_FALSE(is_hopper_axis(Axis::kScale));
  const Move step{Axis::kScale, "to:none", "", std::nullopt};
  const DesignPoint bits = apply(seed, step);
  EXPECT_EQ(bits.scale, Scale::kNone);
  EXPECT_EQ(design_to_json(bits)["axes"]["scale"], "none");
  EXPECT_EQ(apply_settings(seed, {"scale=none"}).scale, Scale::kNone);
  EXPECT_EQ(apply_settings(bits, {"scale=alpha", "k_range=fixed"}).scale, Scale::kAlpha);
  EXPECT_EQ(move_from_json(move_to_json(step), "m.json", "move"), step);
  expect_input_error([&] { apply_settings(seed, {"scale=beta"}); }, {"--set", "scale", "none, alpha"});
  // A GEMM design takes none only.
  const DesignPoint conv = seed_design(ops::make_linear("g", ops::PrecisionPath::fp32, 37, 53, 71), EngineClass::kSimt, 128);
  expect_input_error([&] { apply_settings(conv, {"scale=alpha"}); }, {"--set", "scale-family"});
  for (const auto& n : neighbours(conv)) EXPECT_NE(n.move.axis, Axis::kScale);
}

// read_guard (column_branch: a branch over the read phase's columns, cuDNN's transpose) is a
// step of a staged transform's vocabulary, written to design.json and the name only when set;
// a direct transform, a GEMM design and a Hopper design refuse it by rule.
TEST(TransformDesign, ReadGuardIsALaterAxisOfStagedTransforms) {
  const DesignPoint seed = seed_from_reference(ref("diffusion_policy-1-conv1d"));
  ASSERT_EQ(seed.read_guard, ReadGuard::kPredicated);
  EXPECT_TRUE(is_transform_axis(Axis::kReadGuard));
  EXPECT_FALSE(is_hopper_axis(Axis::kReadGuard));
  EXPECT_FALSE(design_to_json(seed)["axes"].contains("read_guard"));  // earlier designs keep their file
  const Move step{Axis::kReadGuard, "to:column_branch", "", std::nullopt};
  const DesignPoint branch = apply(seed, step);
  EXPECT_EQ(branch.read_guard, ReadGuard::kColumnBranch);
  EXPECT_FALSE(can_implement(branch).has_value());
  EXPECT_EQ(design_to_json(branch)["axes"]["read_guard"], "column_branch");
  EXPECT_EQ(procedural_name(branch), procedural_name(seed) + "_rg-column_branch");
  const DesignPoint back = design_from_json(design_to_json(branch), "b.json");
  EXPECT_TRUE(same_axes(back, branch));
  EXPECT_FALSE(same_axes(back, seed));
  EXPECT_EQ(apply_settings(seed, {"read_guard=column_branch"}).read_guard, ReadGuard::kColumnBranch);
  expect_input_error([&] { apply_settings(seed, {"read_guard=sometimes"}); }, {"--set", "read_guard", "predicated, column_branch"});
  Json bad = design_to_json(branch);
  bad["axes"]["read_guard"] = 3;
  expect_input_error([&] { design_from_json(bad, "b.json"); }, {"b.json", "axes.read_guard"});
  // The step is the seed's last neighbour but param_reads', index_type's and index_math's (earlier
  // chains keep their order), and the way back.
  auto from_seed = neighbours(seed);
  while (!from_seed.empty() && (from_seed.back().move.axis == Axis::kIndexType || from_seed.back().move.axis == Axis::kEntryReads ||
                                from_seed.back().move.axis == Axis::kIndexMath))
    from_seed.pop_back();
  ASSERT_GE(from_seed.size(), 2u);
  EXPECT_EQ(from_seed[from_seed.size() - 2].move, step);
  bool back_step = false;
  for (const auto& n : neighbours(branch)) back_step |= n.move.axis == Axis::kReadGuard && n.design.read_guard == ReadGuard::kPredicated;
  EXPECT_TRUE(back_step);
  // A direct transform has no read phase to branch over: neither a step nor a valid setting.
  const DesignPoint direct = apply(seed, {parse_setting("shared_staging=none"), parse_setting("lane_b=reversed")});
  for (const auto& n : neighbours(direct)) EXPECT_NE(n.move.axis, Axis::kReadGuard);
  expect_input_error([&] { apply_settings(direct, {"read_guard=column_branch"}); }, {"--set", "transform-read-guard"});
  // Other families take predicated only.
  const DesignPoint gemm = seed_design(ops::make_linear("g", ops::PrecisionPath::fp32, 37, 53, 71), EngineClass::kSimt, 128);
  expect_input_error([&] { apply_settings(gemm, {"read_guard=column_branch"}); }, {"--set", "read-guard-family"});
  for (const auto& n : neighbours(gemm)) EXPECT_NE(n.move.axis, Axis::kReadGuard);
  DesignPoint h = seed_from_reference(ref("pi0-2-linear"));
  ASSERT_TRUE(is_hopper(h));
  h.read_guard = ReadGuard::kColumnBranch;
  const auto why = can_implement(h);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->rule, "hopper-fixed") << why->detail;
}

// param_reads (at_store: the output pointer and alpha read again at each store, cuDNN's
// transpose) is a step of a staged transform's vocabulary after read_guard, written to
// design.json and the name only when set; a direct transform, a GEMM design and a Hopper design
// refuse it by rule.
TEST(TransformDesign, ParamReadsIsALaterAxisOfStagedTransforms) {
  const DesignPoint seed = seed_from_reference(ref("diffusion_policy-1-conv1d"));
  ASSERT_EQ(seed.param_reads, ParamReads::kHoisted);
  EXPECT_FALSE(design_to_json(seed)["axes"].contains("param_reads"));  // earlier designs keep their file
  const Move step{Axis::kParamReads, "to:at_store", "", std::nullopt};
  const DesignPoint at = apply(seed, step);
  EXPECT_EQ(at.param_reads, ParamReads::kAtStore);
  EXPECT_FALSE(can_implement(at).has_value());
  EXPECT_EQ(design_to_json(at)["axes"]["param_reads"], "at_store");
  EXPECT_EQ(procedural_name(at), procedural_name(seed) + "_pr-at_store");
  const DesignPoint both = apply(at, Move{Axis::kReadGuard, "to:column_branch", "", std::nullopt});
  EXPECT_EQ(procedural_name(both), procedural_name(seed) + "_rg-column_branch_pr-at_store");
  const DesignPoint back = design_from_json(design_to_json(at), "b.json");
  EXPECT_TRUE(same_axes(back, at));
  EXPECT_FALSE(same_axes(back, seed));
  EXPECT_EQ(apply_settings(seed, {"param_reads=at_store"}).param_reads, ParamReads::kAtStore);
  expect_input_error([&] { apply_settings(seed, {"param_reads=sometimes"}); }, {"--set", "param_reads", "hoisted, at_store"});
  Json bad = design_to_json(at);
  bad["axes"]["param_reads"] = true;
  expect_input_error([&] { design_from_json(bad, "b.json"); }, {"b.json", "axes.param_reads"});
  // The step comes after read_guard's (and before index_type's and index_math's), and the way back is one.
  auto from_seed = neighbours(seed);
  while (!from_seed.empty() && (from_seed.back().move.axis == Axis::kIndexType || from_seed.back().move.axis == Axis::kEntryReads ||
                                from_seed.back().move.axis == Axis::kIndexMath))
    from_seed.pop_back();
  ASSERT_GE(from_seed.size(), 2u);
  EXPECT_EQ(from_seed.back().move, step);
  EXPECT_EQ(from_seed[from_seed.size() - 2].move.axis, Axis::kReadGuard);
  bool back_step = false;
  for (const auto& n : neighbours(at)) back_step |= n.move.axis == Axis::kParamReads && n.design.param_reads == ParamReads::kHoisted;
  EXPECT_TRUE(back_step);
  const DesignPoint direct = apply(seed, {parse_setting("shared_staging=none"), parse_setting("lane_b=reversed")});
  for (const auto& n : neighbours(direct)) EXPECT_NE(n.move.axis, Axis::kParamReads);
  expect_input_error([&] { apply_settings(direct, {"param_reads=at_store"}); }, {"--set", "transform-param-reads"});
  const DesignPoint gemm = seed_design(ops::make_linear("g", ops::PrecisionPath::fp32, 37, 53, 71), EngineClass::kSimt, 128);
  expect_input_error([&] { apply_settings(gemm, {"param_reads=at_store"}); }, {"--set", "param-reads-family"});
  for (const auto& n : neighbours(gemm)) EXPECT_NE(n.move.axis, Axis::kParamReads);
  DesignPoint h = seed_from_reference(ref("pi0-2-linear"));
  ASSERT_TRUE(is_hopper(h));
  h.param_reads = ParamReads::kAtStore;
  const auto why = can_implement(h);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->rule, "hopper-fixed") << why->detail;
}

TEST(TransformDesign, IndexTypeAndEntryReadsAreLaterAxesOfTransforms) {
  const DesignPoint seed = seed_from_reference(ref("diffusion_policy-1-conv1d"));
  ASSERT_EQ(seed.index_type, IndexType::kInt64);
  ASSERT_EQ(seed.entry_reads, 0);
  EXPECT_FALSE(design_to_json(seed)["axes"].contains("index_type"));  // earlier designs keep their file
  EXPECT_FALSE(design_to_json(seed)["axes"].contains("entry_reads"));
  const DesignPoint i32 = apply(seed, Move{Axis::kIndexType, "to:int32", "", std::nullopt});
  const DesignPoint both = apply(i32, Move{Axis::kEntryReads, "up", "", std::nullopt});
  EXPECT_EQ(both.entry_reads, kEntryReadsStep);
  EXPECT_EQ(procedural_name(both), procedural_name(seed) + "_idx-int32_er4");
  EXPECT_EQ(design_to_json(both)["axes"]["index_type"], "int32");
  EXPECT_EQ(design_to_json(both)["axes"]["entry_reads"], 4);
  EXPECT_TRUE(same_axes(design_from_json(design_to_json(both), "b.json"), both));
  // The last steps of a transform, direct designs included: index_type, then index_math.
  // entry_reads is retired (its reads compute nothing): never a step up, only down, back to 0.
  const auto steps = neighbours(seed);
  ASSERT_GE(steps.size(), 2u);
  EXPECT_EQ(steps.back().move.axis, Axis::kIndexMath);
  EXPECT_EQ(steps[steps.size() - 2].move.axis, Axis::kIndexType);
  for (const auto& n : steps) EXPECT_NE(n.move.axis, Axis::kEntryReads);
  const DesignPoint direct = apply(seed, {parse_setting("shared_staging=none"), parse_setting("lane_b=reversed")});
  bool direct_steps = false;
  for (const auto& n : neighbours(direct)) direct_steps |= n.move.axis == Axis::kIndexMath;
  EXPECT_TRUE(direct_steps);
  const DesignPoint top = apply_settings(seed, {"entry_reads=16"});
  int down = 0;
  for (const auto& n : neighbours(top)) {
    if (n.move.axis == Axis::kEntryReads) {
      EXPECT_EQ(n.design.entry_reads, 12);
      ++down;
    }
  }
  EXPECT_EQ(down, 1);
  // index_math generic: written, named and read back; only a transform has it.
  const DesignPoint generic = apply_settings(seed, {"index_math=generic"});
  EXPECT_EQ(design_to_json(generic)["axes"]["index_math"], "generic");
  EXPECT_FALSE(design_to_json(seed)["axes"].contains("index_math"));
  EXPECT_EQ(procedural_name(generic), procedural_name(seed) + "_im-generic");
  EXPECT_TRUE(same_axes(design_from_json(design_to_json(generic), "g.json"), generic));
  expect_input_error([&] { apply_settings(seed, {"index_math=magic"}); }, {"--set", "index_math", "tile, generic"});
  expect_input_error([&] { apply_settings(seed, {"entry_reads=20"}); }, {"--set", "transform-entry-reads", "0..16 in steps of 4"});
  expect_input_error([&] { apply_settings(seed, {"entry_reads=6"}); }, {"--set", "transform-entry-reads"});
  expect_input_error([&] { apply_settings(seed, {"entry_reads=four"}); }, {"--set", "entry_reads"});
  expect_input_error([&] { apply_settings(seed, {"index_type=int16"}); }, {"--set", "index_type", "int64, int32"});
  // int32 needs fewer than 2^31 elements: 2048 transposes of 2048 x 5 are 21 M, 2048 of 2048 x 600
  // are not (the Vortex side's 32-bit indices refuse such a tensor too: the rule is the CUDA side's own).
  DesignPoint big = both;
  big.op = ops::make_transform("big", ops::PrecisionPath::fp32, 2048, 2048, {600}, ops::ConvLayout::channels_first,
                               ops::ConvLayout::channels_last, "weight");
  bool index_rule = false;
  for (const auto& v : all_violations(big)) {
    if (v.rule != "transform-index-type") continue;
    index_rule = true;
    EXPECT_NE(v.detail.find("2516582400 elements"), std::string::npos) << v.detail;
  }
  EXPECT_TRUE(index_rule);
  big.index_type = IndexType::kInt64;
  for (const auto& v : all_violations(big)) EXPECT_NE(v.rule, "transform-index-type");
  // Other families keep the defaults.
  const DesignPoint gemm = seed_design(ops::make_linear("g", ops::PrecisionPath::fp32, 37, 53, 71), EngineClass::kSimt, 128);
  expect_input_error([&] { apply_settings(gemm, {"index_type=int32"}); }, {"--set", "index-type-family"});
  expect_input_error([&] { apply_settings(gemm, {"entry_reads=4"}); }, {"--set", "index-type-family"});
  expect_input_error([&] { apply_settings(gemm, {"index_math=generic"}); }, {"--set", "index-type-family"});
  for (const auto& n : neighbours(gemm)) {
    EXPECT_NE(n.move.axis, Axis::kIndexType);
    EXPECT_NE(n.move.axis, Axis::kEntryReads);
    EXPECT_NE(n.move.axis, Axis::kIndexMath);
  }
  DesignPoint h = seed_from_reference(ref("pi0-2-linear"));
  h.entry_reads = 4;
  ASSERT_TRUE(can_implement(h).has_value());
  EXPECT_EQ(can_implement(h)->rule, "index-type-family");
}

TEST(TransformDesign, SeedsForOtherBlocksAndEngines) {
  const ops::OpSpec op = ops::make_transform("t", ops::PrecisionPath::fp16, 2, 9, {3, 5}, ops::ConvLayout::channels_last,
                                             ops::ConvLayout::channels_first);
  for (int block : {32, 64, 128, 256, 384, 512, 1024}) {
    SCOPED_TRACE(block);
    const DesignPoint d = seed_design(op, EngineClass::kSimt, block);
    EXPECT_FALSE(can_implement(d).has_value());
    EXPECT_EQ(d.tile.n % 8, 0);
  }
  expect_input_error([&] { seed_design(op, EngineClass::kTensorCore, 256, "", "cli"); }, {"engine", "simt"});
  expect_input_error([&] { seed_design(op, EngineClass::kSimt, 100, "", "cli"); }, {"block"});
}

}  // namespace vxsynth::design
