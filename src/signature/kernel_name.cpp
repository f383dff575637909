#include "signature/kernel_name.h"

#include <algorithm>
#include <regex>

namespace vxsynth::signature {

std::string_view provenance_key(Provenance p) { return p == Provenance::kDocumented ? "documented" : "inferred"; }
std::string_view check_key(Agreement c) {
  switch (c) {
    case Agreement::kAgrees: return "agrees";
    case Agreement::kContradicted: return "contradicted";
    case Agreement::kUnchecked: break;
  }
  return "unchecked";
}

const NameProperty* KernelNameReading::find(std::string_view key) const {
  for (const auto& p : properties)
    if (p.key == key) return &p;
  return nullptr;
}
NameProperty* KernelNameReading::find(std::string_view key) {
  for (auto& p : properties)
    if (p.key == key) return &p;
  return nullptr;
}
std::optional<std::string> KernelNameReading::value(std::string_view key) const {
  const NameProperty* p = find(key);
  if (!p || p->check == Agreement::kContradicted) return std::nullopt;
  return p->value;
}
EngineClass KernelNameReading::engine_from_name() const {
  const NameProperty* p = find("engine");
  if (!p) return EngineClass::kUnknown;
  if (p->value == "tensor_core") return EngineClass::kTensorCore;
  if (p->value == "simt") return EngineClass::kSimt;
  return EngineClass::kUnknown;
}

Json KernelNameReading::to_json() const {
  Json props = Json::array();
  for (const auto& p : properties) {
    Json o{{"key", p.key},
           {"value", p.check == Agreement::kContradicted ? Json(nullptr) : Json(p.value)},
           {"read_as", p.value},
           {"token", p.token},
           {"provenance", provenance_key(p.provenance)},
           {"check", check_key(p.check)}};
    if (!p.check_note.empty()) o["check_note"] = p.check_note;
    props.push_back(std::move(o));
  }
  return Json{{"family", family}, {"properties", props}};
}

namespace {

using Prov = Provenance;

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool match(const std::string& s, const char* re, std::smatch& m) { return std::regex_match(s, m, std::regex(re)); }

// Kernel names arrive demangled and wrapped ("void cutlass::Kernel2<cutlass_80_simt_...>(Params)");
// the informative identifier is the longest [A-Za-z0-9_] run that carries a known family prefix.
std::string core_identifier(std::string_view name) {
  static const std::regex id_re("[A-Za-z0-9_]+");
  static const std::regex family_re(
      "^(nvjet_|sm[0-9]+_xmma_|cutlass3x_|cutlass_|ampere_|volta_|turing_|maxwell_|kepler_|hopper_|cudnn_generated_|"
      "implicit_convolve_sgemm|flash_fwd|fmha_)");
  std::string best;
  std::string s(name);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), id_re); it != std::sregex_iterator(); ++it) {
    const std::string tok = it->str();
    if (std::regex_search(tok, family_re) && tok.size() > best.size()) best = tok;
  }
  return best.empty() ? s : best;
}

struct Reader {
  KernelNameReading r;
  void add(std::string key, std::string value, std::string token, Prov prov) {
    r.properties.push_back({std::move(key), std::move(value), std::move(token), prov, Agreement::kUnchecked, ""});
  }
};

// Type tokens inside xmma / CUTLASS 3.x names.
std::vector<std::string> split_types(const std::string& s) {
  static const std::regex t("(bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|u8|s32|i8|i32)");
  std::vector<std::string> out;
  std::size_t consumed = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), t); it != std::sregex_iterator(); ++it) {
    if (static_cast<std::size_t>(it->position()) != consumed) return {};
    out.push_back(it->str());
    consumed += it->length();
  }
  if (consumed != s.size()) return {};
  return out;
}

std::string nvjet_type(char c) {
  switch (c) {
    case 't': return "bf16";
    case 's': return "f32";
    case 'h': return "f16";
    case 'q': return "e4m3";
    case 'd': return "f64";
    default: return "";
  }
}

