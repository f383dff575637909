#include "design/move.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "common/error.h"
#include "design/hopper_family.h"
#include "design/transform_family.h"
#include "design/validity.h"

namespace vxsynth::design {
namespace {

bool is_tensor(const DesignPoint& d) { return d.fragment != Fragment::kNone; }

// Thrown inside apply_step / apply_set; apply() turns it into an InputError naming the move.
struct MoveRejected {
  std::string why;
};

template <typename E>
E parse_enum_value(const std::string& text, const std::string& axis) {
  E v{};
  if (!parse(text, v)) throw MoveRejected{"\"" + text + "\" is not a value of " + axis + " (" + value_list<E>() + ")"};
  return v;
}

// The value of a "to:VALUE" step.
std::string to_value(const Move& m) {
  if (m.direction.rfind("to:", 0) != 0) {
    throw MoveRejected{"expected a direction \"to:VALUE\" for " + to_string(m.axis) + ", got \"" + m.direction + "\""};
  }
  return m.direction.substr(3);
}

int& dim_of(DesignPoint& d, Axis axis, char which) {
  if (axis == Axis::kTile) return which == 'm' ? d.tile.m : which == 'n' ? d.tile.n : d.tile.k;
  if (axis == Axis::kRegisterTile) return which == 'm' ? d.register_tile.m : d.register_tile.n;
  if (axis == Axis::kCluster) return which == 'm' ? d.cluster.m : d.cluster.n;
  return which == 'm' ? d.warps.m : d.warps.n;
}

// "tile.m": one dimension of an axis, as messages name it.
std::string dim_name(Axis axis, char dim) { return to_string(axis) + "." + dim; }

void double_or_halve(int& v, bool up, const std::string& what) {
  if (up) {
    v *= 2;
  } else {
    if (v % 2) throw MoveRejected{what + " is " + std::to_string(v) + ", odd: it cannot be halved"};
    v /= 2;
  }
}

// "m:up" -> ('m', true); MoveRejected otherwise.
std::pair<char, bool> parse_dim_step(const Move& m, const std::string& dims) {
  const std::string& s = m.direction;
  if (s.size() >= 4 && s[1] == ':' && dims.find(s[0]) != std::string::npos && (s.substr(2) == "up" || s.substr(2) == "down")) {
    return {s[0], s.substr(2) == "up"};
  }
  std::string options;
  for (const char c : dims) options += std::string(options.empty() ? "" : ", ") + c + ":up, " + c + ":down";
  throw MoveRejected{"expected a direction " + options + " for " + to_string(m.axis) + ", got \"" + s + "\""};
}

// "m:up,n:down" -> true (grow m), "n:up,m:down" -> false.
bool parse_exchange(const Move& m) {
  if (m.direction == "m:up,n:down") return true;
  if (m.direction == "n:up,m:down") return false;
  throw MoveRejected{"expected a direction m:up,n:down or n:up,m:down for " + to_string(m.axis) + ", got \"" +
                     m.direction + "\""};
}

void exchange_factor(DesignPoint& d, Axis axis, bool to_m) {
  int& grow = dim_of(d, axis, to_m ? 'm' : 'n');
  int& shrink = dim_of(d, axis, to_m ? 'n' : 'm');
  if (shrink % 2) {
    throw MoveRejected{to_string(axis) + "." + (to_m ? "n" : "m") + " is " + std::to_string(shrink) +
                       ", odd: no factor of two to move"};
  }
  grow *= 2;
  shrink /= 2;
}

// The Vortex core's local memory follows a cp.async ring that outgrows it (doubled up to the 64 KiB
// a configuration allows, as a seed sizes it for its tiles), after any move of a cp_async design
// (the ring's depth, or its tiles); it never shrinks, so stepping down and up again comes back to
// the same design. Designs without cp_async keep their machine.
void fit_vortex_local_memory(DesignPoint& d) {
  if (is_hopper(d) || d.prefetch != Prefetch::kCpAsync) return;
  const std::int64_t need = vortex_local_bytes(d) * vortex_blocks_per_core(d);
  std::int64_t bytes = d.vortex.local_mem_bytes;
  while (bytes > 0 && bytes < need && bytes < 65536) bytes *= 2;
  d.vortex.local_mem_bytes = static_cast<uint32_t>(std::min<std::int64_t>(bytes, 65536));
}

void apply_step(DesignPoint& d, const Move& m) {
  const bool tensor = is_tensor(d);
  switch (m.axis) {
    case Axis::kSharedStaging: {
      const Staging v = parse_enum_value<Staging>(to_value(m), to_string(m.axis));
      d.staging = v;
      // An operand that stops being staged keeps the default lane mapping; prefetch needs staging.
      if (!staged_a(v)) d.lane_a = LaneMap::kForward;
      if (!staged_b(v)) d.lane_b = LaneMap::kForward;
      if (v == Staging::kNone) {
        d.prefetch = Prefetch::kNone;
        d.stages = 1;  // no cp.async ring either
      }
      return;
    }
    case Axis::kReadOnce: d.read_once = parse_enum_value<ReadOnce>(to_value(m), to_string(m.axis)); return;
    case Axis::kLaneMapping: {
      const std::string& s = m.direction;
      if (s.size() < 3 || (s[0] != 'a' && s[0] != 'b') || s[1] != ':') {
        throw MoveRejected{"expected a direction a:forward, a:reversed, b:forward or b:reversed for " + to_string(m.axis) + ", got \"" +
                           s + "\""};
      }
      (s[0] == 'a' ? d.lane_a : d.lane_b) = parse_enum_value<LaneMap>(s.substr(2), to_string(m.axis));
      return;
    }
    case Axis::kTile: {
      if (is_hopper(d)) {
        // m follows the consumer warpgroups and k is one 128-byte row: only the wgmma N moves
        // (consumer_layout columns: n = consumers x N', doubled or halved with N'; the tile rule
        // rejects an N' that is not a multiple of 8).
        const auto [dim, up] = parse_dim_step(m, "n");
        double_or_halve(d.tile.n, up, dim_name(Axis::kTile, 'n'));
        return;
      }
      const auto [dim, up] = parse_dim_step(m, "mnk");
      if (dim == 'k') {
        double_or_halve(d.tile.k, up, dim_name(Axis::kTile, 'k'));
        return;
      }
      if (tensor) {
        throw MoveRejected{"on a tensor-core design the tile's m and n are warps x fragments: step register_tile or "
                           "warps instead"};
      }
      // The register tile follows, so the thread grid (and the block size) stays.
      double_or_halve(dim_of(d, Axis::kTile, dim), up, dim_name(Axis::kTile, dim));
      double_or_halve(dim_of(d, Axis::kRegisterTile, dim), up, dim_name(Axis::kRegisterTile, dim));
      return;
    }
    case Axis::kRegisterTile: {
      if (!tensor) {
        // More outputs per thread in one dimension, fewer in the other, at the same tile.
        exchange_factor(d, Axis::kRegisterTile, parse_exchange(m));
        return;
      }
      const auto [dim, up] = parse_dim_step(m, "mn");
      double_or_halve(dim_of(d, Axis::kRegisterTile, dim), up, dim_name(Axis::kRegisterTile, dim));
      double_or_halve(dim_of(d, Axis::kTile, dim), up, dim_name(Axis::kTile, dim));
      return;
    }
    case Axis::kPrefetch: {
      const bool hopper = is_hopper(d);
      d.prefetch = parse_enum_value<Prefetch>(to_value(m), to_string(m.axis));
      // Outside the Hopper family pipeline_stages is the cp.async ring: it starts at the classic
      // three stages when the step enters cp_async and is 1 again when it leaves.
      if (!hopper) d.stages = d.prefetch == Prefetch::kCpAsync ? std::max(d.stages, kCpAsyncDefaultStages) : 1;
      return;
    }
    case Axis::kTensorCore: {
      if (!tensor) throw MoveRejected{"a SIMT design has no fragment shape (the engine class is fixed)"};
      const Fragment v = parse_enum_value<Fragment>(to_value(m), to_string(m.axis));
      const FragmentShape from = fragment_shape(d.fragment), to = fragment_shape(v);
      if (to.m == 0) throw MoveRejected{"tensor_core none would change the engine class, a fixed property"};
      const int warp_m = d.register_tile.m * from.m, warp_n = d.register_tile.n * from.n;
      d.fragment = v;
      if (warp_m % to.m == 0 && warp_n % to.n == 0) {
        // Fragment shapes at the same warp tile: the fragments per warp follow.
        d.register_tile = {warp_m / to.m, warp_n / to.n};
      } else {
        // The warp tile cannot hold the new shape: as few fragments as cover it, and the block
        // tile follows.
        d.register_tile = {std::max(1, warp_m / to.m), std::max(1, warp_n / to.n)};
        d.tile.m = d.warps.m * d.register_tile.m * to.m;
        d.tile.n = d.warps.n * d.register_tile.n * to.n;
      }
      if (d.tile.k % to.k != 0) d.tile.k = to.k;
      return;
    }
    case Axis::kActivation:
      d.activation = parse_enum_value<ActivationPlacement>(to_value(m), to_string(m.axis));
      return;
    case Axis::kSplitK: {
      if (m.direction != "up" && m.direction != "down") {
        throw MoveRejected{"expected a direction up or down for " + to_string(m.axis) + ", got \"" + m.direction + "\""};
      }
      if (m.direction == "down" && d.split_k < 2) throw MoveRejected{to_string(m.axis) + " is 1: it cannot go down"};
      d.split_k = m.direction == "up" ? d.split_k * 2 : d.split_k / 2;
      // One slice has nothing to reduce: the reduction goes back to its default with it.
      if (d.split_k == 1) d.split_reduce = SplitReduce::kSeparate;
      return;
    }
    case Axis::kWarps: {
      exchange_factor(d, Axis::kWarps, parse_exchange(m));
      if (tensor) {
        // The warp tile keeps its fragments; the block tile changes shape.
        d.tile.m = d.warps.m * d.register_tile.m * fragment_shape(d.fragment).m;
        d.tile.n = d.warps.n * d.register_tile.n * fragment_shape(d.fragment).n;
      }
      return;
    }
    case Axis::kBoundary: d.boundary = parse_enum_value<Boundary>(to_value(m), to_string(m.axis)); return;
    case Axis::kKRange: d.k_range = parse_enum_value<KRange>(to_value(m), to_string(m.axis)); return;
    case Axis::kPipelineStages: {
      if (m.direction != "up" && m.direction != "down") {
        throw MoveRejected{"expected a direction up or down for " + to_string(m.axis) + ", got \"" + m.direction + "\""};
      }
      d.stages += m.direction == "up" ? 1 : -1;
      return;
    }
    case Axis::kRaster: d.raster = parse_enum_value<Raster>(to_value(m), to_string(m.axis)); return;
    case Axis::kEpilogueStore:
      d.epilogue_store = parse_enum_value<EpilogueStore>(to_value(m), to_string(m.axis));
      return;
    case Axis::kBiasLoad: d.bias_load = parse_enum_value<BiasLoad>(to_value(m), "bias_load"); return;
    case Axis::kCluster: {
      const auto [dim, up] = parse_dim_step(m, "mn");
      double_or_halve(dim_of(d, Axis::kCluster, dim), up, dim_name(m.axis, dim));
      // A cluster of one block along a dimension has nobody to share with: the operand shared
      // along it leaves the multicast (a: cluster rows, n; b: cluster columns, m).
      if (d.cluster.n == 1 && multicast_a(d.multicast)) d.multicast = multicast_b(d.multicast) ? Multicast::kB : Multicast::kNone;
      if (d.cluster.m == 1 && multicast_b(d.multicast)) d.multicast = multicast_a(d.multicast) ? Multicast::kA : Multicast::kNone;
      return;
    }
    case Axis::kScale: d.scale = parse_enum_value<Scale>(to_value(m), to_string(m.axis)); return;
    case Axis::kRegisterSplit:
      d.register_split = parse_enum_value<RegisterSplit>(to_value(m), to_string(m.axis));
      return;
    case Axis::kWgmmaInFlight: {
      if (m.direction != "up" && m.direction != "down") {
        throw MoveRejected{"expected a direction up or down for " + to_string(m.axis) + ", got \"" + m.direction + "\""};
      }
      d.wgmma_in_flight += m.direction == "up" ? 1 : -1;
      return;
    }
    case Axis::kSchedule: d.schedule = parse_enum_value<Schedule>(to_value(m), to_string(m.axis)); return;
    case Axis::kTf32Round: d.tf32_round = parse_enum_value<Tf32Round>(to_value(m), to_string(m.axis)); return;
    case Axis::kFragmentLoad:
      d.fragment_load = parse_enum_value<FragmentLoad>(to_value(m), to_string(m.axis));
      // The serial fix-up follows the fragments' runs of four (the same sums either way): away
      // from vector4 it goes back to serial (serial_vector4 needs the runs), and a step onto
      // vector4 reads and writes the runs whole. A serial fix-up of vector4 runs a word at a time
      // uses a quarter of each sector (act-2: coalescing 24 %): that pair is reached by an
      // explicit split_reduce step, or by settings, which say every value they want.
      if (d.fragment_load != FragmentLoad::kVector4 && d.split_reduce == SplitReduce::kSerialVector4) {
        d.split_reduce = SplitReduce::kSerial;
      } else if (m.is_step() && d.fragment_load == FragmentLoad::kVector4 && d.split_reduce == SplitReduce::kSerial) {
        d.split_reduce = SplitReduce::kSerialVector4;
      }
      return;
    case Axis::kSharedPad: d.shared_pad = parse_enum_value<SharedPad>(to_value(m), to_string(m.axis)); return;
    case Axis::kConsumerLayout: {
      const ConsumerLayout to = parse_enum_value<ConsumerLayout>(to_value(m), to_string(m.axis));
      if (to == d.consumer_layout) return;
      // The tile follows the layout, so the step lands on the family's tile rule: columns take
      // m = 64 and n = consumers x N' (the largest N', a multiple of 8, within today's n); rows
      // take m = 64 x consumers and n rounded down to a multiple of 32.
      const int consumers = std::max(1, hopper_consumers(d));
      if (to == ConsumerLayout::kColumns) {
        d.tile.m = 64;
        d.tile.n = consumers * std::max(8, d.tile.n / consumers / 8 * 8);
      } else {
        d.tile.m = 64 * consumers;
        d.tile.n = std::max(32, d.tile.n / 32 * 32);
      }
      d.consumer_layout = to;
      return;
    }
    case Axis::kReadGuard: d.read_guard = parse_enum_value<ReadGuard>(to_value(m), to_string(m.axis)); return;
    case Axis::kParamReads: d.param_reads = parse_enum_value<ParamReads>(to_value(m), to_string(m.axis)); return;
    case Axis::kSplitReduce: d.split_reduce = parse_enum_value<SplitReduce>(to_value(m), to_string(m.axis)); return;
    case Axis::kMulticast: d.multicast = parse_enum_value<Multicast>(to_value(m), to_string(m.axis)); return;
    case Axis::kIndexType: d.index_type = parse_enum_value<IndexType>(to_value(m), to_string(m.axis)); return;
    case Axis::kIndexMath: d.index_math = parse_enum_value<IndexMath>(to_value(m), to_string(m.axis)); return;
    case Axis::kEntryReads: {
      if (m.direction != "up" && m.direction != "down") {
        throw MoveRejected{"expected a direction up or down for " + to_string(m.axis) + ", got \"" + m.direction + "\""};
      }
      d.entry_reads += m.direction == "up" ? kEntryReadsStep : -kEntryReadsStep;
      return;
    }
  }
}

std::vector<int> parse_dims(const std::string& value, std::size_t count, const std::string& axis) {
  const std::string shape = count == 3 ? "MxNxK" : "MxN";
  std::vector<int> out;
  std::stringstream ss(value);
  std::string part;
  while (std::getline(ss, part, 'x')) {
    try {
      std::size_t used = 0;
      out.push_back(std::stoi(part, &used));
      if (used != part.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw MoveRejected{"expected " + shape + " for " + axis + ", got \"" + value + "\""};
    }
  }
  if (out.size() != count) throw MoveRejected{"expected " + shape + " for " + axis + ", got \"" + value + "\""};
  return out;
}

// A set goes through the design's JSON form, so values are parsed and checked exactly as in
// design.json.
void apply_set(DesignPoint& d, const Move& m) {
  Json j = design_to_json(d);
  Json& axes = j["axes"];
  const std::string key = to_string(m.axis);
  switch (m.axis) {
    case Axis::kTile: {
      const auto v = parse_dims(m.value, 3, key);
      axes[key] = {{"m", v[0]}, {"n", v[1]}, {"k", v[2]}};
      break;
    }
    case Axis::kRegisterTile:
    case Axis::kWarps:
    case Axis::kCluster: {
      const auto v = parse_dims(m.value, 2, key);
      axes[key] = {{"m", v[0]}, {"n", v[1]}};
      break;
    }
    case Axis::kLaneMapping: {
      const auto eq = m.value.find('=');
      const std::string side = m.value.substr(0, eq);
      if (eq == std::string::npos || (side != "a" && side != "b")) {
        throw MoveRejected{"expected a=VALUE or b=VALUE for " + key + ", got \"" + m.value + "\""};
      }
      axes[key][side] = m.value.substr(eq + 1);
      break;
    }
    case Axis::kSplitK:
    case Axis::kPipelineStages:
    case Axis::kWgmmaInFlight:
    case Axis::kEntryReads:
      try {
        std::size_t used = 0;
        axes[key] = std::stoi(m.value, &used);
        if (used != m.value.size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        throw MoveRejected{"expected an integer for " + key + ", got \"" + m.value + "\""};
      }
      break;
    case Axis::kPrefetch:
      axes[key] = m.value;
      // As the step does: outside the Hopper family a set to cp_async brings the ring's default
      // depth (a later pipeline_stages set overrides it), a set to another value drops the ring.
      if (!is_hopper(d)) {
        if (m.value == to_string(Prefetch::kCpAsync)) {
          if (d.stages == 1) axes[to_string(Axis::kPipelineStages)] = kCpAsyncDefaultStages;
        } else {
          axes.erase(to_string(Axis::kPipelineStages));
        }
      }
      break;
    default: axes[key] = m.value; break;
  }
  try {
    d = design_from_json(j, "move");
  } catch (const InputError& e) {
    throw MoveRejected{e.what()};
  }
}

std::optional<DesignPoint> apply_impl(const DesignPoint& d, const Move& m, std::string* why, bool validate = true) {
  auto fail = [&](const std::string& text) -> std::optional<DesignPoint> {
    if (why) *why = text;
    return std::nullopt;
  };
  if (m.is_step() == !m.value.empty()) return fail("a move has either a direction or a value");
  DesignPoint out = d;
  try {
    if (m.is_step()) {
      apply_step(out, m);
    } else {
      apply_set(out, m);
    }
  } catch (const MoveRejected& r) {
    return fail(r.why);
  }
  fit_vortex_local_memory(out);  // a cp_async design's ring (and whatever moved its tiles)
  if (!validate) return out;  // apply(d, moves): a set to the current value is allowed there
  if (same_axes(out, d)) return fail("it changes nothing");
  if (const auto v = can_implement(out)) return fail("the result breaks rule " + v->rule + ": " + v->detail);
  return out;
}

}  // namespace

std::string to_string(const Move& m) {
  std::string s = to_string(m.axis);
  s += m.is_step() ? " " + m.direction : "=" + m.value;
  if (m.coupled) s += " (" + to_string(*m.coupled) + " follows)";
  return s;
}

std::string to_string(const std::vector<Move>& moves) {
  std::string s;
  for (const auto& m : moves) s += (s.empty() ? "" : " + ") + to_string(m);
  return s;
}

std::optional<DesignPoint> try_apply(const DesignPoint& d, const Move& m, std::string* why) {
  return apply_impl(d, m, why);
}

DesignPoint apply(const DesignPoint& d, const Move& m) {
  std::string why;
  auto out = apply_impl(d, m, &why);
  if (!out) throw InputError("move", to_string(m), "cannot be applied to " + procedural_name(d) + ": " + why);
  return *out;
}

DesignPoint apply(const DesignPoint& d, const std::vector<Move>& moves, const std::string& origin) {
  // Validity is checked on the result only: moves given together (tile and register tile) may
  // pass through a design that breaks a rule on the way.
  DesignPoint out = d;
  for (const auto& m : moves) {
    std::string why;
    auto next = apply_impl(out, m, &why, false);
    if (!next) throw InputError(origin, to_string(m), "cannot be applied to " + procedural_name(out) + ": " + why);
    out = std::move(*next);
  }
  if (const auto v = can_implement(out)) {
    throw InputError(origin, to_string(moves), "the result breaks rule " + v->rule + ": " + v->detail);
  }
  return out;
}

std::optional<Axis> coupled_axis(const DesignPoint& d, const Move& m) {
  if (!m.is_step()) return std::nullopt;
  const bool tensor = is_tensor(d);
  switch (m.axis) {
    case Axis::kTile:
      if (!tensor && m.direction.rfind("k:", 0) != 0) return Axis::kRegisterTile;
      return std::nullopt;
    case Axis::kRegisterTile:
    case Axis::kWarps:
      if (tensor) return Axis::kTile;
      return std::nullopt;
    case Axis::kFragmentLoad: {
      // The serial fix-up follows the runs of four (apply): serial_vector4 <-> serial.
      const bool to_vector4 = m.direction == "to:" + to_string(FragmentLoad::kVector4);
      if (d.split_reduce == SplitReduce::kSerialVector4 && !to_vector4) return Axis::kSplitReduce;
      if (d.split_reduce == SplitReduce::kSerial && to_vector4) return Axis::kSplitReduce;
      return std::nullopt;
    }
    case Axis::kCluster:
      // Down to one block along the dimension an operand is shared on: it leaves the multicast.
      if (m.direction == "n:down" && d.cluster.n == 2 && multicast_a(d.multicast)) return Axis::kMulticast;
      if (m.direction == "m:down" && d.cluster.m == 2 && multicast_b(d.multicast)) return Axis::kMulticast;
      return std::nullopt;
    case Axis::kSplitK:
      // Down to one slice: nothing is left to reduce serially.
      if (m.direction == "down" && d.split_k == 2 && d.split_reduce != SplitReduce::kSeparate) return Axis::kSplitReduce;
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::vector<Move> candidate_steps(const DesignPoint& d) {
  std::vector<Move> out;
  auto add = [&](Axis axis, const std::string& direction) {
    Move m{axis, direction, "", std::nullopt};
    m.coupled = coupled_axis(d, m);
    out.push_back(m);
  };
  auto enum_steps = [&](Axis axis, auto current) {
    using E = decltype(current);
    for (E v : all_values<E>()) {
      if (v != current) add(axis, "to:" + to_string(v));
    }
  };
  if (is_hopper(d)) {
    // The Hopper family fixes the other axes (design/hopper_family.h).
    add(Axis::kTile, "n:up");
    add(Axis::kTile, "n:down");
    add(Axis::kPipelineStages, "up");
    add(Axis::kPipelineStages, "down");
    enum_steps(Axis::kRaster, d.raster);
    enum_steps(Axis::kEpilogueStore, d.epilogue_store);
    for (const char* s : {"m:up", "m:down", "n:up", "n:down"}) add(Axis::kCluster, s);
    if (d.op.has_bias()) enum_steps(Axis::kBiasLoad, d.bias_load);
    // The later axes after the first five, so the earlier neighbours keep their order.
    add(Axis::kSplitK, "up");
    add(Axis::kSplitK, "down");
    enum_steps(Axis::kRegisterSplit, d.register_split);
    add(Axis::kWgmmaInFlight, "up");
    add(Axis::kWgmmaInFlight, "down");
    enum_steps(Axis::kSchedule, d.schedule);
    if (d.fixed.precision == ops::PrecisionPath::tf32) enum_steps(Axis::kTf32Round, d.tf32_round);
    // consumer_layout last, so the earlier neighbours keep their order.
    enum_steps(Axis::kConsumerLayout, d.consumer_layout);
    enum_steps(Axis::kMulticast, d.multicast);  // last of all, for the same reason
    return out;
  }
  const bool tensor = is_tensor(d);
  enum_steps(Axis::kSharedStaging, d.staging);
  enum_steps(Axis::kReadOnce, d.read_once);
  add(Axis::kLaneMapping, "a:" + to_string(d.lane_a == LaneMap::kForward ? LaneMap::kReversed : LaneMap::kForward));
  add(Axis::kLaneMapping, "b:" + to_string(d.lane_b == LaneMap::kForward ? LaneMap::kReversed : LaneMap::kForward));
  if (!tensor) {
    for (const char* s : {"m:up", "m:down", "n:up", "n:down"}) add(Axis::kTile, s);
  }
  add(Axis::kTile, "k:up");
  add(Axis::kTile, "k:down");
  if (!tensor) {
    add(Axis::kRegisterTile, "m:up,n:down");
    add(Axis::kRegisterTile, "n:up,m:down");
  } else {
    for (const char* s : {"m:up", "m:down", "n:up", "n:down"}) add(Axis::kRegisterTile, s);
  }
  // TMA and wgmma belong to the Hopper family, which a design enters by its seed; cp_async
  // comes last (below), so the earlier neighbours keep their order.
  for (Prefetch v : all_values<Prefetch>()) {
    if (v != d.prefetch && v != Prefetch::kTma && v != Prefetch::kCpAsync) add(Axis::kPrefetch, "to:" + to_string(v));
  }
  if (tensor) {
    for (Fragment v : all_values<Fragment>()) {
      if (v != d.fragment && v != Fragment::kNone && !is_wgmma(v)) add(Axis::kTensorCore, "to:" + to_string(v));
    }
  }
  enum_steps(Axis::kActivation, d.activation);
  add(Axis::kSplitK, "up");
  add(Axis::kSplitK, "down");
  add(Axis::kWarps, "m:up,n:down");
  add(Axis::kWarps, "n:up,m:down");
  enum_steps(Axis::kBoundary, d.boundary);
  enum_steps(Axis::kKRange, d.k_range);
  // The layout-transform family's own axis (validity keeps other families at none).
  if (is_transform(d)) {
    enum_steps(Axis::kScale, d.scale);
    // read_guard last among a transform's steps, so earlier chains keep their order.
    if (d.staging != Staging::kNone) enum_steps(Axis::kReadGuard, d.read_guard);
    // param_reads after it, for the same reason.
    if (d.staging != Staging::kNone) enum_steps(Axis::kParamReads, d.param_reads);
    // index_type after them, for the same reason; entry_reads is retired (a counter-only value:
    // its reads compute nothing), so only a step back to 0 is offered; index_math last.
    enum_steps(Axis::kIndexType, d.index_type);
    if (d.entry_reads != 0) add(Axis::kEntryReads, "down");
    enum_steps(Axis::kIndexMath, d.index_math);
  }
  // The SIMT designs' later axes, last so the earlier neighbours keep their order.
  if (!tensor && !is_transform(d)) {
    enum_steps(Axis::kFragmentLoad, d.fragment_load);
    if (d.staging != Staging::kNone) enum_steps(Axis::kSharedPad, d.shared_pad);
  }
  // prefetch cp_async (SIMT and tensor designs with a staged operand), then its ring's depth: last
  // of all, so the earlier neighbours keep their order.
  if (!is_transform(d) && d.staging != Staging::kNone) {
    if (d.prefetch != Prefetch::kCpAsync) {
      add(Axis::kPrefetch, "to:" + to_string(Prefetch::kCpAsync));
    } else {
      add(Axis::kPipelineStages, "up");
      add(Axis::kPipelineStages, "down");
    }
  }
  // The split-K reduction (split_k > 1): after everything else, for the same reason.
  // serial_vector4 only where the fragments are vector4 (the runs it reads and writes).
  if (!is_transform(d) && d.split_k > 1) {
    for (SplitReduce v : all_values<SplitReduce>()) {
      if (v == d.split_reduce) continue;
      if (v == SplitReduce::kSerialVector4 && d.fragment_load != FragmentLoad::kVector4) continue;
      add(Axis::kSplitReduce, "to:" + to_string(v));
    }
  }
  return out;
}

std::optional<std::string> opposite_direction(const std::string& direction) {
  if (direction == "up") return std::string("down");
  if (direction == "down") return std::string("up");
  if (direction == "m:up,n:down") return std::string("n:up,m:down");
  if (direction == "n:up,m:down") return std::string("m:up,n:down");
  if (direction.size() > 2 && direction[1] == ':') {
    const std::string rest = direction.substr(2);
    const std::string side = direction.substr(0, 2);
    if (rest == "up") return side + "down";
    if (rest == "down") return side + "up";
    if (rest == "forward") return side + "reversed";
    if (rest == "reversed") return side + "forward";
  }
  return std::nullopt;
}

Move parse_setting(const std::string& text, const std::string& origin) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError(origin, text, "expected AXIS=VALUE");
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  if (value.empty()) throw InputError(origin, key, "no value after '='");
  if (key == "lane_a" || key == "lane_b") return Move{Axis::kLaneMapping, "", key.substr(5) + "=" + value, std::nullopt};
  Axis axis{};
  if (!parse(key, axis)) {
    std::string names;
    for (const auto& n : axis_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError(origin, key, "unknown axis (" + names + "; lane_a, lane_b for one operand's lane mapping)");
  }
  if (axis == Axis::kLaneMapping && value.find('=') == std::string::npos) {
    throw InputError(origin, key, "expected " + key + "=a=VALUE, or lane_a=VALUE / lane_b=VALUE");
  }
  return Move{axis, "", value, std::nullopt};
}

DesignPoint apply_settings(const DesignPoint& d, const std::vector<std::string>& settings, const std::string& origin) {
  std::vector<Move> moves;
  for (const auto& item : settings) moves.push_back(parse_setting(item, origin));
  if (moves.empty()) {
    require_valid(d, origin);
    return d;
  }
  return apply(d, moves, origin);
}

Json move_to_json(const Move& m) {
  Json j{{"axis", to_string(m.axis)}};
  if (m.is_step()) {
    j["direction"] = m.direction;
  } else {
    j["value"] = m.value;
  }
  j["coupled"] = m.coupled ? Json(to_string(*m.coupled)) : Json(nullptr);
  return j;
}

Move move_from_json(const Json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "a move must be an object {\"axis\": ..., \"direction\" or \"value\": ...}");
  for (const auto& [key, _] : j.items()) {
    if (key != "axis" && key != "direction" && key != "value" && key != "coupled") {
      throw InputError(file, where + "." + key, "unknown field (axis, direction, value, coupled)");
    }
  }
  auto text = [&](const std::string& key) -> std::string {
    if (!j.contains(key) || j.at(key).is_null()) return "";
    if (!j.at(key).is_string()) throw InputError(file, where + "." + key, "must be a string");
    return j.at(key).get<std::string>();
  };
  Move m;
  const std::string axis = text("axis");
  if (axis.empty()) throw InputError(file, where + ".axis", "missing");
  if (!parse(axis, m.axis)) throw InputError(file, where + ".axis", "unknown axis \"" + axis + "\"");
  m.direction = text("direction");
  m.value = text("value");
  if (m.direction.empty() == m.value.empty()) {
    throw InputError(file, where, "give exactly one of \"direction\" (a step) and \"value\" (a set)");
  }
  const std::string coupled = text("coupled");
  if (!coupled.empty()) {
    Axis c{};
    if (!parse(coupled, c)) throw InputError(file, where + ".coupled", "unknown axis \"" + coupled + "\"");
    m.coupled = c;
  }
  return m;
}

}  // namespace vxsynth::design
