// The typed move vocabulary: how a design changes along one axis. A Move is either a step
// along the axis's domain ("split_k up", "tile m:up", "lane_mapping a:reversed",
// "boundary to:padded") or a value to set ("split_k=4", "tile=64x64x16", as `vxsynth gen --set`
// writes it). Neighbours, `gen --set` and the refinement loop all edit designs through apply().
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/json_io.h"
#include "design/design_point.h"

namespace vxsynth::design {

struct Move {
  Axis axis = Axis::kSplitK;
  // A step: "up" / "down" (split_k), "m:up" "n:down" "k:up" (tile, tensor-core register tile),
  // "m:up,n:down" / "n:up,m:down" (register tile of SIMT designs, warps), "a:reversed"
  // (lane mapping), "to:VALUE" (enum axes). Empty for a set.
  std::string direction;
  // A set: the value as in --set: "4", "padded", "64x64x16", "2x2", lanes "a=reversed".
  // Empty for a step.
  std::string value;
  // The axis that follows so a fixed property holds (tile steps of SIMT designs move the
  // register tile with them, ...). Filled by apply's callers from coupled_axis(); informative.
  std::optional<Axis> coupled;

  bool is_step() const { return !direction.empty(); }
  bool operator==(const Move&) const = default;
};

// "split_k up", "tile m:up (register_tile follows)", "split_k=4".
std::string to_string(const Move& m);
// Several moves applied together: "split_k up + boundary to:padded".
std::string to_string(const std::vector<Move>& moves);

// The move's effect on `d`. InputError (field "move", naming the move) when the direction or
// value is not one of the axis's, when it changes nothing, or when the result breaks a
// validity rule (the rule and its detail are in the message).
DesignPoint apply(const DesignPoint& d, const Move& m);
// Several moves in order; validity is checked on the final design only.
// Errors name `origin` as the file ("--set" for the command line).
DesignPoint apply(const DesignPoint& d, const std::vector<Move>& moves, const std::string& origin = "move");
// As apply, without throwing: nullopt and `why` set when the move cannot be applied.
std::optional<DesignPoint> try_apply(const DesignPoint& d, const Move& m, std::string* why = nullptr);

// The axis a step moves along with its own on this design (nullopt when none).
std::optional<Axis> coupled_axis(const DesignPoint& d, const Move& m);

// Every step the domain offers from `d`, valid or not, in a fixed order (axes in order, then
// up before down, m before n, enum values in domain order). neighbours() keeps the valid ones.
std::vector<Move> candidate_steps(const DesignPoint& d);

// The opposite step ("up" <-> "down", "m:up,n:down" <-> "n:up,m:down", lanes flip back);
// nullopt for "to:VALUE" steps and sets (an enum axis has several other values instead).
std::optional<std::string> opposite_direction(const std::string& direction);

// "AXIS=VALUE" as given to `vxsynth gen --set` (lane_a=V and lane_b=V are lane_mapping sets).
// InputError naming `origin` when it is not of that form or names no axis.
Move parse_setting(const std::string& text, const std::string& origin = "--set");

// Settings "AXIS=VALUE" (as parse_setting reads them) applied together as sets, validity checked
// on the result (apply(d, moves, origin)); with none, `d` itself checked. `vxsynth gen --set`.
DesignPoint apply_settings(const DesignPoint& d, const std::vector<std::string>& settings,
                           const std::string& origin = "--set");

// JSON: {"axis": "tile", "direction": "m:up", "coupled": "register_tile"} or
// {"axis": "split_k", "value": "4"}. from_json rejects unknown fields and axes, naming `file`
// and `where`.
Json move_to_json(const Move& m);
Move move_from_json(const Json& j, const std::string& file, const std::string& where);

}  // namespace vxsynth::design
