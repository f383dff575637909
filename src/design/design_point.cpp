#include "design/design_point.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <type_traits>

#include "common/error.h"
#include "design/hopper_family.h"
#include "design/transform_family.h"
#include "design/validity.h"

namespace vxsynth::design {

std::string to_string(EngineClass e) { return std::string(engine_class_name(e)); }

bool parse(const std::string& s, EngineClass& out) {
  if (s == "simt") {
    out = EngineClass::kSimt;
    return true;
  }
  if (s == "tensor_core" || s == "tensor") {
    out = EngineClass::kTensorCore;
    return true;
  }
  return false;
}

bool same_axes(const DesignPoint& a, const DesignPoint& b) {
  return a.staging == b.staging && a.read_once == b.read_once && a.lane_a == b.lane_a && a.lane_b == b.lane_b &&
         a.tile == b.tile && a.register_tile == b.register_tile && a.prefetch == b.prefetch &&
         a.fragment == b.fragment && a.activation == b.activation && a.split_k == b.split_k &&
         a.warps == b.warps && a.boundary == b.boundary && a.k_range == b.k_range && a.vortex == b.vortex &&
         a.scale == b.scale && a.stages == b.stages && a.raster == b.raster && a.epilogue_store == b.epilogue_store &&
         a.cluster == b.cluster && a.bias_load == b.bias_load && a.register_split == b.register_split &&
         a.wgmma_in_flight == b.wgmma_in_flight && a.schedule == b.schedule && a.tf32_round == b.tf32_round &&
         a.fragment_load == b.fragment_load && a.shared_pad == b.shared_pad && a.consumer_layout == b.consumer_layout &&
         a.read_guard == b.read_guard && a.param_reads == b.param_reads && a.split_reduce == b.split_reduce &&
         a.multicast == b.multicast && a.index_type == b.index_type && a.entry_reads == b.entry_reads &&
         a.index_math == b.index_math;
}

namespace {
char lane_letter(LaneMap l) { return l == LaneMap::kForward ? 'f' : 'r'; }
}  // namespace

std::string procedural_name(const DesignPoint& d) {
  if (is_transform(d)) return transform_procedural_name(d);
  if (is_hopper(d)) return hopper_procedural_name(d);
  std::ostringstream s;
  s << ops::to_string(d.op.kind) << '_' << ops::to_string(d.fixed.precision) << '_' << to_string(d.fixed.engine)
    << "_b" << d.fixed.block_size << "_t" << d.tile.m << 'x' << d.tile.n << 'x' << d.tile.k << "_r"
    << d.register_tile.m << 'x' << d.register_tile.n << "_w" << d.warps.m << 'x' << d.warps.n << "_s"
    << to_string(d.staging) << '_' << lane_letter(d.lane_a) << lane_letter(d.lane_b) << "_p"
    << to_string(d.prefetch) << '_' << (d.fragment == Fragment::kNone ? "fma" : to_string(d.fragment)) << "_ro-"
    << to_string(d.read_once) << "_sk" << d.split_k << '_' << to_string(d.boundary) << "_k"
    << (d.k_range == KRange::kGeneric ? "gen" : "fix") << "_act-" << to_string(d.activation);
  // Later axes only when moved from their defaults: the names of earlier designs stay.
  if (d.fragment_load != FragmentLoad::kStrided) s << "_fl-" << to_string(d.fragment_load);
  if (d.shared_pad != SharedPad::kNone) s << "_sp-" << to_string(d.shared_pad);
  // The cp.async ring's depth (prefetch cp_async only; every other design keeps its name).
  if (d.prefetch == Prefetch::kCpAsync) s << "_st" << d.stages;
  if (d.split_reduce != SplitReduce::kSeparate) s << "_sr-" << to_string(d.split_reduce);
  return s.str();
}

BlockGeometry block_geometry(const DesignPoint& d) {
  BlockGeometry g;
  g.warps = d.fixed.block_size / 32;
  if (d.warps.m > 0 && d.warps.n > 0) {
    g.warp_tile_m = d.tile.m / d.warps.m;
    g.warp_tile_n = d.tile.n / d.warps.n;
  }
  if (d.fragment == Fragment::kNone && d.register_tile.m > 0 && d.register_tile.n > 0) {
    g.threads_m = d.tile.m / d.register_tile.m;
    g.threads_n = d.tile.n / d.register_tile.n;
    if (d.warps.m > 0 && d.warps.n > 0) {
      g.lanes_m = g.threads_m / d.warps.m;
      g.lanes_n = g.threads_n / d.warps.n;
    }
  }
  return g;
}

int cuda_tile_element_bytes(const DesignPoint& d) {
  if (d.fragment == Fragment::kNone) return 4;  // SIMT tiles hold fp32 values
  return d.fixed.precision == ops::PrecisionPath::tf32 ? 4 : 2;  // tf32 fragments read fp32 tiles
}

int fragment_tile_ld(const DesignPoint& d) {
  // A 16-byte pad staggers the banks and keeps every fragment row 32-byte aligned.
  return d.tile.k + 16 / cuda_tile_element_bytes(d);
}

int epilogue_tile_ld(const DesignPoint& d) { return d.tile.n + 4; }

int staged_buffers(const DesignPoint& d) {
  if (d.prefetch == Prefetch::kDoubleBuffer) return 2;
  if (d.prefetch == Prefetch::kCpAsync) return d.stages;  // the cp.async ring (Vortex: the same ring)
  return 1;
}

int simt_tile_ld(const DesignPoint& d, int rows) { return rows + (d.shared_pad == SharedPad::kWords4 ? 4 : 0); }

std::int64_t cuda_shared_bytes(const DesignPoint& d) {
  if (is_transform(d)) return transform_tile_bytes(d);
  if (is_hopper(d)) return hopper_shared_bytes(d);
  const std::int64_t buffers = staged_buffers(d);
  if (d.fragment == Fragment::kNone) {
    std::int64_t per_buffer = 0;
    if (staged_a(d.staging)) per_buffer += std::int64_t(d.tile.k) * simt_tile_ld(d, d.tile.m) * 4;
    if (staged_b(d.staging)) per_buffer += std::int64_t(d.tile.k) * simt_tile_ld(d, d.tile.n) * 4;
    return per_buffer * buffers;
  }
  const std::int64_t mainloop =
      buffers * std::int64_t(d.tile.m + d.tile.n) * fragment_tile_ld(d) * cuda_tile_element_bytes(d);
  const std::int64_t epilogue = std::int64_t(d.tile.m) * epilogue_tile_ld(d) * 4;
  return std::max(mainloop, epilogue);  // the two never live at once
}

int vortex_fragment_tile_ld(const DesignPoint& d) { return d.tile.k + 2; }  // word-aligned rows, staggered banks

std::int64_t vortex_local_bytes(const DesignPoint& d) {
  if (is_transform(d)) return transform_tile_bytes(d);
  if (is_hopper(d)) return vortex_local_bytes(vortex_counterpart(d));
  if (d.fragment == Fragment::kNone) return cuda_shared_bytes(d);
  // Tensor tiles hold 16-bit elements on Vortex (tf32 is computed as fp16 there).
  const std::int64_t buffers = staged_buffers(d);
  const std::int64_t mainloop = buffers * std::int64_t(d.tile.m + d.tile.n) * vortex_fragment_tile_ld(d) * 2;
  const std::int64_t epilogue = std::int64_t(d.tile.m) * epilogue_tile_ld(d) * 4;
  return std::max(mainloop, epilogue);
}

int vortex_blocks_per_core(const DesignPoint& d) {
  const int threads = std::max(1, static_cast<int>(d.vortex.threads));
  const int warps_per_block = (d.fixed.block_size + threads - 1) / threads;
  return warps_per_block > 0 ? static_cast<int>(d.vortex.warps) / warps_per_block : 0;
}

// ---- JSON ----

namespace {

void reject_unknown(const Json& j, const std::set<std::string>& known, const std::string& file,
                    const std::string& where) {
  if (!j.is_object()) throw InputError(file, where, "must be an object");
  for (const auto& item : j.items()) {
    if (!known.count(item.key())) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError(file, (where.empty() ? "" : where + ".") + item.key(), "unknown field (expected one of " + list + ")");
    }
  }
}

int get_int(const Json& j, const std::string& key, const std::string& file, const std::string& where) {
  const std::string field = where.empty() ? key : where + "." + key;
  if (!j.contains(key)) throw InputError(file, field, "missing");
  if (!j.at(key).is_number_integer()) throw InputError(file, field, "must be an integer");
  const auto v = j.at(key).get<std::int64_t>();
  if (v < 0 || v > (1 << 30)) throw InputError(file, field, "out of range: " + std::to_string(v));
  return static_cast<int>(v);
}

template <typename E>
std::string names_of() {
  return value_list<E>();
}
template <>
std::string names_of<EngineClass>() {
  return "simt, tensor_core";
}

template <typename E>
E get_enum(const Json& j, const std::string& key, const std::string& file, const std::string& where) {
  const std::string field = where.empty() ? key : where + "." + key;
  if (!j.contains(key)) throw InputError(file, field, "missing");
  if (!j.at(key).is_string()) throw InputError(file, field, "must be a string (one of " + names_of<E>() + ")");
  E out{};
  if (!parse(j.at(key).get<std::string>(), out)) {
    throw InputError(file, field, "unknown value \"" + j.at(key).get<std::string>() + "\" (expected one of " + names_of<E>() + ")");
  }
  return out;
}

Json pair_json(int m, int n) { return Json{{"m", m}, {"n", n}}; }

}  // namespace

