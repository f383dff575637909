// Byte-identical generation: the CUDA and Vortex sources of a fixed sample of designs are hashed
// and compared with tests/codegen/golden/hashes.txt, which names the generator version they are
// of. A refactoring of the generator must keep every hash; an intended change to the output
// raises kGeneratorVersion (codegen/generator.h) and updates the file (VXSYNTH_UPDATE_GOLDEN=1)
// in the same commit, and says why in its message.
//
// The sample does not depend on the neighbour moves or src/design/sample (they change with the
// search): it is the 15 suite seeds, one seed per GEMM family, precision and engine class, and
// layout transforms of every precision and direction (odd and vector-friendly sizes), each with
// random axis values drawn from a fixed mt19937_64 stream and kept when valid.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <type_traits>

#include "codegen/emit.h"
#include "codegen/generator.h"
#include "codegen/layout.h"
#include "design_samples.h"
#include "design/hopper_family.h"
#include "design/seed.h"
#include "design/transform_family.h"
#include "design/validity.h"

namespace vxsynth::codegen {
namespace {

namespace fs = std::filesystem;

const char* kGoldenFile = "codegen/golden/hashes.txt";

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << std::hex;
  s.width(16);
  s.fill('0');
  s << v;
  return s.str();
}

struct Base {
  std::string label;
  DesignPoint seed;
};

std::vector<Base> bases() {
  std::vector<Base> out;
  std::vector<fs::path> refs;
  for (const auto& e : fs::directory_iterator(fs::path(VXSYNTH_SOURCE_DIR) / "suite/vx-robotics/h200")) {
    if (fs::is_regular_file(e.path() / "reference.json")) refs.push_back(e.path() / "reference.json");
  }
  std::sort(refs.begin(), refs.end());
  for (const auto& r : refs) out.push_back({r.parent_path().filename().string(), design::seed_from_reference(r.string())});
  using ops::PrecisionPath;
  const std::vector<std::pair<std::string, ops::OpSpec (*)(PrecisionPath)>> families = {
      {"linear", [](PrecisionPath p) { return ops::make_linear("linear", p, 37, 53, 71, true, ops::Activation::gelu); }},
      {"matmul", [](PrecisionPath p) { return ops::make_matmul("matmul", p, {3}, {1}, 29, 45, 67, false, true); }},
      {"conv1d",
       [](PrecisionPath p) {
         return ops::make_conv("conv1d", p, 2, 12, 20, {19}, {5}, {1}, {2}, {1}, 1, true, ops::ConvLayout::channels_first,
                               ops::Activation::relu);
       }},
      {"conv2d", [](PrecisionPath p) {
         return ops::make_conv("conv2d", p, 1, 6, 10, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, true,
                               ops::ConvLayout::channels_last, ops::Activation::silu);
       }}};
  for (const auto& [family, make] : families) {
    for (PrecisionPath p : {PrecisionPath::fp32, PrecisionPath::tf32, PrecisionPath::bf16, PrecisionPath::fp16}) {
      for (auto engine : {design::EngineClass::kSimt, design::EngineClass::kTensorCore}) {
        if (engine == design::EngineClass::kTensorCore && p == PrecisionPath::fp32) continue;
        const int block = family == "matmul" ? 64 : family == "conv2d" ? 256 : 128;
        out.push_back({family + "-" + ops::to_string(p) + "-" + design::to_string(engine),
                       design::seed_design(make(p), engine, block)});
      }
    }
  }
  // Layout transforms of every precision and direction, odd and vector-friendly sizes.
  using ops::ConvLayout;
  const std::vector<ops::OpSpec> transforms = {
      ops::make_transform("t.nchw2nhwc.fp32", PrecisionPath::fp32, 3, 37, {5, 9}, ConvLayout::channels_first,
                          ConvLayout::channels_last),
      ops::make_transform("t.nhwc2nchw.bf16", PrecisionPath::bf16, 2, 64, {6, 8}, ConvLayout::channels_last,
                          ConvLayout::channels_first),
      ops::make_transform("t.ncl2nlc.fp16", PrecisionPath::fp16, 5, 24, {5}, ConvLayout::channels_first,
                          ConvLayout::channels_last, "weight"),
      ops::make_transform("t.nlc2ncl.fp32", PrecisionPath::fp32, 2, 64, {32}, ConvLayout::channels_last,
                          ConvLayout::channels_first)};
  for (const auto& op : transforms) out.push_back({op.name, design::seed_design(op, design::EngineClass::kSimt, 256)});
  return out;
}

// Random axis values around a seed (raw mt19937_64 output: the same on every standard library),
// from the GEMM family's values: the Hopper family's (tma, wgmma) are sampled by
// test_hopper_codegen.cpp, and leaving them out keeps this stream, and so the sample, as it was.
template <typename E>
E pick(std::mt19937_64& rng) {
  std::vector<E> values;
  for (const E v : design::all_values<E>()) {
    if constexpr (std::is_same_v<E, design::Prefetch>) {
      // cp_async joined after the draws (and needs its ring depth): added below, after them.
      if (v == design::Prefetch::kTma || v == design::Prefetch::kCpAsync) continue;
    }
    if constexpr (std::is_same_v<E, design::Fragment>) {
      if (design::is_wgmma(v)) continue;
    }
    values.push_back(v);
  }
  return values[rng() % values.size()];
}

DesignPoint mutate(const DesignPoint& seed, std::mt19937_64& rng) {
  DesignPoint d = seed;
  const int dims[] = {8, 16, 32, 64, 128};
  const int regs[] = {1, 2, 4, 8};
  const int splits[] = {1, 2, 3, 4, 8};
  auto coin = [&rng] { return rng() % 2 == 0; };
  if (coin()) d.staging = pick<design::Staging>(rng);
  if (coin()) d.read_once = pick<design::ReadOnce>(rng);
  if (coin()) d.lane_a = pick<design::LaneMap>(rng);
  if (coin()) d.lane_b = pick<design::LaneMap>(rng);
  if (coin()) d.tile = {dims[rng() % 5], dims[rng() % 5], dims[rng() % 4]};
  if (coin()) d.register_tile = {regs[rng() % 4], regs[rng() % 4]};
  if (coin()) d.prefetch = pick<design::Prefetch>(rng);
  if (coin()) d.fragment = pick<design::Fragment>(rng);
  if (coin()) d.activation = pick<design::ActivationPlacement>(rng);
  if (coin()) d.split_k = splits[rng() % 5];
  if (coin()) {
    const int warps = d.fixed.block_size / 32;
    std::vector<design::WarpArrangement> splits_of;
    for (int m = 1; m <= warps; ++m)
      if (warps % m == 0) splits_of.push_back({m, warps / m});
    d.warps = splits_of[rng() % splits_of.size()];
  }
  if (coin()) d.boundary = pick<design::Boundary>(rng);
  if (coin()) d.k_range = pick<design::KRange>(rng);
  return d;
}

// The layout-transform family's axes (design/transform_family.h).
DesignPoint mutate_transform(const DesignPoint& seed, std::mt19937_64& rng) {
  DesignPoint d = seed;
  const int dims[] = {8, 16, 32, 64};
  const int per_thread[] = {1, 2, 4, 8};
  auto coin = [&rng] { return rng() % 2 == 0; };
  if (coin()) d.staging = pick<design::Staging>(rng);
  if (coin()) d.read_once = pick<design::ReadOnce>(rng);
  if (coin()) d.lane_a = pick<design::LaneMap>(rng);
  if (coin()) d.lane_b = pick<design::LaneMap>(rng);
  if (coin()) d.tile = {dims[rng() % 4], dims[rng() % 4], 1};
  if (coin()) d.register_tile = {per_thread[rng() % 4], per_thread[rng() % 4]};
  if (coin()) d.boundary = coin() ? design::Boundary::kGuarded : design::Boundary::kUniformBranch;
  if (coin()) d.k_range = pick<design::KRange>(rng);
  // The two values the sample was drawn from (a later value joins after the draws, below).
  if (coin()) d.scale = rng() % 2 == 0 ? design::Scale::kNone : design::Scale::kAlpha;
  return d;
}

struct Sample {
  std::string key;  // base label / procedural name
  DesignPoint design;
};

std::vector<Sample> golden_sample() {
  std::vector<Sample> out;
  for (const auto& base : bases()) {
    // One stream per base (seeded by its label): a base that changes or joins leaves the others.
    std::mt19937_64 rng(0x601de4 ^ fnv1a(base.label));
    std::set<std::string> names;
    auto add = [&](const DesignPoint& d) {
      if (design::can_implement(d) || !names.insert(design::procedural_name(d)).second) return;
      out.push_back({base.label + "/" + design::procedural_name(d), d});
    };
    add(base.seed);
    // Every fragment shape the seed's precision allows (random draws alone can miss one).
    for (design::Fragment f : design::all_values<design::Fragment>()) {
      if (base.seed.fragment == design::Fragment::kNone || f == design::Fragment::kNone) continue;
      DesignPoint d = base.seed;
      d.fragment = f;
      const design::FragmentShape shape = design::fragment_shape(f);  // the tile follows the fragment
      d.tile = {d.warps.m * d.register_tile.m * shape.m, d.warps.n * d.register_tile.n * shape.n,
                std::max(shape.k, d.tile.k / shape.k * shape.k)};
      add(d);
    }
    for (int attempt = 0; attempt < 600 && names.size() < 14; ++attempt) {
      add(design::is_transform(base.seed) ? mutate_transform(base.seed, rng) : mutate(base.seed, rng));
    }
    // scale alpha_in_range (added after the value: after the draws), on the base and on a staged,
    // a direct and an edge-heavy tile.
    if (design::is_transform(base.seed)) {
      DesignPoint r = base.seed;
      r.scale = design::Scale::kAlphaInRange;
      add(r);
      for (int attempt = 0; attempt < 40; ++attempt) {
        DesignPoint m = mutate_transform(base.seed, rng);
        m.scale = design::Scale::kAlphaInRange;
        add(m);
      }
    }
    // fragment_load vector4 and shared_pad words4 (added after the axes: after the draws, so the
    // designs above stay):
    // the seed, with an unstaged A, and with two shared buffers and split-K.
    if (base.seed.fragment == design::Fragment::kNone && !design::is_transform(base.seed)) {
      DesignPoint v = base.seed;
      v.fragment_load = design::FragmentLoad::kVector4;
      add(v);
      DesignPoint unstaged = v;
      unstaged.staging = design::Staging::kB;
      unstaged.prefetch = design::Prefetch::kNone;
      add(unstaged);
      DesignPoint buffered = v;
      buffered.prefetch = design::Prefetch::kDoubleBuffer;
      buffered.split_k = 2;
      add(buffered);
      // shared_pad words4, with strided and with vector4 fragments.
      DesignPoint padded = base.seed;
      padded.shared_pad = design::SharedPad::kWords4;
      add(padded);
      buffered.shared_pad = design::SharedPad::kWords4;
      add(buffered);
    }
    // prefetch cp_async (added after the value: after the draws, so the designs above stay): the
    // seed with a 3-stage ring; padded with split-K at 4 stages (a slice's k-tiles fewer than
    // the stages); the uniform branch at 2 stages with reversed lanes; SIMT with shared_pad and
    // vector4; tensor designs also on their precision's mma.sync shape. Invalid ones (16-bit SIMT,
    // 16-bit implicit im2col) drop out.
    if (!design::is_transform(base.seed) && !design::is_hopper(base.seed) && base.seed.staging != design::Staging::kNone) {
      DesignPoint ring = base.seed;
      ring.prefetch = design::Prefetch::kCpAsync;
      ring.stages = 3;
      add(ring);
      DesignPoint padded = ring;
      padded.boundary = design::Boundary::kPadded;
      padded.split_k = 2;
      padded.stages = 4;
      add(padded);
      DesignPoint branch = ring;
      branch.boundary = design::Boundary::kUniformBranch;
      branch.stages = 2;
      branch.lane_a = design::LaneMap::kReversed;
      add(branch);
      if (base.seed.fragment == design::Fragment::kNone) {
        DesignPoint simt = ring;
        simt.shared_pad = design::SharedPad::kWords4;
        simt.stages = 5;
        if (simt.register_tile.m % 4 == 0 && simt.register_tile.n % 4 == 0) simt.fragment_load = design::FragmentLoad::kVector4;
        add(simt);
      } else {
        DesignPoint mma = ring;
        mma.fragment = base.seed.fixed.precision == ops::PrecisionPath::tf32 ? design::Fragment::kMmaM16N8K8
                                                                            : design::Fragment::kMmaM16N8K16;
        const design::FragmentShape shape = design::fragment_shape(mma.fragment);
        const design::FragmentShape from = design::fragment_shape(base.seed.fragment);
        mma.register_tile = {std::max(1, mma.register_tile.m * from.m / shape.m), std::max(1, mma.register_tile.n * from.n / shape.n)};
        mma.tile = {mma.warps.m * mma.register_tile.m * shape.m, mma.warps.n * mma.register_tile.n * shape.n, mma.tile.k};
        add(mma);
        DesignPoint mma_split = mma;
        mma_split.split_k = 3;
        mma_split.stages = 4;
        add(mma_split);
      }
    }
    // consumer_layout columns on the Hopper seeds (added after the axis: after the draws, so the
    // designs above stay): the consumers side by side over one 64-row slice, with the seed's
    // epilogue, with direct stores, and split-K + persistent + setmaxnreg where they apply.
    if (design::is_hopper(base.seed) && design::hopper_consumers(base.seed) >= 2) {
      DesignPoint c = base.seed;
      c.consumer_layout = design::ConsumerLayout::kColumns;
      c.tile.m = 64;
      add(c);
      DesignPoint direct = c;
      direct.epilogue_store = design::EpilogueStore::kDirect;
      add(direct);
      DesignPoint later = c;
      later.tile.n = 128;
      later.schedule = design::Schedule::kPersistent;
      later.register_split = design::RegisterSplit::kSetMaxNReg;
      later.bias_load = design::BiasLoad::kGlobal;
      later.cluster = {};
      later.split_k = 1;
      add(later);
      DesignPoint split = direct;
      split.split_k = 2;
      split.wgmma_in_flight = 2;
      add(split);
    }
  }
  // prefetch cp_async on shapes the bases lack (added after them): the fp32 SIMT linear at K = 29
  // (split-K 3: an empty slice), and 16-bit pairs unpadded (even K, K-contiguous operands) with
  // mma.sync and WMMA.
  {
    auto add = [&out](const std::string& label, const DesignPoint& d) {
      ASSERT_FALSE(design::can_implement(d)) << design::can_implement(d)->detail;
      out.push_back({label + "/" + design::procedural_name(d), d});
    };
    auto ring = [](DesignPoint d, int stages) {
      d.prefetch = design::Prefetch::kCpAsync;
      d.stages = stages;
      return d;
    };
    using ops::PrecisionPath;
    const DesignPoint simt = design::seed_design(
        ops::make_linear("linear", PrecisionPath::fp32, 37, 53, 29, true, ops::Activation::gelu), design::EngineClass::kSimt, 128);
    DesignPoint split = ring(simt, 5);
    split.split_k = 3;
    add("cp_async-linear-fp32-simt-k29", split);
    DesignPoint padded = ring(simt, 4);
    padded.boundary = design::Boundary::kPadded;
    padded.shared_pad = design::SharedPad::kWords4;
    add("cp_async-linear-fp32-simt-k29", padded);
    const DesignPoint bf16 = design::seed_design(
        ops::make_linear("linear", PrecisionPath::bf16, 37, 53, 70, true, ops::Activation::gelu), design::EngineClass::kTensorCore, 128);
    add("cp_async-linear-bf16-tensor-k70", ring(bf16, 3));
    DesignPoint mma = design::apply(bf16, design::Move{design::Axis::kTensorCore, "to:mma_m16n8k16", "", std::nullopt});
    mma.boundary = design::Boundary::kUniformBranch;
    add("cp_async-linear-bf16-tensor-k70", ring(mma, 4));
  }
  // split_reduce serial and serial_vector4 (added after the rest): the two samples of odd-shaped
  // designs the GPU twins check runs (design_samples.h).
  for (const auto& d : split_reduce_sample()) out.push_back({"split_reduce-serial/" + design::procedural_name(d), d});
  for (const auto& d : split_reduce_vector4_sample()) out.push_back({"split_reduce-serial_vector4/" + design::procedural_name(d), d});
  // multicast (added after the rest): the odd-shaped sample the GPU twins check runs.
  for (const auto& d : multicast_sample()) out.push_back({"multicast/" + design::procedural_name(d), d});
  // index_type and entry_reads (added after the rest): an odd fp32 NCHW -> NHWC transform, staged
  // with the column branch (diffusion_policy-1's lock), with param_reads at_store, and direct.
  {
    const DesignPoint seed = design::seed_design(
        ops::make_transform("transform", ops::PrecisionPath::fp32, 3, 37, {5, 9}, ops::ConvLayout::channels_first,
                            ops::ConvLayout::channels_last),
        design::EngineClass::kSimt, 256);
    const std::vector<std::vector<std::string>> sets = {
        {"index_type=int32"},
        {"index_type=int32", "entry_reads=8", "read_guard=column_branch", "boundary=uniform_branch", "scale=alpha_in_range"},
        {"entry_reads=4", "param_reads=at_store"},
        {"index_type=int32", "entry_reads=16", "shared_staging=none", "lane_b=reversed"}};
    for (const auto& set : sets) {
      const DesignPoint d = design::apply_settings(seed, set, "golden");
      out.push_back({"transform-index/" + design::procedural_name(d), d});
    }
  }
  return out;
}

// One line per design: key, then the hash of each generated file in a fixed order.
std::map<std::string, std::string> hash_lines(const std::vector<Sample>& sample) {
  std::map<std::string, std::string> out;
  const VortexCheck check{1.5e-3, 2.5e-2, 7};  // fixed, so tolerance changes elsewhere do not show here
  for (const auto& s : sample) {
    std::string line = "cuda=" + hex(fnv1a(emit_cuda(s.design)));
    for (const auto& f : emit_vortex(s.design, check)) line += " " + f.name + "=" + hex(fnv1a(f.text));
    out[s.key] = line;
  }
  return out;
}

TEST(Golden, SampleCoversEveryEnumAxisValue) {
  const auto sample = golden_sample();
  EXPECT_GE(sample.size(), 300u);
  std::vector<DesignPoint> designs;
  for (const auto& s : sample) designs.push_back(s.design);
  auto seen = axis_values(designs);
  EXPECT_EQ(seen["shared_staging"].size(), design::all_values<design::Staging>().size());
  EXPECT_EQ(seen["read_once"].size(), design::all_values<design::ReadOnce>().size());
  EXPECT_EQ(seen["lane_a"].size(), 2u);
  EXPECT_EQ(seen["lane_b"].size(), 2u);
  EXPECT_EQ(seen["prefetch"].size(), design::all_values<design::Prefetch>().size());
  EXPECT_EQ(seen["tensor_core"].size(), design::all_values<design::Fragment>().size());
  EXPECT_EQ(seen["activation"].size(), design::all_values<design::ActivationPlacement>().size());
  EXPECT_EQ(seen["boundary"].size(), design::all_values<design::Boundary>().size());
  EXPECT_EQ(seen["k_range"].size(), design::all_values<design::KRange>().size());
  EXPECT_EQ(seen["split_k"].size(), 2u);
  EXPECT_EQ(seen["fragment_load"].size(), design::all_values<design::FragmentLoad>().size());
  EXPECT_EQ(seen["shared_pad"].size(), design::all_values<design::SharedPad>().size());
  EXPECT_EQ(seen["consumer_layout"].size(), design::all_values<design::ConsumerLayout>().size());
  EXPECT_EQ(seen["split_reduce"].size(), design::all_values<design::SplitReduce>().size());
}

TEST(Golden, SampleHoldsLayoutTransformsOfEveryValueOfTheirAxes) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& s : golden_sample()) {
    const auto& d = s.design;
    if (!design::is_transform(d)) continue;
    const auto g = design::transform_geometry(d);
    seen["staged"].insert(g.staged ? "tiled" : "direct");
    seen["lanes"].insert(design::to_string(d.lane_a) + "/" + design::to_string(d.lane_b));
    seen["read_once"].insert(design::to_string(d.read_once));
    seen["boundary"].insert(design::to_string(d.boundary));
    seen["k_range"].insert(design::to_string(d.k_range));
    seen["scale"].insert(design::to_string(d.scale));
    seen["precision"].insert(ops::to_string(d.fixed.precision));
    seen["vector"].insert(std::to_string(d.register_tile.n));
  }
  EXPECT_EQ(seen["staged"].size(), 2u);
  EXPECT_EQ(seen["lanes"].size(), 4u);
  EXPECT_EQ(seen["read_once"].size(), 3u);
  EXPECT_EQ(seen["boundary"].size(), 2u);
  EXPECT_EQ(seen["k_range"].size(), 2u);
  EXPECT_EQ(seen["scale"].size(), design::all_values<design::Scale>().size());
  EXPECT_EQ(seen["precision"].size(), 3u);
  EXPECT_GE(seen["vector"].size(), 2u);
}