void read_nvjet(Reader& rd, const std::string& id) {
  rd.r.family = "nvjet";
  const auto t = split(id, '_');
  rd.add("engine", "tensor_core", "nvjet", Prov::kInferred);
  std::smatch m;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::string& tok = t[i];
    if (i == 1 && match(tok, "sm([0-9]+)", m)) rd.add("arch", tok, tok, Prov::kInferred);
    else if (i == 2 && tok.size() == 3) {
      const std::string in = nvjet_type(tok[0]), acc = nvjet_type(tok[1]), out = nvjet_type(tok[2]);
      if (!in.empty()) rd.add("input_type", in, tok, Prov::kInferred);
      if (!acc.empty()) rd.add("accumulator_type", acc, tok, Prov::kInferred);
      if (!out.empty()) rd.add("output_type", out, tok, Prov::kInferred);
    } else if (i == 3 && match(tok, "([0-9]+)x([0-9]+)", m)) {
      std::string tile = tok;
      if (i + 1 < t.size() && match(t[i + 1], "([0-9]+)x([0-9]+)", m)) {
        tile += "x" + m[1].str();
        rd.add("stages", m[2].str(), t[i + 1], Prov::kInferred);
        ++i;
      }
      rd.add("tile", tile, tok, Prov::kInferred);
      // The next AxB token is the thread-block cluster shape.
      if (i + 1 < t.size() && match(t[i + 1], "([0-9]+)x([0-9]+)", m)) {
        rd.add("cluster", t[i + 1], t[i + 1], Prov::kInferred);
        ++i;
      }
    } else if (i == t.size() - 1 && match(tok, "([NT])([NT])([NT])", m)) {
      std::string layout = m[1].str() + m[2].str();
      for (auto& c : layout) c = static_cast<char>(c - 'A' + 'a');
      rd.add("layout", layout, tok, Prov::kInferred);
    }
  }
}

void read_xmma(Reader& rd, const std::string& id) {
  rd.r.family = id.find("cudnn") != std::string::npos ? "cudnn_xmma" : "cublas_xmma";
  const auto t = split(id, '_');
  std::smatch m;
  rd.add("arch", t[0], t[0], Prov::kInferred);
  if (t.size() > 2) rd.add("op", t[2] == "gemm" ? "gemm" : t[2], t[2], Prov::kInferred);
  bool simt = false;
  std::vector<std::vector<std::string>> type_groups;
  for (std::size_t i = 3; i < t.size(); ++i) {
    const std::string& tok = t[i];
    if (tok == "ffma") simt = true;
    auto types = split_types(tok);
    if (!types.empty() && type_groups.size() < 3) {
      type_groups.push_back(types);
      continue;
    }
    if (match(tok, "tilesize([0-9]+)x([0-9]+)x([0-9]+)", m))
      rd.add("tile", m[1].str() + "x" + m[2].str() + "x" + m[3].str(), tok, Prov::kInferred);
    else if (match(tok, "stage([0-9]+)", m))
      rd.add("stages", m[1].str(), tok, Prov::kInferred);
    else if (match(tok, "warpsize([0-9]+)x([0-9]+)x([0-9]+)", m))
      rd.add("warps", m[1].str() + "x" + m[2].str() + "x" + m[3].str(), tok, Prov::kInferred);
    else if (match(tok, "warpgroupsize([0-9]+)x([0-9]+)x([0-9]+)", m))
      rd.add("warpgroups", m[1].str() + "x" + m[2].str() + "x" + m[3].str(), tok, Prov::kInferred);
    else if (match(tok, "tensor([0-9]+)x([0-9]+)x([0-9]+)", m))
      rd.add("mma_shape", "m" + m[1].str() + "n" + m[2].str() + "k" + m[3].str(), tok, Prov::kInferred);
    else if ((tok == "nn" || tok == "nt" || tok == "tn" || tok == "tt") && !rd.r.find("layout"))
      rd.add("layout", tok, tok, Prov::kInferred);
    else if (match(tok, "(nhwc|nchw)(krsc|kcrs)?", m) && !rd.r.find("layout")) {
      std::string layout = tok;
      if (i + 1 < t.size() && match(t[i + 1], "(nhwc|nchw)", m)) layout += "_" + t[i + 1];
      rd.add("layout", layout, tok, Prov::kInferred);
    } else if (tok == "split" && i + 1 < t.size() && t[i + 1] == "k")
      rd.add("split_k", "yes", "split_k", Prov::kInferred);
  }
  // A/B storage types, then math-input/accumulate types, then the epilogue type.
  if (!type_groups.empty()) rd.add("input_type", type_groups[0][0], t[3], Prov::kInferred);
  if (type_groups.size() >= 2) {
    const auto& g = type_groups[1];
    rd.add("math_type", g[0], "", Prov::kInferred);
    if (g.size() >= 2) rd.add("accumulator_type", g[1], "", Prov::kInferred);
  }
  rd.add("engine", simt ? "simt" : "tensor_core", simt ? "ffma" : "xmma", Prov::kInferred);
}

