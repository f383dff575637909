#include "design/seed.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "design/hopper_family.h"
#include "design/transform_family.h"
#include "design/validity.h"
#include "design/util.h"
#include "signature/kernel_name.h"

namespace vxsynth::design {

SeedDefaults seed_defaults(EngineClass engine, ops::PrecisionPath precision, int block_size) {
  SeedDefaults s;
  const int warps = block_size / kCudaWarpSize;
  if (engine == EngineClass::kSimt) {
    // CUTLASS-style SIMT sgemm: 4x4 outputs per thread, k-step 8, both operands staged and the
    // next k-tile prefetched into registers (two-stage pipeline).
    s.fragment = Fragment::kNone;
    s.register_tile = {4, 4};
    s.tile_k = 8;
    s.prefetch = Prefetch::kRegisters;
  } else if (precision == ops::PrecisionPath::tf32) {
    s.fragment = Fragment::kM16N16K8;
    s.register_tile = warps <= 4 ? RegisterTile{2, 2} : RegisterTile{1, 1};
    s.tile_k = 32;  // the Vortex tensor unit's k-step (tf32 runs as fp16 there)
    s.prefetch = Prefetch::kDoubleBuffer;
  } else {
    s.fragment = Fragment::kM16N16K16;
    s.register_tile = warps <= 4 ? RegisterTile{2, 2} : RegisterTile{1, 1};
    s.tile_k = 32;
    s.prefetch = Prefetch::kDoubleBuffer;
  }
  s.staging = Staging::kAB;
  // 16 threads per Vortex warp, more when the block would need over 32 warps; tensor-core
  // designs map each CUDA warp onto one 32-thread Vortex warp.
  s.vortex_threads = (block_size > 512 || engine == EngineClass::kTensorCore) ? 32 : 16;
  return s;
}

namespace {

using util::next_pow2;

// The most square m x n split of `count` with m <= n.
WarpArrangement square_split(int count) {
  WarpArrangement best{1, count};
  for (int m = 1; m * m <= count; ++m) {
    if (count % m == 0) best = {m, count / m};
  }
  return best;
}

}  // namespace

DesignPoint seed_design(const ops::OpSpec& op, EngineClass engine, int block_size, const std::string& reference,
                        const std::string& source) {
  if (op.kind == ops::OpKind::layout_transform) {
    if (engine != EngineClass::kSimt) throw InputError(source, "engine", "a layout transform moves data: use --engine simt");
    return seed_transform(op, block_size, reference, source);
  }
  return seed_design(op, engine, block_size, reference, source, {});
}

namespace {

std::optional<Tile> parse_tile(const std::string& v) {
  int m = 0, n = 0, k = 0;
  char x1 = 0, x2 = 0;
  std::istringstream in(v);
  if (!(in >> m >> x1 >> n >> x2 >> k) || x1 != 'x' || x2 != 'x' || !in.eof()) return std::nullopt;
  return Tile{m, n, k};
}

// Local memory with headroom (x4) so that neighbours with larger tiles still fit a core.
void size_vortex_local(DesignPoint& d) {
  d.vortex.local_mem_bytes = std::clamp(next_pow2(4 * vortex_local_bytes(d) * vortex_blocks_per_core(d)), 16384, 65536);
}

// Realises `tile` inside the block: the warp arrangement and register tile (SIMT outputs per
// thread, or fragments per warp) that give it, the squarest valid one first. The reason when
// none is valid.
std::string fit_tile(DesignPoint& d, const Tile& tile) {
  const int warps = d.fixed.block_size / kCudaWarpSize;
  const FragmentShape fs = d.fragment == Fragment::kNone ? FragmentShape{1, 1, 1} : fragment_shape(d.fragment);
  std::optional<DesignPoint> best;
  int best_score = 0;
  std::string last_rule;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    for (int rm = 1; rm <= 64; ++rm)
      for (int rn = 1; rn <= 64; ++rn) {
        if (d.fragment != Fragment::kNone && (wm * rm * fs.m != tile.m || wn * rn * fs.n != tile.n)) continue;
        if (d.fragment == Fragment::kNone && (tile.m % rm != 0 || tile.n % rn != 0 ||
                                              (tile.m / rm) * (tile.n / rn) != d.fixed.block_size))
          continue;
        DesignPoint c = d;
        c.tile = tile;
        c.warps = {wm, wn};
        c.register_tile = {rm, rn};
        size_vortex_local(c);
        if (auto v = can_implement(c)) {
          last_rule = v->rule + ": " + v->detail;
          continue;
        }
        // Squarest register tile, then squarest warp arrangement.
        const int score = std::abs(rm - rn) * 1000 + std::abs(wm - wn);
        if (!best || score < best_score) {
          best = c;
          best_score = score;
        }
      }
  }
  if (!best) {
    return last_rule.empty() ? "no warp arrangement and register tile of a " + std::to_string(d.fixed.block_size) +
                                   "-thread block gives this tile"
                             : "no valid design gives this tile (last rule broken: " + last_rule + ")";
  }
  d = *best;
  return "";
}

}  // namespace