Json design_to_json(const DesignPoint& d) {
  Json j;
  j["schema"] = schema_id(kDesignSchemaKind, kDesignSchemaVersion);
  j["name"] = procedural_name(d);
  j["reference"] = d.reference.empty() ? Json(nullptr) : Json(d.reference);
  j["op"] = ops::op_spec_to_json(d.op);
  if (!d.from_kernel_name.empty()) {
    Json props = Json::array();
    for (const auto& p : d.from_kernel_name)
      props.push_back({{"key", p.key}, {"value", p.value}, {"used", p.used}, {"note", p.note}});
    j["from_kernel_name"] = props;
  }
  j["fixed"] = {{"engine_class", to_string(d.fixed.engine)},
                {"precision", ops::to_string(d.fixed.precision)},
                {"block_size", d.fixed.block_size},
                {"shape", {{"batch", d.fixed.shape.batch}, {"M", d.fixed.shape.m}, {"N", d.fixed.shape.n}, {"K", d.fixed.shape.k}}}};
  j["vortex"] = {{"cores", d.vortex.cores},
                 {"warps", d.vortex.warps},
                 {"threads", d.vortex.threads},
                 {"local_mem_bytes", d.vortex.local_mem_bytes}};
  // Keys are the axes' own names (axes.h), never spelled out here.
  Json a;
  auto put = [&a](Axis axis, Json value) { a[to_string(axis)] = std::move(value); };
  put(Axis::kSharedStaging, to_string(d.staging));
  put(Axis::kReadOnce, to_string(d.read_once));
  put(Axis::kLaneMapping, {{"a", to_string(d.lane_a)}, {"b", to_string(d.lane_b)}});
  put(Axis::kTile, {{"m", d.tile.m}, {"n", d.tile.n}, {"k", d.tile.k}});
  put(Axis::kRegisterTile, pair_json(d.register_tile.m, d.register_tile.n));
  put(Axis::kPrefetch, to_string(d.prefetch));
  put(Axis::kTensorCore, to_string(d.fragment));
  put(Axis::kActivation, to_string(d.activation));
  put(Axis::kSplitK, d.split_k);
  put(Axis::kWarps, pair_json(d.warps.m, d.warps.n));
  put(Axis::kBoundary, to_string(d.boundary));
  put(Axis::kKRange, to_string(d.k_range));
  if (is_transform(d)) put(Axis::kScale, to_string(d.scale));
  if (is_hopper(d)) {
    put(Axis::kPipelineStages, d.stages);
    put(Axis::kRaster, to_string(d.raster));
    put(Axis::kEpilogueStore, to_string(d.epilogue_store));
    put(Axis::kCluster, pair_json(d.cluster.m, d.cluster.n));
    if (d.op.has_bias()) put(Axis::kBiasLoad, to_string(d.bias_load));
    // Later axes only when moved from their defaults: the designs locked before them keep their files.
    const DesignPoint defaults;
    if (d.register_split != defaults.register_split) put(Axis::kRegisterSplit, to_string(d.register_split));
    if (d.wgmma_in_flight != defaults.wgmma_in_flight) put(Axis::kWgmmaInFlight, d.wgmma_in_flight);
    if (d.schedule != defaults.schedule) put(Axis::kSchedule, to_string(d.schedule));
    if (d.tf32_round != defaults.tf32_round) put(Axis::kTf32Round, to_string(d.tf32_round));
  }
  // The cp.async ring's depth: written for prefetch cp_async only (every other GEMM design keeps its file).
  if (!is_hopper(d) && d.prefetch == Prefetch::kCpAsync) put(Axis::kPipelineStages, d.stages);
  if (d.fragment_load != FragmentLoad::kStrided) put(Axis::kFragmentLoad, to_string(d.fragment_load));
  if (d.shared_pad != SharedPad::kNone) put(Axis::kSharedPad, to_string(d.shared_pad));
  if (d.consumer_layout != ConsumerLayout::kRows) put(Axis::kConsumerLayout, to_string(d.consumer_layout));
  if (d.read_guard != ReadGuard::kPredicated) put(Axis::kReadGuard, to_string(d.read_guard));
  if (d.param_reads != ParamReads::kHoisted) put(Axis::kParamReads, to_string(d.param_reads));
  if (d.split_reduce != SplitReduce::kSeparate) put(Axis::kSplitReduce, to_string(d.split_reduce));
  if (d.multicast != Multicast::kNone) put(Axis::kMulticast, to_string(d.multicast));
  if (d.index_type != IndexType::kInt64) put(Axis::kIndexType, to_string(d.index_type));
  if (d.entry_reads != 0) put(Axis::kEntryReads, d.entry_reads);
  if (d.index_math != IndexMath::kTile) put(Axis::kIndexMath, to_string(d.index_math));
  j["axes"] = a;
  return j;
}