// CUTLASS 2.x: cutlass[_80]_{tensorop|simt}_[elem_]{s|h|d|i}[MMA][elem]gemm[_epilogue]_elem_MxN_KxS_ll_alignA
void read_cutlass2(Reader& rd, const std::string& id) {
  rd.r.family = "cutlass2";
  const auto t = split(id, '_');
  std::smatch m;
  bool seen_gemm = false;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::string& tok = t[i];
    if (match(tok, "[0-9]+", m) && i == 1) rd.add("arch", "sm" + tok, tok, Prov::kDocumented);
    else if ((tok == "tensorop" || tok == "wmma") && !rd.r.find("engine"))
      rd.add("engine", "tensor_core", tok, Prov::kDocumented);
    else if (tok == "tensorop" || tok == "wmma")
      continue;
    else if (tok == "simt")
      rd.add("engine", "simt", tok, Prov::kDocumented);
    else if (!seen_gemm && match(tok, "([shdic]?)([0-9]*)([a-z][a-z0-9]*)?gemm", m)) {
      seen_gemm = true;
      const std::string acc = m[1].str();
      if (acc == "s") rd.add("accumulator_type", "f32", tok, Prov::kDocumented);
      if (acc == "h") rd.add("accumulator_type", "f16", tok, Prov::kDocumented);
      if (acc == "d") rd.add("accumulator_type", "f64", tok, Prov::kDocumented);
      if (acc == "i") rd.add("accumulator_type", "s32", tok, Prov::kDocumented);
      // MMA instruction shape M N K: 884 -> m8n8k4, 1688 -> m16n8k8, 16816 -> m16n8k16,
      // 161616 -> m16n16k16 (WMMA).
      const std::string d = m[2].str();
      std::string shape;
      if (d.size() == 3) shape = "m" + d.substr(0, 1) + "n" + d.substr(1, 1) + "k" + d.substr(2, 1);
      if (d.size() == 4) shape = "m" + d.substr(0, 2) + "n" + d.substr(2, 1) + "k" + d.substr(3, 1);
      if (d.size() == 5) shape = "m" + d.substr(0, 2) + "n" + d.substr(2, 1) + "k" + d.substr(3, 2);
      if (d.size() == 6) shape = "m" + d.substr(0, 2) + "n" + d.substr(2, 2) + "k" + d.substr(4, 2);
      if (!shape.empty()) rd.add("mma_shape", shape, tok, Prov::kDocumented);
      if (m[3].matched) rd.add("math_type", m[3].str(), tok, Prov::kDocumented);
      if (acc == "s" && d.empty() && !m[3].matched && !rd.r.find("input_type"))
        rd.add("input_type", "f32", tok, Prov::kDocumented);  // sgemm
    } else if (!split_types(tok).empty() && !rd.r.find("input_type"))
      rd.add("input_type", split_types(tok)[0], tok, Prov::kDocumented);
    else if (match(tok, "([0-9]+)x([0-9]+)", m) && i + 1 < t.size() && !rd.r.find("tile")) {
      std::smatch k;
      std::string tile = tok;
      if (match(t[i + 1], "([0-9]+)x([0-9]+)", k)) {
        tile += "x" + k[1].str();
        rd.add("stages", k[2].str(), t[i + 1], Prov::kDocumented);
        ++i;
      }
      rd.add("tile", tile, tok, Prov::kDocumented);
    } else if (tok == "nn" || tok == "nt" || tok == "tn" || tok == "tt")
      rd.add("layout", tok, tok, Prov::kDocumented);
    else if (match(tok, "align([0-9]+)", m))
      rd.add("alignment", m[1].str(), tok, Prov::kDocumented);
  }
}