DesignPoint seed_design(const ops::OpSpec& op, EngineClass engine, int block_size, const std::string& reference,
                        const std::string& source, std::vector<KernelNameFact> confirmed) {
  // A layout transform has no tile to take from a name: the five-argument seed handles it.
  if (op.kind == ops::OpKind::layout_transform) return seed_design(op, engine, block_size, reference, source);
  if (block_size <= 0 || block_size % kCudaWarpSize != 0 || block_size > kCudaMaxBlock) {
    throw InputError(source, "block", "block size " + std::to_string(block_size) + " must be a multiple of 32 in 32..1024");
  }
  if (engine == EngineClass::kUnknown) throw InputError(source, "engine", "the engine class is unknown: simt or tensor_core");
  if (engine == EngineClass::kTensorCore && op.precision == ops::PrecisionPath::fp32) {
    throw InputError(source, "engine", "fp32 has no tensor-core path: use --engine simt or --dtype tf32");
  }
  DesignPoint d;
  d.reference = reference;
  d.op = op;
  d.fixed = {engine, op.precision, block_size, op.gemm_view()};
  const SeedDefaults s = seed_defaults(engine, op.precision, block_size);
  d.fragment = s.fragment;
  d.register_tile = s.register_tile;
  d.staging = s.staging;
  d.prefetch = s.prefetch;
  d.warps = square_split(block_size / kCudaWarpSize);
  if (engine == EngineClass::kSimt) {
    // Lanes 4 x 8 inside a warp: eight consecutive lanes cover consecutive output columns.
    const int threads_m = d.warps.m * 4, threads_n = d.warps.n * 8;
    d.tile = {threads_m * s.register_tile.m, threads_n * s.register_tile.n, s.tile_k};
  } else {
    const FragmentShape fs = fragment_shape(s.fragment);
    d.tile = {d.warps.m * s.register_tile.m * fs.m, d.warps.n * s.register_tile.n * fs.n, s.tile_k};
  }
  d.vortex.cores = 1;
  d.vortex.threads = s.vortex_threads;
  d.vortex.warps = std::max(1, next_pow2((block_size + s.vortex_threads - 1) / s.vortex_threads));
  size_vortex_local(d);
  if (auto v = can_implement(d)) {
    throw InputError(source, "", "no valid seed for this op and block size (rule " + v->rule + "): " + v->detail);
  }
  // What the kernel name documents and the launch confirmed: the tile is the property the
  // design space has an axis for; others are recorded, left to the search.
  for (KernelNameFact& p : confirmed) {
    if (p.key == "tile") {
      const auto tile = parse_tile(p.value);
      if (!tile) {
        p.note += "; not used: not an MxNxK tile";
      } else if (const std::string why = fit_tile(d, *tile); !why.empty()) {
        p.note += "; not used: " + why;
      } else {
        p.used = true;
      }
    } else {
      p.note += "; not used: the design space has no axis for it";
    }
    d.from_kernel_name.push_back(std::move(p));
  }
  return d;
}