DesignPoint design_from_json(const Json& j, const std::string& file) {
  require_schema(j, kDesignSchemaKind, kDesignSchemaVersion, file);
  reject_unknown(j, {"schema", "name", "reference", "op", "from_kernel_name", "fixed", "vortex", "axes"}, file, "");
  DesignPoint d;
  if (j.contains("reference") && !j.at("reference").is_null()) {
    if (!j.at("reference").is_string()) throw InputError(file, "reference", "must be a string or null");
    d.reference = j.at("reference").get<std::string>();
  }
  if (j.contains("from_kernel_name")) {
    const Json& props = j.at("from_kernel_name");
    if (!props.is_array()) throw InputError(file, "from_kernel_name", "must be a list");
    for (std::size_t i = 0; i < props.size(); ++i) {
      const std::string where = "from_kernel_name[" + std::to_string(i) + "]";
      reject_unknown(props[i], {"key", "value", "used", "note"}, file, where);
      d.from_kernel_name.push_back({get_field<std::string>(props[i], "key", file + " (" + where + ")"),
                                    get_field<std::string>(props[i], "value", file + " (" + where + ")"),
                                    get_field<bool>(props[i], "used", file + " (" + where + ")"),
                                    get_field<std::string>(props[i], "note", file + " (" + where + ")")});
    }
  }
  if (!j.contains("op")) throw InputError(file, "op", "missing");
  d.op = ops::op_spec_from_json(j.at("op"), file + " (field op)");

  if (!j.contains("fixed")) throw InputError(file, "fixed", "missing");
  const Json& f = j.at("fixed");
  reject_unknown(f, {"engine_class", "precision", "block_size", "shape"}, file, "fixed");
  d.fixed.engine = get_enum<EngineClass>(f, "engine_class", file, "fixed");
  const auto precision = get_field<std::string>(f, "precision", file);
  if (!ops::parse_precision_path(precision, d.fixed.precision)) {
    throw InputError(file, "fixed.precision", "unknown precision \"" + precision + "\" (fp32, tf32, bf16, fp16)");
  }
  d.fixed.block_size = get_int(f, "block_size", file, "fixed");
  if (!f.contains("shape")) throw InputError(file, "fixed.shape", "missing");
  const Json& s = f.at("shape");
  reject_unknown(s, {"batch", "M", "N", "K"}, file, "fixed.shape");
  d.fixed.shape.batch = get_int(s, "batch", file, "fixed.shape");
  d.fixed.shape.m = get_int(s, "M", file, "fixed.shape");
  d.fixed.shape.n = get_int(s, "N", file, "fixed.shape");
  d.fixed.shape.k = get_int(s, "K", file, "fixed.shape");

  if (!j.contains("vortex")) throw InputError(file, "vortex", "missing");
  const Json& v = j.at("vortex");
  reject_unknown(v, {"cores", "warps", "threads", "local_mem_bytes"}, file, "vortex");
  d.vortex.cores = static_cast<uint32_t>(get_int(v, "cores", file, "vortex"));  // get_int: 0..2^30
  d.vortex.warps = static_cast<uint32_t>(get_int(v, "warps", file, "vortex"));
  d.vortex.threads = static_cast<uint32_t>(get_int(v, "threads", file, "vortex"));
  d.vortex.local_mem_bytes = static_cast<uint32_t>(get_int(v, "local_mem_bytes", file, "vortex"));

  if (!j.contains("axes")) throw InputError(file, "axes", "missing");
  const Json& a = j.at("axes");
  reject_unknown(a, std::set<std::string>(axis_names().begin(), axis_names().end()), file, "axes");
  for (const Axis axis : all_axes()) {
    // A family's own axes are optional: their defaults when absent (validity then says whether
    // the design needs them).
    if (!is_family_axis(axis) && !a.contains(to_string(axis))) throw InputError(file, "axes." + to_string(axis), "missing");
  }
  auto enum_axis = [&](Axis axis, auto& field) {
    field = get_enum<std::decay_t<decltype(field)>>(a, to_string(axis), file, "axes");
  };
  auto int_axis = [&](Axis axis, int& field) { field = get_int(a, to_string(axis), file, "axes"); };
  // An axis of a few integer dimensions ({"m": .., "n": ..}): the object and each dimension.
  auto dims_axis = [&](Axis axis, std::initializer_list<std::pair<const char*, int*>> dims) {
    const std::string where = "axes." + to_string(axis);
    const Json& o = a.at(to_string(axis));
    std::set<std::string> known;
    for (const auto& [name, _] : dims) known.insert(name);
    reject_unknown(o, known, file, where);
    for (const auto& [name, field] : dims) *field = get_int(o, name, file, where);
  };
  enum_axis(Axis::kSharedStaging, d.staging);
  enum_axis(Axis::kReadOnce, d.read_once);
  {
    const std::string where = "axes." + to_string(Axis::kLaneMapping);
    const Json& lanes = a.at(to_string(Axis::kLaneMapping));
    reject_unknown(lanes, {"a", "b"}, file, where);
    d.lane_a = get_enum<LaneMap>(lanes, "a", file, where);
    d.lane_b = get_enum<LaneMap>(lanes, "b", file, where);
  }
  dims_axis(Axis::kTile, {{"m", &d.tile.m}, {"n", &d.tile.n}, {"k", &d.tile.k}});
  dims_axis(Axis::kRegisterTile, {{"m", &d.register_tile.m}, {"n", &d.register_tile.n}});
  enum_axis(Axis::kPrefetch, d.prefetch);
  enum_axis(Axis::kTensorCore, d.fragment);
  enum_axis(Axis::kActivation, d.activation);
  int_axis(Axis::kSplitK, d.split_k);
  dims_axis(Axis::kWarps, {{"m", &d.warps.m}, {"n", &d.warps.n}});
  enum_axis(Axis::kBoundary, d.boundary);
  enum_axis(Axis::kKRange, d.k_range);
  auto present = [&a](Axis axis) { return a.contains(to_string(axis)); };
  if (present(Axis::kScale)) enum_axis(Axis::kScale, d.scale);
  if (present(Axis::kPipelineStages)) int_axis(Axis::kPipelineStages, d.stages);
  if (present(Axis::kRaster)) enum_axis(Axis::kRaster, d.raster);
  if (present(Axis::kEpilogueStore)) enum_axis(Axis::kEpilogueStore, d.epilogue_store);
  if (present(Axis::kCluster)) dims_axis(Axis::kCluster, {{"m", &d.cluster.m}, {"n", &d.cluster.n}});
  if (present(Axis::kBiasLoad)) enum_axis(Axis::kBiasLoad, d.bias_load);
  if (present(Axis::kRegisterSplit)) enum_axis(Axis::kRegisterSplit, d.register_split);
  if (present(Axis::kWgmmaInFlight)) int_axis(Axis::kWgmmaInFlight, d.wgmma_in_flight);
  if (present(Axis::kSchedule)) enum_axis(Axis::kSchedule, d.schedule);
  if (present(Axis::kTf32Round)) enum_axis(Axis::kTf32Round, d.tf32_round);
  if (present(Axis::kFragmentLoad)) enum_axis(Axis::kFragmentLoad, d.fragment_load);
  if (present(Axis::kSharedPad)) enum_axis(Axis::kSharedPad, d.shared_pad);
  if (present(Axis::kConsumerLayout)) enum_axis(Axis::kConsumerLayout, d.consumer_layout);
  if (present(Axis::kReadGuard)) enum_axis(Axis::kReadGuard, d.read_guard);
  if (present(Axis::kParamReads)) enum_axis(Axis::kParamReads, d.param_reads);
  if (present(Axis::kSplitReduce)) enum_axis(Axis::kSplitReduce, d.split_reduce);
  if (present(Axis::kMulticast)) enum_axis(Axis::kMulticast, d.multicast);
  if (present(Axis::kIndexType)) enum_axis(Axis::kIndexType, d.index_type);
  if (present(Axis::kEntryReads)) int_axis(Axis::kEntryReads, d.entry_reads);
  if (present(Axis::kIndexMath)) enum_axis(Axis::kIndexMath, d.index_math);
  return d;
}

DesignPoint read_design(const std::string& path) {
  DesignPoint d = design_from_json(read_json_file(path), path);
  require_valid(d, path);
  return d;
}

void write_design(const std::string& path, const DesignPoint& d) { write_json_file(path, design_to_json(d)); }

}  // namespace vxsynth::design