// CUTLASS 3.x: cutlass3x_sm90_tensorop_gemm_A_B_Acc_C_D_MxNxK_CxCxC_S_lll_alignN[_schedule]
void read_cutlass3(Reader& rd, const std::string& id) {
  rd.r.family = "cutlass3";
  const auto t = split(id, '_');
  std::smatch m;
  std::vector<std::string> types;
  bool tile_done = false;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::string& tok = t[i];
    if (match(tok, "sm[0-9]+", m)) rd.add("arch", tok, tok, Prov::kDocumented);
    else if (tok == "tensorop") rd.add("engine", "tensor_core", tok, Prov::kDocumented);
    else if (tok == "simt") rd.add("engine", "simt", tok, Prov::kDocumented);
    else if (split_types(tok).size() == 1 && types.size() < 5) types.push_back(tok);
    else if (!tile_done && match(tok, "([0-9]+)x([0-9]+)x([0-9]+)", m)) {
      rd.add("tile", tok, tok, Prov::kDocumented);
      tile_done = true;
    } else if (match(tok, "[nt]{3}", m)) rd.add("layout", tok.substr(0, 2), tok, Prov::kDocumented);
    else if (match(tok, "align([0-9]+)", m)) rd.add("alignment", m[1].str(), tok, Prov::kDocumented);
  }
  if (types.size() >= 1) rd.add("input_type", types[0], types[0], Prov::kDocumented);
  if (types.size() >= 3) rd.add("accumulator_type", types[2], types[2], Prov::kDocumented);
  if (types.size() >= 5) rd.add("output_type", types[4], types[4], Prov::kDocumented);
}

// Pre-Hopper cuBLAS / cuDNN: ampere_sgemm_128x64_tn, ampere_h16816gemm_128x64_ldg8_stages_64x3_nn,
// ampere_fp16_s16816gemm_fp16_64x64_..._tn, volta_scudnn_128x128_stridedB_splitK_...
void read_legacy(Reader& rd, const std::string& id) {
  const auto t = split(id, '_');
  std::smatch m;
  rd.r.family = id.find("cudnn") != std::string::npos ? "cudnn_legacy" : "cublas_legacy";
  rd.add("arch", t[0], t[0], Prov::kInferred);
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::string& tok = t[i];
    if (match(tok, "([shdi])([0-9]{3,5})(gemm|fprop|dgrad|wgrad)", m)) {
      rd.add("engine", "tensor_core", tok, Prov::kInferred);
      rd.add("accumulator_type", m[1].str() == "h" ? "f16" : m[1].str() == "i" ? "s32" : "f32", tok, Prov::kInferred);
    } else if (tok == "sgemm" || tok == "scudnn") {
      rd.add("engine", "simt", tok, Prov::kInferred);
      rd.add("input_type", "f32", tok, Prov::kInferred);
    } else if ((tok == "fp16" || tok == "bf16") && !rd.r.find("input_type"))
      rd.add("input_type", tok == "fp16" ? "f16" : "bf16", tok, Prov::kInferred);
    else if (match(tok, "([0-9]+)x([0-9]+)", m) && !rd.r.find("tile"))
      rd.add("tile", tok, tok, Prov::kInferred);
    else if (tok == "stages" && i + 1 < t.size() && match(t[i + 1], "([0-9]+)x([0-9]+)", m)) {
      rd.add("stages", m[2].str(), t[i + 1], Prov::kInferred);
      ++i;
    } else if (tok == "splitK")
      rd.add("split_k", "yes", tok, Prov::kInferred);
    else if (i == t.size() - 1 && (tok == "nn" || tok == "nt" || tok == "tn" || tok == "tt"))
      rd.add("layout", tok, tok, Prov::kInferred);
  }
}

}  // namespace