// ---- reference.json ----

namespace {

const Json& member(const Json& j, const std::string& key, const std::string& file, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw InputError(file, where + key, "missing");
  return j.at(key);
}

std::int64_t int_member(const Json& j, const std::string& key, const std::string& file, const std::string& where) {
  const Json& v = member(j, key, file, where);
  if (!v.is_number_integer()) throw InputError(file, where + key, "must be an integer");
  return v.get<std::int64_t>();
}

std::vector<std::int64_t> int_list(const Json& j, const std::string& key, const std::string& file,
                                   const std::string& where) {
  const Json& v = member(j, key, file, where);
  if (!v.is_array()) throw InputError(file, where + key, "must be a list of integers");
  std::vector<std::int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer()) throw InputError(file, where + key, "must be a list of integers");
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

ops::PrecisionPath precision_of(const std::string& math, const std::string& file) {
  if (math == "fp32" || math == "float32") return ops::PrecisionPath::fp32;
  if (math == "tf32") return ops::PrecisionPath::tf32;
  if (math == "bf16" || math == "bfloat16") return ops::PrecisionPath::bf16;
  if (math == "fp16" || math == "float16") return ops::PrecisionPath::fp16;
  throw InputError(file, "op.math", "unknown math \"" + math + "\" (fp32, tf32, bfloat16, float16)");
}

}  // namespace

namespace {
ops::OpSpec served_op_spec(const Json& ref, const std::string& file);
}  // namespace

ops::OpSpec op_spec_from_reference(const Json& ref, const std::string& file, bool served_op) {
  ops::OpSpec served = served_op_spec(ref, file);
  const Json& op = member(ref, "op", file, "");
  const bool transform = op.contains("kernel_role") && op.at("kernel_role") == "layout_transform";
  if (!transform || served_op) return served;
  return derive_transform(ref, served, file);
}

