#include "design/axes.h"

#include <array>
#include <utility>

#include "common/error.h"

namespace vxsynth::design {
namespace {

template <typename E>
struct Names;

template <>
struct Names<Staging> {
  static constexpr std::array<std::pair<Staging, const char*>, 4> table{
      {{Staging::kNone, "none"}, {Staging::kA, "a"}, {Staging::kB, "b"}, {Staging::kAB, "ab"}}};
};
template <>
struct Names<ReadOnce> {
  static constexpr std::array<std::pair<ReadOnce, const char*>, 3> table{{{ReadOnce::kDefault, "default"},
                                                                          {ReadOnce::kReadOnly, "read_only"},
                                                                          {ReadOnce::kStreaming, "streaming"}}};
};
template <>
struct Names<LaneMap> {
  static constexpr std::array<std::pair<LaneMap, const char*>, 2> table{
      {{LaneMap::kForward, "forward"}, {LaneMap::kReversed, "reversed"}}};
};
template <>
struct Names<Prefetch> {
  static constexpr std::array<std::pair<Prefetch, const char*>, 5> table{{{Prefetch::kNone, "none"},
                                                                          {Prefetch::kRegisters, "registers"},
                                                                          {Prefetch::kDoubleBuffer, "double_buffer"},
                                                                          {Prefetch::kTma, "tma"},
                                                                          {Prefetch::kCpAsync, "cp_async"}}};
};
template <>
struct Names<Fragment> {
  static constexpr std::array<std::pair<Fragment, const char*>, 9> table{{{Fragment::kNone, "none"},
                                                                          {Fragment::kM16N16K16, "m16n16k16"},
                                                                          {Fragment::kM32N8K16, "m32n8k16"},
                                                                          {Fragment::kM8N32K16, "m8n32k16"},
                                                                          {Fragment::kM16N16K8, "m16n16k8"},
                                                                          {Fragment::kMmaM16N8K16, "mma_m16n8k16"},
                                                                          {Fragment::kMmaM16N8K8, "mma_m16n8k8"},
                                                                          {Fragment::kWgmmaK16, "wgmma_m64k16"},
                                                                          {Fragment::kWgmmaK8, "wgmma_m64k8"}}};
};
template <>
struct Names<ActivationPlacement> {
  static constexpr std::array<std::pair<ActivationPlacement, const char*>, 2> table{
      {{ActivationPlacement::kFused, "fused"}, {ActivationPlacement::kStripped, "stripped"}}};
};
template <>
struct Names<Boundary> {
  static constexpr std::array<std::pair<Boundary, const char*>, 3> table{{{Boundary::kGuarded, "guarded"},
                                                                          {Boundary::kPadded, "padded"},
                                                                          {Boundary::kUniformBranch, "uniform_branch"}}};
};
template <>
struct Names<KRange> {
  static constexpr std::array<std::pair<KRange, const char*>, 2> table{
      {{KRange::kGeneric, "generic"}, {KRange::kFixed, "fixed"}}};
};

template <>
struct Names<Scale> {
  static constexpr std::array<std::pair<Scale, const char*>, 3> table{{{Scale::kNone, "none"}, {Scale::kAlpha, "alpha"}, {Scale::kAlphaInRange, "alpha_in_range"}}};
};

template <>
struct Names<Raster> {
  static constexpr std::array<std::pair<Raster, const char*>, 2> table{
      {{Raster::kNMajor, "n_major"}, {Raster::kMMajor, "m_major"}}};
};
template <>
struct Names<EpilogueStore> {
  static constexpr std::array<std::pair<EpilogueStore, const char*>, 3> table{
      {{EpilogueStore::kDirect, "direct"}, {EpilogueStore::kTma, "tma"}, {EpilogueStore::kTmaSwizzled, "tma_swizzled"}}};
};
template <>
struct Names<BiasLoad> {
  static constexpr std::array<std::pair<BiasLoad, const char*>, 3> table{
      {{BiasLoad::kGlobal, "global"}, {BiasLoad::kTma, "tma"}, {BiasLoad::kPaired, "paired"}}};
};
template <>
struct Names<RegisterSplit> {
  static constexpr std::array<std::pair<RegisterSplit, const char*>, 2> table{
      {{RegisterSplit::kNone, "none"}, {RegisterSplit::kSetMaxNReg, "setmaxnreg"}}};
};
template <>
struct Names<Schedule> {
  static constexpr std::array<std::pair<Schedule, const char*>, 2> table{
      {{Schedule::kGrid, "grid"}, {Schedule::kPersistent, "persistent"}}};
};
template <>
struct Names<Tf32Round> {
  static constexpr std::array<std::pair<Tf32Round, const char*>, 2> table{
      {{Tf32Round::kWorkspace, "workspace"}, {Tf32Round::kShared, "shared"}}};
};

template <>
struct Names<FragmentLoad> {
  static constexpr std::array<std::pair<FragmentLoad, const char*>, 2> table{
      {{FragmentLoad::kStrided, "strided"}, {FragmentLoad::kVector4, "vector4"}}};
};

template <>
struct Names<SharedPad> {
  static constexpr std::array<std::pair<SharedPad, const char*>, 2> table{
      {{SharedPad::kNone, "none"}, {SharedPad::kWords4, "words4"}}};
};

template <>
struct Names<ConsumerLayout> {
  static constexpr std::array<std::pair<ConsumerLayout, const char*>, 2> table{
      {{ConsumerLayout::kRows, "rows"}, {ConsumerLayout::kColumns, "columns"}}};
};

template <>
struct Names<ReadGuard> {
  static constexpr std::array<std::pair<ReadGuard, const char*>, 2> table{
      {{ReadGuard::kPredicated, "predicated"}, {ReadGuard::kColumnBranch, "column_branch"}}};
};

template <>
struct Names<ParamReads> {
  static constexpr std::array<std::pair<ParamReads, const char*>, 2> table{
      {{ParamReads::kHoisted, "hoisted"}, {ParamReads::kAtStore, "at_store"}}};
};

template <>
struct Names<SplitReduce> {
  static constexpr std::array<std::pair<SplitReduce, const char*>, 3> table{
      {{SplitReduce::kSeparate, "separate"}, {SplitReduce::kSerial, "serial"}, {SplitReduce::kSerialVector4, "serial_vector4"}}};
};

template <>
struct Names<Multicast> {
  static constexpr std::array<std::pair<Multicast, const char*>, 4> table{
      {{Multicast::kNone, "none"}, {Multicast::kA, "a"}, {Multicast::kB, "b"}, {Multicast::kAB, "ab"}}};
};

template <>
struct Names<IndexType> {
  static constexpr std::array<std::pair<IndexType, const char*>, 2> table{
      {{IndexType::kInt64, "int64"}, {IndexType::kInt32, "int32"}}};
};

template <>
struct Names<IndexMath> {
  static constexpr std::array<std::pair<IndexMath, const char*>, 2> table{
      {{IndexMath::kTile, "tile"}, {IndexMath::kGeneric, "generic"}}};
};

// Values added at run time (add_value), after the built-in table.
template <typename E>
std::vector<std::pair<E, std::string>>& added() {
  static std::vector<std::pair<E, std::string>> values;
  return values;
}

template <typename E>
std::string name_of(E v) {
  for (const auto& [value, name] : Names<E>::table) {
    if (value == v) return name;
  }
  for (const auto& [value, name] : added<E>()) {
    if (value == v) return name;
  }
  return "?";
}

template <typename E>
bool parse_name(const std::string& s, E& out) {
  for (const auto& [value, name] : Names<E>::table) {
    if (s == name) {
      out = value;
      return true;
    }
  }
  for (const auto& [value, name] : added<E>()) {
    if (s == name) {
      out = value;
      return true;
    }
  }
  return false;
}

template <typename E>
std::vector<E>& values_of() {
  static std::vector<E> values = [] {
    std::vector<E> v;
    for (const auto& entry : Names<E>::table) v.push_back(entry.first);
    return v;
  }();
  return values;
}

}  // namespace

std::string to_string(Staging v) { return name_of(v); }
std::string to_string(ReadOnce v) { return name_of(v); }
std::string to_string(LaneMap v) { return name_of(v); }
std::string to_string(Prefetch v) { return name_of(v); }
std::string to_string(Fragment v) { return name_of(v); }
std::string to_string(ActivationPlacement v) { return name_of(v); }
std::string to_string(Boundary v) { return name_of(v); }
std::string to_string(KRange v) { return name_of(v); }
std::string to_string(Scale v) { return name_of(v); }
std::string to_string(Raster v) { return name_of(v); }
std::string to_string(EpilogueStore v) { return name_of(v); }
std::string to_string(BiasLoad v) { return name_of(v); }
std::string to_string(RegisterSplit v) { return name_of(v); }
std::string to_string(Schedule v) { return name_of(v); }
std::string to_string(Tf32Round v) { return name_of(v); }
std::string to_string(FragmentLoad v) { return name_of(v); }
std::string to_string(SharedPad v) { return name_of(v); }
std::string to_string(ConsumerLayout v) { return name_of(v); }
std::string to_string(ReadGuard v) { return name_of(v); }
std::string to_string(ParamReads v) { return name_of(v); }
std::string to_string(SplitReduce v) { return name_of(v); }
std::string to_string(Multicast v) { return name_of(v); }
std::string to_string(IndexType v) { return name_of(v); }
std::string to_string(IndexMath v) { return name_of(v); }

bool parse(const std::string& s, Staging& out) { return parse_name(s, out); }
bool parse(const std::string& s, ReadOnce& out) { return parse_name(s, out); }
bool parse(const std::string& s, LaneMap& out) { return parse_name(s, out); }
bool parse(const std::string& s, Prefetch& out) { return parse_name(s, out); }
bool parse(const std::string& s, Fragment& out) { return parse_name(s, out); }
bool parse(const std::string& s, ActivationPlacement& out) { return parse_name(s, out); }
bool parse(const std::string& s, Boundary& out) { return parse_name(s, out); }
bool parse(const std::string& s, KRange& out) { return parse_name(s, out); }
bool parse(const std::string& s, Scale& out) { return parse_name(s, out); }
bool parse(const std::string& s, Raster& out) { return parse_name(s, out); }
bool parse(const std::string& s, EpilogueStore& out) { return parse_name(s, out); }
bool parse(const std::string& s, BiasLoad& out) { return parse_name(s, out); }
bool parse(const std::string& s, RegisterSplit& out) { return parse_name(s, out); }
bool parse(const std::string& s, Schedule& out) { return parse_name(s, out); }
bool parse(const std::string& s, Tf32Round& out) { return parse_name(s, out); }
bool parse(const std::string& s, FragmentLoad& out) { return parse_name(s, out); }
bool parse(const std::string& s, SharedPad& out) { return parse_name(s, out); }
bool parse(const std::string& s, ConsumerLayout& out) { return parse_name(s, out); }
bool parse(const std::string& s, ReadGuard& out) { return parse_name(s, out); }
bool parse(const std::string& s, ParamReads& out) { return parse_name(s, out); }
bool parse(const std::string& s, SplitReduce& out) { return parse_name(s, out); }
bool parse(const std::string& s, Multicast& out) { return parse_name(s, out); }
bool parse(const std::string& s, IndexType& out) { return parse_name(s, out); }
bool parse(const std::string& s, IndexMath& out) { return parse_name(s, out); }

template <typename E>
const std::vector<E>& all_values() {
  return values_of<E>();
}

template <typename E>
std::string value_list() {
  std::string out;
  for (const E v : values_of<E>()) {
    if (!out.empty()) out += ", ";
    out += name_of(v);
  }
  return out;
}

template <typename E>
void add_value(E value, const std::string& name) {
  E existing{};
  if (name_of(value) != "?" || parse_name(name, existing)) {
    throw WorkError("axis value \"" + name + "\" (" + std::to_string(static_cast<int>(value)) + ") is taken");
  }
  added<E>().push_back({value, name});
  values_of<E>().push_back(value);
}

#define VXSYNTH_DESIGN_INSTANTIATE(E)        \
  template const std::vector<E>& all_values<E>(); \
  template std::string value_list<E>();           \
  template void add_value<E>(E, const std::string&);
VXSYNTH_DESIGN_INSTANTIATE(Staging)
VXSYNTH_DESIGN_INSTANTIATE(ReadOnce)
VXSYNTH_DESIGN_INSTANTIATE(LaneMap)
VXSYNTH_DESIGN_INSTANTIATE(Prefetch)
VXSYNTH_DESIGN_INSTANTIATE(Fragment)
VXSYNTH_DESIGN_INSTANTIATE(ActivationPlacement)
VXSYNTH_DESIGN_INSTANTIATE(Boundary)
VXSYNTH_DESIGN_INSTANTIATE(KRange)
VXSYNTH_DESIGN_INSTANTIATE(Scale)
VXSYNTH_DESIGN_INSTANTIATE(Raster)
VXSYNTH_DESIGN_INSTANTIATE(EpilogueStore)
VXSYNTH_DESIGN_INSTANTIATE(BiasLoad)
VXSYNTH_DESIGN_INSTANTIATE(RegisterSplit)
VXSYNTH_DESIGN_INSTANTIATE(Schedule)
VXSYNTH_DESIGN_INSTANTIATE(Tf32Round)
VXSYNTH_DESIGN_INSTANTIATE(FragmentLoad)
VXSYNTH_DESIGN_INSTANTIATE(SharedPad)
VXSYNTH_DESIGN_INSTANTIATE(ConsumerLayout)
VXSYNTH_DESIGN_INSTANTIATE(ReadGuard)
VXSYNTH_DESIGN_INSTANTIATE(ParamReads)
VXSYNTH_DESIGN_INSTANTIATE(SplitReduce)
VXSYNTH_DESIGN_INSTANTIATE(Multicast)
VXSYNTH_DESIGN_INSTANTIATE(IndexType)
VXSYNTH_DESIGN_INSTANTIATE(IndexMath)
#undef VXSYNTH_DESIGN_INSTANTIATE

FragmentShape fragment_shape(Fragment f) {
  switch (f) {
    case Fragment::kM16N16K16: return {16, 16, 16};
    case Fragment::kM32N8K16: return {32, 8, 16};
    case Fragment::kM8N32K16: return {8, 32, 16};
    case Fragment::kM16N16K8: return {16, 16, 8};
    case Fragment::kMmaM16N8K16: return {16, 8, 16};
    case Fragment::kMmaM16N8K8: return {16, 8, 8};
    // n is the instruction's granularity; the instruction's N is the tile's n (hopper_family.h).
    case Fragment::kWgmmaK16: return {64, 8, 16};
    case Fragment::kWgmmaK8: return {64, 8, 8};
    case Fragment::kNone: break;
  }
  return {};
}

bool is_mma_sync(Fragment f) { return f == Fragment::kMmaM16N8K16 || f == Fragment::kMmaM16N8K8; }
bool is_wgmma(Fragment f) { return f == Fragment::kWgmmaK16 || f == Fragment::kWgmmaK8; }

bool staged_a(Staging s) { return s == Staging::kA || s == Staging::kAB; }
bool staged_b(Staging s) { return s == Staging::kB || s == Staging::kAB; }

namespace {
constexpr std::array<const char*, kAxisCount> kAxisNames = {
    "shared_staging", "read_once",  "lane_mapping", "tile",    "register_tile", "prefetch",
    "tensor_core",    "activation", "split_k",      "warps",   "boundary",      "k_range",
    "pipeline_stages", "raster",    "epilogue_store", "cluster", "scale", "bias_load",
    "register_split", "wgmma_in_flight", "schedule", "tf32_round", "fragment_load", "shared_pad",
    "consumer_layout", "read_guard", "param_reads", "split_reduce", "multicast", "index_type", "entry_reads", "index_math"};
}  // namespace

std::string to_string(Axis a) { return kAxisNames[index_of(a)]; }
bool is_hopper_axis(Axis a) {
  return (a >= Axis::kPipelineStages && a <= Axis::kCluster) || (a >= Axis::kBiasLoad && a <= Axis::kTf32Round) ||
         a == Axis::kConsumerLayout || a == Axis::kMulticast;
}
bool is_transform_axis(Axis a) {
  return a == Axis::kScale || a == Axis::kReadGuard || a == Axis::kParamReads || a == Axis::kIndexType || a == Axis::kEntryReads ||
         a == Axis::kIndexMath;
}
bool is_simt_axis(Axis a) { return a == Axis::kFragmentLoad || a == Axis::kSharedPad; }
bool is_split_axis(Axis a) { return a == Axis::kSplitReduce; }

bool serial_reduce(SplitReduce v) { return v != SplitReduce::kSeparate; }

bool parse(const std::string& s, Axis& out) {
  for (std::size_t i = 0; i < kAxisCount; ++i) {
    if (s == kAxisNames[i]) {
      out = static_cast<Axis>(i);
      return true;
    }
  }
  return false;
}

const std::vector<Axis>& all_axes() {
  static const std::vector<Axis> axes = [] {
    std::vector<Axis> v;
    for (std::size_t i = 0; i < kAxisCount; ++i) v.push_back(static_cast<Axis>(i));
    return v;
  }();
  return axes;
}

const std::vector<std::string>& axis_names() {
  static const std::vector<std::string> names(kAxisNames.begin(), kAxisNames.end());
  return names;
}

}  // namespace vxsynth::design