KernelNameReading read_kernel_name(std::string_view kernel_name) {
  Reader rd;
  const std::string full(kernel_name);
  const std::string id = core_identifier(kernel_name);
  std::smatch m;
  if (id.rfind("nvjet_", 0) == 0) {
    read_nvjet(rd, id);
  } else if (std::regex_search(id, m, std::regex("^sm[0-9]+_xmma_"))) {
    read_xmma(rd, id);
  } else if (id.rfind("cutlass3x_", 0) == 0) {
    read_cutlass3(rd, id);
  } else if (id.rfind("cutlass_", 0) == 0) {
    read_cutlass2(rd, id);
  } else if (std::regex_search(id, m, std::regex("^(ampere|volta|turing|maxwell|kepler|hopper)_"))) {
    read_legacy(rd, id);
  } else if (id.rfind("implicit_convolve_sgemm", 0) == 0 || full.find("implicit_convolve_sgemm") != std::string::npos) {
    rd.r.family = "cudnn_legacy";
    rd.add("engine", "simt", "implicit_convolve_sgemm", Prov::kInferred);
    rd.add("op", "fprop", "implicit_convolve_sgemm", Prov::kInferred);
  } else if (id.rfind("cudnn_generated_", 0) == 0) {
    rd.r.family = "cudnn_generated";
    const bool tensor = std::regex_search(id, std::regex("wgmma|gmma|hmma|tensor"));
    if (tensor) rd.add("engine", "tensor_core", "wgmma", Prov::kInferred);
    if (std::regex_search(id, m, std::regex("_([0-9]+x[0-9]+x[0-9]+)_"))) rd.add("tile", m[1].str(), m[1].str(), Prov::kInferred);
  } else if (std::regex_search(full, std::regex("flash_fwd|pytorch_flash|fmha_cutlass"))) {
    rd.r.family = "attention";
    rd.add("engine", "tensor_core", "flash/fmha", Prov::kInferred);
  } else if (full.find("at::") != std::string::npos) {
    rd.r.family = "pytorch_native";
    rd.add("engine", "simt", "at::", Prov::kInferred);
  } else {
    // Rule of thumb from ncu-profiling.md §4 for names of no known family.
    rd.r.family = "unknown";
    if (std::regex_search(full, m, std::regex("gmma|wgmma|tensorop|tensor[0-9]+x[0-9]+x[0-9]+|[shi][0-9]{3,5}(gemm|fprop|dgrad|wgrad)")))
      rd.add("engine", "tensor_core", m[0].str(), Prov::kInferred);
    else if (std::regex_search(full, m, std::regex("ffma|simt|(^|_)sgemm|scudnn|gemv")))
      rd.add("engine", "simt", m[0].str(), Prov::kInferred);
  }
  return rd.r;
}

std::optional<EngineClass> engine_from_counters(const MeasuredEvidence& ev) {
  const bool have_tensor = ev.tensor_ops_bf16 || ev.tensor_ops_fp16 || ev.tensor_ops_tf32 || ev.tensor_ops_fp8;
  if (!have_tensor && !ev.gmma_instructions) return std::nullopt;
  const double tensor = ev.tensor_ops_bf16.value_or(0) + ev.tensor_ops_fp16.value_or(0) +
                        ev.tensor_ops_tf32.value_or(0) + ev.tensor_ops_fp8.value_or(0);
  if (tensor > 0 || ev.gmma_instructions.value_or(0) > 0) return EngineClass::kTensorCore;
  if (ev.fp32_thread_instructions.value_or(0) > 0) return EngineClass::kSimt;
  return std::nullopt;  // neither tensor math nor FP32 math: nothing to say
}