// The golden file: "generator N", then one line per design. Returns the version (-1: none).
int read_golden(std::map<std::string, std::string>& golden) {
  std::ifstream in(kGoldenFile);
  int version = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("generator ", 0) == 0) {
      version = std::stoi(line.substr(10));
      continue;
    }
    const auto space = line.find(' ');
    golden[line.substr(0, space)] = line.substr(space + 1);
  }
  return version;
}

// The generator's version names its output: new output under the version of the committed
// hashes is refused, even by the update (raise kGeneratorVersion first), so two builds that say
// the same version write the same sources.
TEST(Golden, GeneratedSourcesAreByteIdenticalToTheCommittedHashes) {
  const auto lines = hash_lines(golden_sample());
  std::map<std::string, std::string> golden;
  const int version = read_golden(golden);
  int differing = 0;
  for (const auto& [key, line] : lines) {
    const auto it = golden.find(key);
    if (it != golden.end() && it->second != line) ++differing;
  }
  if (const char* update = std::getenv("VXSYNTH_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    ASSERT_FALSE(differing > 0 && version == codegen::kGeneratorVersion)
        << differing << " designs' sources changed under generator " << version
        << ": raise kGeneratorVersion (src/codegen/generator.h) before updating the hashes";
    fs::create_directories(fs::path(kGoldenFile).parent_path());
    std::ofstream out(kGoldenFile);
    out << "# FNV-1a 64 of each generated file per design (tests/codegen/test_golden.cpp).\n";
    out << "generator " << codegen::kGeneratorVersion << "\n";
    for (const auto& [key, line] : lines) out << key << " " << line << "\n";
    GTEST_SKIP() << "wrote " << kGoldenFile;
  }
  ASSERT_FALSE(golden.empty()) << "cannot read tests/" << kGoldenFile;
  ASSERT_EQ(version, codegen::kGeneratorVersion) << "the hashes are generator " << version << "'s, this build is generator "
                                                 << codegen::kGeneratorVersion << ": update them (VXSYNTH_UPDATE_GOLDEN=1)";
  EXPECT_EQ(golden.size(), lines.size()) << "the sample changed size";
  int shown = 0;
  for (const auto& [key, line] : lines) {
    const auto it = golden.find(key);
    if (it == golden.end()) {
      ADD_FAILURE() << "not in the golden file: " << key;
    } else if (it->second != line && ++shown <= 10) {
      ADD_FAILURE() << key << "\n  golden:    " << it->second << "\n  generated: " << line;
    }
  }
  EXPECT_EQ(differing, 0) << "designs whose generated sources differ: a change to the output raises kGeneratorVersion "
                             "(src/codegen/generator.h) and updates the hashes (VXSYNTH_UPDATE_GOLDEN=1)";
}

// The house style of generated C++, held without a formatter: every source is what lay_out
// makes of it (so no machine's formatter can change it: indentation by brace level, every line
// that can break broken at 110 columns) and has no tabs.
TEST(Golden, EveryGeneratedSourceIsInTheHouseLayout) {
  int checked = 0;
  for (const auto& s : golden_sample()) {
    std::vector<std::pair<std::string, std::string>> files = {{"candidate.cu", emit_cuda(s.design)}};
    for (const auto& f : emit_vortex(s.design, VortexCheck{1.5e-3, 2.5e-2, 7})) {
      if (f.name == "common.h" || f.name == "kernel.cpp" || f.name == "bench.h") files.emplace_back(f.name, f.text);
    }
    for (const auto& [name, text] : files) {
      ++checked;
      ASSERT_EQ(codegen::layout_problem(text), "") << s.key << " " << name;
      ASSERT_EQ(text.find('\t'), std::string::npos) << s.key << " " << name << ": a tab";
    }
  }
  EXPECT_GE(checked, 4 * 300);
}

// A profile job of generated candidates replays only the kernel main_kernel_name names (the GPU
// evaluator's kernel filter): every candidate must have exactly one kernel of that name, and its
// other kernels must be the known auxiliary passes, or the filter would profile the wrong one.
TEST(Golden, EveryCandidateHasOneMainKernelAndOnlyKnownAuxiliaryKernels) {
  const std::set<std::string> auxiliary = {"pad_a", "pad_b", "reduce_split_k", "apply_activation", "im2col", "round_copy"};
  const std::regex kernel(R"(__global__\s+(?:__launch_bounds__\([^)]*\)\s*)?void\s+(?:__launch_bounds__\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\()");
  std::map<std::string, int> seen;
  for (const auto& s : golden_sample()) {
    const std::string cuda = emit_cuda(s.design);
    const std::string main = main_kernel_name(s.design);
    int mains = 0;
    for (auto it = std::sregex_iterator(cuda.begin(), cuda.end(), kernel); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      ++seen[name];
      if (name == main) {
        ++mains;
      } else {
        EXPECT_TRUE(auxiliary.count(name)) << s.key << ": kernel " << name << " is neither the main kernel " << main
                                          << " nor a known auxiliary pass";
      }
    }
    EXPECT_EQ(mains, 1) << s.key << ": kernels named " << main;
  }
  // The sample holds both main kernels and auxiliary passes (else this test shows nothing).
  EXPECT_GT(seen["gemm"], 100);
  EXPECT_GT(seen["transform"], 10);
  EXPECT_GT(seen["reduce_split_k"], 0);
  EXPECT_GT(seen["pad_a"], 0);
}

}  // namespace
}  // namespace vxsynth::codegen
