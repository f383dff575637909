// The move vocabulary: axis names, every step's effect and coupling, sets as `gen --set` gives
// them, the JSON round trip, and the errors a bad move gets.
#include <gtest/gtest.h>

#include <functional>

#include "common/error.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/seed.h"
#include "design/validity.h"

namespace vxsynth::design {
namespace {

DesignPoint simt_seed() {
  return seed_design(ops::make_linear("t", ops::PrecisionPath::fp32, 37, 53, 71, true, ops::Activation::relu),
                     EngineClass::kSimt, 128);
}
DesignPoint tensor_seed() {
  return seed_design(ops::make_matmul("t", ops::PrecisionPath::bf16, {8}, {1}, 51, 256, 867, false, false),
                     EngineClass::kTensorCore, 128);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Move, AxisNamesRoundTripInOrder) {
  ASSERT_EQ(all_axes().size(), kAxisCount);
  for (std::size_t i = 0; i < kAxisCount; ++i) {
    Axis back{};
    ASSERT_TRUE(parse(axis_names()[i], back));
    EXPECT_EQ(back, all_axes()[i]);
    EXPECT_EQ(to_string(back), axis_names()[i]);
  }
  Axis a{};
  EXPECT_FALSE(parse("lane_a", a));
}

TEST(Move, SimtTileStepCarriesTheRegisterTile) {
  const DesignPoint d = simt_seed();
  const Move m{Axis::kTile, "m:up", "", std::nullopt};
  EXPECT_EQ(coupled_axis(d, m), Axis::kRegisterTile);
  const DesignPoint e = apply(d, m);
  EXPECT_EQ(e.tile.m, d.tile.m * 2);
  EXPECT_EQ(e.register_tile.m, d.register_tile.m * 2);
  EXPECT_EQ(e.tile.n, d.tile.n);
  EXPECT_EQ(e.fixed.block_size, d.fixed.block_size);
  // k steps carry nothing.
  EXPECT_FALSE(coupled_axis(d, Move{Axis::kTile, "k:up", "", std::nullopt}));
  EXPECT_EQ(apply(d, Move{Axis::kTile, "k:up", "", std::nullopt}).tile.k, d.tile.k * 2);
}

TEST(Move, TensorWarpStepReshapesTheTile) {
  const DesignPoint d = tensor_seed();
  const Move m{Axis::kWarps, "m:up,n:down", "", std::nullopt};
  ASSERT_EQ(d.warps.n % 2, 0);
  EXPECT_EQ(coupled_axis(d, m), Axis::kTile);
  const DesignPoint e = apply(d, m);
  EXPECT_EQ(e.warps.m, d.warps.m * 2);
  EXPECT_EQ(e.warps.n, d.warps.n / 2);
  EXPECT_EQ(e.tile.m, e.warps.m * e.register_tile.m * fragment_shape(e.fragment).m);
  EXPECT_EQ(e.tile.n, e.warps.n * e.register_tile.n * fragment_shape(e.fragment).n);
  // Tensor-core tiles move through register_tile, never directly.
  EXPECT_NE(error_of([&] { apply(d, Move{Axis::kTile, "m:up", "", std::nullopt}); }).find("step register_tile"),
            std::string::npos);
}

TEST(Move, OppositeStepsUndoEachOther) {
  const DesignPoint d = simt_seed();
  for (const Move& m : candidate_steps(d)) {
    const auto back = opposite_direction(m.direction);
    if (!back) continue;
    const auto e = try_apply(d, m);
    if (!e) continue;
    const auto f = try_apply(*e, Move{m.axis, *back, "", std::nullopt});
    if (!f) continue;  // the way back may break a rule the way out did not (odd halves)
    EXPECT_TRUE(same_axes(*f, d)) << to_string(m) << " then " << *back;
  }
  EXPECT_EQ(opposite_direction("up"), "down");
  EXPECT_EQ(opposite_direction("a:reversed"), "a:forward");
  EXPECT_EQ(opposite_direction("n:up,m:down"), "m:up,n:down");
  EXPECT_FALSE(opposite_direction("to:padded"));
}

TEST(Move, NeighboursAreTheValidCandidateSteps) {
  for (const DesignPoint& d : {simt_seed(), tensor_seed()}) {
    std::size_t valid = 0;
    for (const Move& m : candidate_steps(d)) valid += try_apply(d, m).has_value();
    const auto list = neighbours(d);
    EXPECT_EQ(list.size(), valid);
    for (const auto& n : list) {
      EXPECT_EQ(n.move.coupled, coupled_axis(d, n.move));
      EXPECT_FALSE(can_implement(n.design));
    }
  }
}

TEST(Move, SettingsParseLikeGenSet) {
  const DesignPoint d = simt_seed();
  EXPECT_EQ(apply(d, parse_setting("split_k=4")).split_k, 4);
  EXPECT_EQ(apply(d, parse_setting("lane_a=reversed")).lane_a, LaneMap::kReversed);
  EXPECT_EQ(apply(d, parse_setting("boundary=uniform_branch")).boundary, Boundary::kUniformBranch);
  const DesignPoint t = apply(d, parse_setting("tile=32x64x16"));
  EXPECT_EQ(t.tile.k, 16);
  // Several settings are validated together: tile and register tile change as a pair.
  ASSERT_EQ(d.tile.m, 32);
  const DesignPoint both = apply(d, {parse_setting("tile=64x64x8"), parse_setting("register_tile=8x4")});
  EXPECT_EQ(both.tile.m, 64);
  EXPECT_EQ(both.register_tile.m, 8);
}

TEST(Move, BadMovesSayWhatIsWrong) {
  const DesignPoint d = simt_seed();
  EXPECT_NE(error_of([] { parse_setting("colour=red"); }).find("unknown axis"), std::string::npos);
  EXPECT_NE(error_of([] { parse_setting("split_k"); }).find("AXIS=VALUE"), std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, parse_setting("split_k=two")); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, parse_setting("tile=64x64")); }).find("MxNxK"), std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, parse_setting("boundary=round")); }).find("uniform_branch"), std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, Move{Axis::kSplitK, "sideways", "", std::nullopt}); }).find("up or down"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, Move{Axis::kSplitK, "down", "", std::nullopt}); }).find("split_k is 1"),
            std::string::npos);
  // K = 71 has 9 tiles of 8: 16 slices would leave some empty.
  EXPECT_NE(error_of([&] { apply(d, parse_setting("split_k=16")); }).find("rule split-k"), std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, Move{Axis::kTensorCore, "to:m16n16k16", "", std::nullopt}); }).find("SIMT"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply(d, Move{Axis::kBoundary, "to:guarded", "", std::nullopt}); }).find("changes nothing"),
            std::string::npos);
  // The message names the move and the design it was applied to.
  const std::string e = error_of([&] { apply(d, Move{Axis::kSplitK, "down", "", std::nullopt}); });
  EXPECT_NE(e.find("split_k down"), std::string::npos) << e;
  EXPECT_NE(e.find(procedural_name(d)), std::string::npos) << e;
}

TEST(Move, JsonRoundTripAndRejections) {
  const DesignPoint d = tensor_seed();
  for (const Move& m : candidate_steps(d)) {
    EXPECT_EQ(move_from_json(move_to_json(m), "t", "move"), m) << to_string(m);
  }
  const Move set = parse_setting("lane_b=forward");
  EXPECT_EQ(move_from_json(move_to_json(set), "t", "move"), set);
  EXPECT_NE(error_of([] { move_from_json(Json{{"axis", "tiles"}, {"direction", "up"}}, "f.json", "moves[0]"); })
                .find("f.json: field 'moves[0].axis'"),
            std::string::npos);
  EXPECT_NE(error_of([] { move_from_json(Json{{"axis", "tile"}}, "f", "m"); }).find("exactly one of"), std::string::npos);
  EXPECT_NE(error_of([] { move_from_json(Json{{"axis", "tile"}, {"direction", "k:up"}, {"why", 1}}, "f", "m"); })
                .find("unknown field"),
            std::string::npos);
  EXPECT_NE(error_of([] { move_from_json(Json{{"axis", "tile"}, {"direction", 3}}, "f", "m"); }).find("must be a string"),
            std::string::npos);
}

}  // namespace
}  // namespace vxsynth::design