namespace {
std::optional<std::array<long long, 3>> triple(const std::string& s) {
  std::smatch m;
  if (!std::regex_match(s, m, std::regex("([0-9]+)x([0-9]+)x([0-9]+)"))) return std::nullopt;
  return std::array<long long, 3>{std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
}
std::optional<std::array<long long, 2>> tile_mn(const std::string& s) {
  std::smatch m;
  if (!std::regex_match(s, m, std::regex("([0-9]+)x([0-9]+)(x[0-9]+)?"))) return std::nullopt;
  return std::array<long long, 2>{std::stoll(m[1]), std::stoll(m[2])};
}
void mark(NameProperty& p, bool ok, std::string note) {
  p.check = ok ? Agreement::kAgrees : Agreement::kContradicted;
  p.check_note = std::move(note);
}

// The tile agrees with the grid only when the grid is exactly what the problem's tile count
// T = ceil(M/tm) * ceil(N/tn) * batch (either orientation: cuBLAS is column-major) launches:
//   grid == T;
//   grid == T rounded up to the cluster size (launch__cluster_size, else the name's cluster);
//   with the launch's cluster dims: the tiles as a 2-D grid (ceil(M/tm) by ceil(N/tn), either
//          way round, the batch in z or folded into x or y), each dimension rounded up to the
//          cluster's (an sm90 conv's 32 x 1 tiles in a (4, 2, 1) cluster launch as (32, 2, 1));
//   split-K s > 1: grid z == s (or s * batch) and x * y holds the tiles (CUTLASS and cuBLAS put
//          the K slices in z).
// Fewer blocks than tiles is a persistent schedule: unchecked. Anything else contradicts.
void check_tile_against_grid(NameProperty& p, const std::array<long long, 2>& t, const KernelNameReading& reading,
                             const MeasuredEvidence& ev) {
  long long cluster = 1;
  if (ev.cluster_dims && (*ev.cluster_dims)[0] > 0) {
    cluster = (*ev.cluster_dims)[0] * std::max(1LL, (*ev.cluster_dims)[1]) * std::max(1LL, (*ev.cluster_dims)[2]);
  } else if (const NameProperty* c = reading.find("cluster")) {
    if (auto cm = tile_mn(c->value)) cluster = (*cm)[0] * (*cm)[1];
  }
  const auto& pr = *ev.problem;
  auto ceil_div = [](long long a, long long b) { return (a + b - 1) / b; };
  const long long grid = *ev.grid_size;
  const long long a = ceil_div(pr.m, t[0]) * ceil_div(pr.n, t[1]) * pr.batch;
  const long long b = ceil_div(pr.n, t[0]) * ceil_div(pr.m, t[1]) * pr.batch;
  const std::string note = "grid of " + std::to_string(grid) + " blocks vs " + std::to_string(a) + " or " +
                           std::to_string(b) + " tiles";
  for (long long tiles : {a, b}) {
    if (grid == tiles) return mark(p, true, note + ": exactly the tile count");
    if (cluster > 1 && grid == ceil_div(tiles, cluster) * cluster)
      return mark(p, true, note + ": the tile count rounded up to the cluster of " + std::to_string(cluster));
  }
  if (ev.grid_dims) {
    const auto& g = *ev.grid_dims;
    if (ev.cluster_dims && (*ev.cluster_dims)[0] > 0) {
      // The tiles as a 2-D grid (tiles along one GEMM dimension in x, the other in y, the batch in
      // z or folded into x or y), each dimension rounded up to the cluster's.
      const std::array<long long, 3> c{std::max(1LL, (*ev.cluster_dims)[0]), std::max(1LL, (*ev.cluster_dims)[1]),
                                       std::max(1LL, (*ev.cluster_dims)[2])};
      const long long bt = pr.batch;
      for (const auto& [u, v] : {std::pair{ceil_div(pr.m, t[0]), ceil_div(pr.n, t[1])},
                                 std::pair{ceil_div(pr.n, t[0]), ceil_div(pr.m, t[1])}}) {
        for (const std::array<long long, 3>& l :
             {std::array<long long, 3>{u, v, bt}, {v, u, bt}, {u * bt, v, 1}, {v * bt, u, 1}, {u, v * bt, 1}, {v, u * bt, 1}}) {
          bool fits = true;
          for (int d = 0; d < 3; ++d) fits = fits && g[d] == ceil_div(l[d], c[d]) * c[d];
          if (fits)
            return mark(p, true, note + ": " + std::to_string(u * v * bt) + " tiles laid out (" + std::to_string(l[0]) +
                                     ", " + std::to_string(l[1]) + ", " + std::to_string(l[2]) +
                                     "), each dimension rounded up to the cluster (" + std::to_string(c[0]) + ", " +
                                     std::to_string(c[1]) + ", " + std::to_string(c[2]) + ")");
        }
      }
    }
    for (long long tiles : {a, b}) {
      const long long xy = g[0] * g[1];
      const bool alone = g[2] > 1 && xy == tiles;                                      // z = s
      const bool with_batch = pr.batch > 1 && g[2] % pr.batch == 0 && g[2] > pr.batch && xy * pr.batch == tiles;  // z = s * batch
      if (alone || with_batch) {
        const long long s = alone ? g[2] : g[2] / pr.batch;
        return mark(p, true, note + ": " + std::to_string(tiles) + " tiles x split-K " + std::to_string(s) +
                                 " in grid z = " + std::to_string(g[2]));
      }
    }
  }
  if (grid < std::min(a, b)) {
    // A persistent or stream-K schedule loops over tiles: the grid cannot confirm the tile.
    p.check = Agreement::kUnchecked;
    p.check_note = note + ": fewer blocks than tiles (persistent schedule), cannot check";
    return;
  }
  mark(p, false, note + ": neither the tile count, nor it rounded up to the cluster, nor tiles x a split-K in grid z");
}
}  // namespace

void reconcile(KernelNameReading& reading, const MeasuredEvidence& ev) {
  if (ev.block_size) {
    const long long block = *ev.block_size;
    if (NameProperty* p = reading.find("warps")) {
      if (auto w = triple(p->value)) {
        const long long want = (*w)[0] * (*w)[1] * (*w)[2] * 32;
        mark(*p, want == block, "block size " + std::to_string(block) + " vs " + std::to_string(want) + " threads");
      }
    }
    if (NameProperty* p = reading.find("warpgroups")) {
      if (auto w = triple(p->value)) {
        const long long n = (*w)[0] * (*w)[1] * (*w)[2];
        // Consumer warpgroups, with or without one producer warpgroup.
        const bool ok = block == n * 128 || block == (n + 1) * 128;
        mark(*p, ok, "block size " + std::to_string(block) + " vs " + std::to_string(n * 128) + " or " +
                         std::to_string((n + 1) * 128) + " threads");
      }
    }
  }
  if (ev.grid_size && ev.problem) {
    if (NameProperty* p = reading.find("tile")) {
      if (auto t = tile_mn(p->value)) check_tile_against_grid(*p, *t, reading, ev);
    }
  }
  if (auto counted = engine_from_counters(ev)) {
    if (NameProperty* p = reading.find("engine"))
      mark(*p, p->value == engine_key(*counted), "counters say " + std::string(engine_key(*counted)));
    if (NameProperty* p = reading.find(reading.find("math_type") ? "math_type" : "input_type")) {
      if (*counted == EngineClass::kTensorCore) {
        // The source type with the most tensor ops is what the tensor cores consumed.
        std::pair<double, std::string> best{0, ""};
        for (auto [v, name] : {std::pair{ev.tensor_ops_bf16, "bf16"}, std::pair{ev.tensor_ops_fp16, "f16"},
                               std::pair{ev.tensor_ops_tf32, "tf32"}, std::pair{ev.tensor_ops_fp8, "e4m3"}})
          if (v && *v > best.first) best = {*v, name};
        if (!best.second.empty()) mark(*p, p->value == best.second, "tensor ops by source type: " + best.second);
      } else if (*counted == EngineClass::kSimt) {
        mark(*p, p->value == "f32", "FP32 FFMA/FADD/FMUL issued, no tensor ops");
      }
    }
  }
}

EngineVerdict decide_engine(const KernelNameReading& reading, const MeasuredEvidence& ev) {
  const EngineClass named = reading.engine_from_name();
  if (auto counted = engine_from_counters(ev)) {
    std::string basis = "counters";
    if (named != EngineClass::kUnknown) basis += named == *counted ? " (name agrees)" : " (name disagrees)";
    return {*counted, basis};
  }
  if (named != EngineClass::kUnknown) return {named, "name only (no counters to check it)"};
  return {EngineClass::kUnknown, "neither name nor counters"};
}

}  // namespace vxsynth::signature