namespace {

ops::OpSpec served_op_spec(const Json& ref, const std::string& file) {
  require_schema(ref, "reference", 1, file);
  const Json& op = member(ref, "op", file, "");
  const std::string kind = member(op, "kind", file, "op.").get<std::string>();
  const ops::PrecisionPath precision = precision_of(member(op, "math", file, "op.").get<std::string>(), file);
  ops::Activation act = ops::Activation::none;
  if (op.contains("fused_activation") && op.at("fused_activation").is_string()) {
    if (!ops::parse_activation(op.at("fused_activation").get<std::string>(), act)) {
      throw InputError(file, "op.fused_activation", "unknown activation \"" + op.at("fused_activation").get<std::string>() + "\"");
    }
  }
  std::string name = ref.contains("workload") ? ref.at("workload").value("name", std::string("reference")) : "reference";
  if (op.contains("module") && op.at("module").is_string()) {
    name.append(".");
    name.append(op.at("module").get<std::string>());
  }
  const Json& gemm = member(op, "gemm", file, "op.");
  const Json& shapes = member(op, "input_shapes", file, "op.");
  if (!shapes.is_array()) throw InputError(file, "op.input_shapes", "must be a list of shapes");
  std::vector<std::string> layouts;
  if (op.contains("layouts") && op.at("layouts").is_array()) {
    for (const auto& l : op.at("layouts")) layouts.push_back(l.is_string() ? l.get<std::string>() : "");
  }
  auto layout_of = [&layouts](std::size_t i) { return i < layouts.size() ? layouts[i] : std::string(); };

  if (kind == "linear") {
    const bool bias = op.contains("bias") && op.at("bias").is_boolean() && op.at("bias").get<bool>();
    return ops::make_linear(name, precision, int_member(gemm, "M", file, "op.gemm."), int_member(gemm, "N", file, "op.gemm."),
                            int_member(gemm, "K", file, "op.gemm."), bias, act);
  }
  if (kind == "batched_matmul" || kind == "matmul") {
    if (shapes.size() != 2) throw InputError(file, "op.input_shapes", "a matmul has two inputs");
    const auto a_shape = shapes.at(0).get<std::vector<std::int64_t>>();
    const auto b_shape = shapes.at(1).get<std::vector<std::int64_t>>();
    if (a_shape.size() < 2 || b_shape.size() < 2) throw InputError(file, "op.input_shapes", "matmul inputs need rank >= 2");
    ops::Shape batch_a(a_shape.begin(), a_shape.end() - 2), batch_b(b_shape.begin(), b_shape.end() - 2);
    // A batch dimension of stride 0 is a broadcast (an expanded view): store it once.
    if (op.contains("strides") && op.at("strides").is_array() && op.at("strides").size() == 2) {
      const auto& strides = op.at("strides");
      for (std::size_t i = 0; i < batch_a.size() && i < strides.at(0).size(); ++i)
        if (strides.at(0).at(i) == 0) batch_a[i] = 1;
      for (std::size_t i = 0; i < batch_b.size() && i < strides.at(1).size(); ++i)
        if (strides.at(1).at(i) == 0) batch_b[i] = 1;
    }
    return ops::make_matmul(name, precision, batch_a, batch_b, int_member(gemm, "M", file, "op.gemm."),
                            int_member(gemm, "N", file, "op.gemm."), int_member(gemm, "K", file, "op.gemm."),
                            layout_of(0) == "transposed", layout_of(1) == "transposed");
  }
  if (kind == "conv1d" || kind == "conv2d") {
    if (shapes.size() < 2) throw InputError(file, "op.input_shapes", "a convolution has an input and a weight");
    const auto x = shapes.at(0).get<std::vector<std::int64_t>>();
    const auto w = shapes.at(1).get<std::vector<std::int64_t>>();
    const std::size_t spatial = kind == "conv1d" ? 1 : 2;
    if (x.size() != spatial + 2 || w.size() != spatial + 2) {
      throw InputError(file, "op.input_shapes", kind + " needs rank-" + std::to_string(spatial + 2) + " input and weight");
    }
    const std::string layout = op.value("layout", std::string("NCHW"));
    const bool channels_last = layout == "NHWC" || layout == "NLC" || layout == "NWC";
    // input_shapes are logical (N, C, spatial...) as PyTorch reports them.
    std::vector<std::int64_t> in_size(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
    const std::int64_t groups = op.contains("groups") && op.at("groups").is_number_integer() ? op.at("groups").get<std::int64_t>() : 1;
    const bool bias = shapes.size() >= 3;
    return ops::make_conv(name, precision, x[0], x[1], w[0], in_size, kernel, int_list(op, "stride", file, "op."),
                          int_list(op, "padding", file, "op."), int_list(op, "dilation", file, "op."), groups, bias,
                          channels_last ? ops::ConvLayout::channels_last : ops::ConvLayout::channels_first, act);
  }
  throw InputError(file, "op.kind", "unsupported op kind \"" + kind + "\" (linear, batched_matmul, conv1d, conv2d)");
}

ops::PrecisionPath storage_path(const std::string& dtype, const std::string& file, const std::string& field) {
  if (dtype == "float32") return ops::PrecisionPath::fp32;
  if (dtype == "bfloat16") return ops::PrecisionPath::bf16;
  if (dtype == "float16") return ops::PrecisionPath::fp16;
  throw InputError(file, field, "unknown tensor dtype \"" + dtype + "\" (float32, bfloat16, float16)");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

ops::OpSpec derive_transform(const Json& ref, const ops::OpSpec& served, const std::string& file) {
  if (served.kind != ops::OpKind::conv1d && served.kind != ops::OpKind::conv2d) {
    throw InputError(file, "op.kind", "a layout_transform kernel is derived from the conv it serves, not from a " +
                                          ops::to_string(served.kind));
  }
  const Json& kernel = member(ref, "kernel", file, "");
  const std::string name = lower(member(kernel, "name", file, "kernel.").get<std::string>());
  ops::ConvLayout from{}, to{};
  if (name.find("nchwtonhwc") != std::string::npos) {
    from = ops::ConvLayout::channels_first;
    to = ops::ConvLayout::channels_last;
  } else if (name.find("nhwctonchw") != std::string::npos) {
    from = ops::ConvLayout::channels_last;
    to = ops::ConvLayout::channels_first;
  } else {
    throw InputError(file, "kernel.name", "a layout_transform kernel whose name gives no direction (expected "
                                          "nchwToNhwc or nhwcToNchw in \"" + name.substr(0, 80) + "\")");
  }
  const Json& op = member(ref, "op", file, "");
  const Json& dtypes = member(op, "dtypes", file, "op.");
  if (!dtypes.is_array() || dtypes.empty() || !dtypes.at(0).is_string()) {
    throw InputError(file, "op.dtypes", "must list the tensors' dtypes");
  }
  const ops::PrecisionPath path = storage_path(dtypes.at(0).get<std::string>(), file, "op.dtypes");
  const auto grid = int_list(member(ref, "launch", file, ""), "grid", file, "launch.");
  if (grid.size() != 3) throw InputError(file, "launch.grid", "expected [x, y, z]");

  // The conv's tensors in their logical [batch, channels, spatial...] view.
  const auto& c = served.conv;
  struct Candidate {
    std::string tensor;
    std::int64_t batch, channels;
    std::vector<std::int64_t> spatial;
  };
  // cuDNN moves the input and the weight to NHWC before a channels-last engine and its output
  // back: an nhwcToNchw kernel tries the output first (it may have the input's shape).
  std::vector<Candidate> candidates = {
      {"activation", c.batch, c.in_channels, c.input_size},
      {"weight", c.out_channels, c.in_channels / c.groups, c.kernel},
      {"activation", c.batch, c.out_channels, c.output_size()},  // the conv's output
  };
  std::vector<const char*> roles = {"input", "weight", "output"};
  if (from == ops::ConvLayout::channels_last) {
    std::rotate(candidates.rbegin(), candidates.rbegin() + 1, candidates.rend());
    std::rotate(roles.rbegin(), roles.rbegin() + 1, roles.rend());
  }
  std::string tried;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& k = candidates[i];
    std::int64_t positions = 1;
    for (auto v : k.spatial) positions *= v;
    const std::int64_t rows = from == ops::ConvLayout::channels_first ? k.channels : positions;
    const std::int64_t cols = from == ops::ConvLayout::channels_first ? positions : k.channels;
    const std::vector<std::int64_t> expect = {(cols + 31) / 32, (rows + 31) / 32, k.batch};
    tried += std::string(tried.empty() ? "" : ", ") + roles[i] + " [" + std::to_string(expect[0]) + ", " +
             std::to_string(expect[1]) + ", " + std::to_string(expect[2]) + "]";
    if (expect != grid) continue;
    std::string tname = served.name + "." + roles[i] + (from == ops::ConvLayout::channels_first ? "_nchw_to_nhwc" : "_nhwc_to_nchw");
    return ops::make_transform(tname, path, k.batch, k.channels, k.spatial, from, to, k.tensor);
  }
  throw InputError(file, "launch.grid",
                   "[" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
                       "] matches no tensor of the conv under cuDNN's 32 x 32-tiled transpose (expected " + tried + ")");
}

std::vector<KernelNameFact> confirmed_name_properties(const Json& ref, const std::string& file) {
  // The name is read and checked again against the recorded launch and the op's GEMM view, so
  // the seed follows the signature part's current reading rules, not those of the capture.
  const Json& sig = member(ref, "signature", file, "");
  const std::string name = member(sig, "name", file, "signature.").get<std::string>();
  signature::MeasuredEvidence ev;
  if (sig.contains("launch") && sig.at("launch").is_object()) {
    const Json& l = sig.at("launch");
    const auto grid = int_list(l, "grid", file, "signature.launch.");
    if (grid.size() != 3) throw InputError(file, "signature.launch.grid", "must have three dimensions");
    ev.grid_dims = std::array<long long, 3>{grid[0], grid[1], grid[2]};
    ev.grid_size = int_member(l, "grid_size", file, "signature.launch.");
    ev.block_size = int_member(l, "block_size", file, "signature.launch.");
  }
  if (!ref.contains("op") || !ref.at("op").contains("gemm")) return {};
  const Json& gemm = member(member(ref, "op", file, ""), "gemm", file, "op.");
  ev.problem = signature::MeasuredEvidence::Problem{int_member(gemm, "M", file, "op.gemm."),
                                                     int_member(gemm, "N", file, "op.gemm."),
                                                     gemm.contains("batch") ? int_member(gemm, "batch", file, "op.gemm.") : 1};
  signature::KernelNameReading reading = signature::read_kernel_name(name);
  signature::reconcile(reading, ev);
  std::vector<KernelNameFact> out;
  for (const auto& p : reading.properties) {
    // The engine class is a fixed property already; the data types come from the op.
    if (p.key == "engine" || p.key.find("type") != std::string::npos) continue;
    if (p.provenance != signature::Provenance::kDocumented || p.check != signature::Agreement::kAgrees) continue;
    out.push_back({p.key, p.value, false, "documented by the kernel name; " + p.check_note});
  }
  return out;
}

DesignPoint seed_from_reference(const std::string& path, bool served_op) {
  const Json ref = read_json_file(path);
  ops::OpSpec op = op_spec_from_reference(ref, path, served_op);
  const Json& fixed = member(ref, "fixed_properties", path, "");
  EngineClass engine{};
  const std::string engine_name = member(fixed, "engine_class", path, "fixed_properties.").get<std::string>();
  if (!parse(engine_name, engine)) {
    throw InputError(path, "fixed_properties.engine_class", "unknown engine class \"" + engine_name + "\"");
  }
  const int block = static_cast<int>(int_member(fixed, "block_size", path, "fixed_properties."));
  // The benchmark is named by its folder (suite/vx-robotics/<platform>/<benchmark>/reference.json).
  std::string name = std::filesystem::path(path).parent_path().filename().string();
  if (name.empty()) name = op.name;
  // An sm90 tensor-core kernel (TMA + warpgroup MMA) seeds the Hopper family when it can
  // implement the op; otherwise the GEMM family, with the reason recorded.
  std::string kernel_name;
  if (ref.contains("kernel") && ref.at("kernel").is_object() && ref.at("kernel").contains("name") &&
      ref.at("kernel").at("name").is_string())
    kernel_name = ref.at("kernel").at("name").get<std::string>();
  std::string why_not;
  if (engine == EngineClass::kTensorCore && hopper_kernel_name(kernel_name) && !op.is_transform()) {
    std::vector<KernelNameFact> facts = confirmed_name_properties(ref, path);
    // One block per SM of the profiled GPU: a persistent launch when the output has more tiles
    // than that (seed_hopper decides, knowing the family's tiles).
    if (ref.contains("platform") && ref.at("platform").contains("sm_count") && ref.contains("signature") &&
        ref.at("signature").contains("launch") && ref.at("signature").at("launch").contains("grid_size")) {
      const long long sms = int_member(ref.at("platform"), "sm_count", path, "platform.");
      const long long blocks = int_member(ref.at("signature").at("launch"), "grid_size", path, "signature.launch.");
      if (sms > 0 && blocks == sms) {
        facts.push_back({"launch_blocks", std::to_string(blocks), false,
                         "the launch has one block per SM (" + std::to_string(blocks) + " of " + std::to_string(sms) + ")"});
      }
    }
    if (auto h = seed_hopper(op, block, name, kernel_name, facts, &why_not)) return *h;
  }
  DesignPoint d = seed_design(op, engine, block, name, path, confirmed_name_properties(ref, path));
  if (!why_not.empty()) d.from_kernel_name.push_back({"family", "hopper", false, "sm90 kernel; the Hopper family cannot implement it: " + why_not});
  return d;
}

}  // namespace vxsynth::design
