#include "signature/derive.h"

#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "common/error.h"

namespace vxsynth::signature {

namespace {

constexpr double kWarpSize = 32.0;         // lanes per warp on every NVIDIA GPU
constexpr double kSectorBytes = 32.0;      // an L1/L2 sector
constexpr double kNanosecond = 1e-9;

// Counter names, once.
namespace c {
constexpr std::string_view kDuration = "gpu__time_duration.sum";
constexpr std::string_view kSmClock = "sm__cycles_elapsed.avg.per_second";
constexpr std::string_view kL1Hit = "l1tex__t_sector_hit_rate.pct";
constexpr std::string_view kL1GlobalLdHit = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct";
constexpr std::string_view kL2Hit = "lts__t_sector_hit_rate.pct";
// The sectors the two hit rates are over: an operator's hit rate weighs its kernels by them.
constexpr std::string_view kL1Sectors = "l1tex__t_sectors.sum";
constexpr std::string_view kL2Sectors = "lts__t_sectors.sum";
constexpr std::string_view kLdBytesPerSectorPct = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
constexpr std::string_view kLdBytesPerSectorRatio = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio";
constexpr std::string_view kLdDataBytes = "smsp__sass_data_bytes_mem_global_op_ld.sum";
constexpr std::string_view kLdSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr std::string_view kLdRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr std::string_view kLdInst = "smsp__sass_inst_executed_op_global_ld.sum";
constexpr std::string_view kLdgstsInst = "smsp__sass_inst_executed_op_ldgsts.sum";
constexpr std::string_view kTmaLdInst = "smsp__sass_inst_executed_op_tma_ld.sum";
constexpr std::string_view kSmThroughput = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kMemThroughput = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kTensorHmmaPipe = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view kTensorPipe = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view kGmmaInst = "sm__inst_executed_pipe_tensor_op_gmma.sum";
constexpr std::string_view kHmmaInst = "sm__inst_executed_pipe_tensor_op_hmma.sum";
constexpr std::string_view kTensorBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
constexpr std::string_view kTensorFp16 = "sm__ops_path_tensor_src_fp16.sum";
constexpr std::string_view kTensorTf32 = "sm__ops_path_tensor_src_tf32_dst_fp32.sum";
constexpr std::string_view kTensorFp8 = "sm__ops_path_tensor_src_fp8.sum";
constexpr std::string_view kAtomInst = "smsp__sass_inst_executed_op_global_atom.sum";
constexpr std::string_view kRedInst = "smsp__sass_inst_executed_op_global_red.sum";
constexpr std::string_view kGenericAtomInst = "smsp__inst_executed_op_generic_atom.sum";
constexpr std::string_view kGlobalRedInst = "smsp__inst_executed_op_global_red.sum";
constexpr std::string_view kInst = "smsp__inst_executed.sum";
constexpr std::string_view kFfma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
constexpr std::string_view kFadd = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
constexpr std::string_view kFmul = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";
constexpr std::string_view kHfma = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum";
constexpr std::string_view kHadd = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum";
constexpr std::string_view kHmul = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum";
constexpr std::string_view kDfma = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum";
constexpr std::string_view kDadd = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum";
constexpr std::string_view kDmul = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum";
constexpr std::string_view kDramRead = "dram__bytes_read.sum";
constexpr std::string_view kDramWrite = "dram__bytes_write.sum";
constexpr std::string_view kDramPerSecond = "dram__bytes.sum.per_second";
constexpr std::string_view kDramThroughput = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr std::string_view kLanesPerInst = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
constexpr std::string_view kLanesPerInstDeprecated = "smsp__thread_inst_executed_per_inst_executed.ratio";
constexpr std::string_view kThreadInst = "smsp__thread_inst_executed.sum";
constexpr std::string_view kWarpsActive = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view kGridSize = "launch__grid_size";
constexpr std::string_view kBlockSize = "launch__block_size";
constexpr std::string_view kRegisters = "launch__registers_per_thread";
constexpr std::string_view kSmemStatic = "launch__shared_mem_per_block_static";
constexpr std::string_view kSmemDynamic = "launch__shared_mem_per_block_dynamic";
}  // namespace c

const std::vector<CounterSpec> kCounters = {
    {c::kDuration, "ns"},        {c::kSmClock, ""},
    {c::kGridSize, ""},          {c::kBlockSize, ""},
    {c::kRegisters, ""},         {c::kSmemStatic, ""},
    {c::kSmemDynamic, ""},       {c::kL1Hit, "%"},
    {c::kL1GlobalLdHit, "%"},    {c::kL2Hit, "%"},
    {c::kL1Sectors, ""},         {c::kL2Sectors, ""},
    {c::kLdBytesPerSectorPct, "%"}, {c::kLdBytesPerSectorRatio, ""},
    {c::kLdDataBytes, "byte"},   {c::kLdSectors, ""},
    {c::kLdRequests, ""},        {c::kLdInst, ""},
    {c::kLdgstsInst, ""},        {c::kTmaLdInst, ""},
    {c::kSmThroughput, "%"},     {c::kMemThroughput, "%"},
    {c::kTensorHmmaPipe, "%"},   {c::kTensorPipe, "%"},
    {c::kGmmaInst, ""},          {c::kHmmaInst, ""},
    {c::kTensorBf16, ""},        {c::kTensorFp16, ""},
    {c::kTensorTf32, ""},        {c::kTensorFp8, ""},
    {c::kAtomInst, ""},          {c::kRedInst, ""},
    {c::kInst, ""},              {c::kFfma, ""},
    {c::kFadd, ""},              {c::kFmul, ""},
    {c::kHfma, ""},              {c::kHadd, ""},
    {c::kHmul, ""},              {c::kDfma, ""},
    {c::kDadd, ""},              {c::kDmul, ""},
    {c::kDramRead, "byte"},      {c::kDramWrite, "byte"},
    {c::kDramPerSecond, "byte/s"}, {c::kDramThroughput, "%"},
    {c::kLanesPerInst, ""},      {c::kThreadInst, ""},
    {c::kWarpsActive, "%"},
};

std::string expected_unit(std::string_view counter) {
  for (const auto& s : kCounters)
    if (s.name == counter) return std::string(s.unit);
  return "";
}

// Reads counters of one row: numbers, with n/a and absent columns told apart.
class RowCounters {
 public:
  RowCounters(const NcuTable& t, const NcuRow& r) : t_(t), r_(r) {}

  enum class State { kPresent, kMissing, kNotAvailable };

  State state(std::string_view name) const {
    const auto text = t_.text(r_, std::string(name));
    if (!text) return State::kMissing;
    if (is_not_available(*text) || text->empty()) return State::kNotAvailable;
    return State::kPresent;
  }

  // The value of a present counter; InputError if it is not a number or has a non-base unit.
  double get(std::string_view name) const {
    const std::string n(name);
    const std::string text = *t_.text(r_, n);
    const auto v = parse_ncu_number(text);
    if (!v)
      throw InputError(t_.source(), n,
                       "line " + std::to_string(t_.line_of(r_, n)) + ": expected a number, found '" + text + "'");
    const std::string want = expected_unit(name), got = t_.unit(n);
    if (!want.empty() && !got.empty() && got != want)
      throw InputError(t_.source(), n,
                       "unit is '" + got + "' but vxsynth reads base units ('" + want +
                           "'): profile with ncu --csv --page raw --print-units base");
    return *v;
  }

 private:
  const NcuTable& t_;
  const NcuRow& r_;
};

using Get = std::function<double(std::string_view)>;
struct Recipe {
  std::vector<std::string_view> counters;
  std::string formula;
  std::function<double(const Get&)> compute;
};

double flops(const Get& g) {
  return g(c::kFadd) + g(c::kFmul) + 2 * g(c::kFfma) + 2 * g(c::kHadd) + 2 * g(c::kHmul) + 4 * g(c::kHfma) +
         g(c::kDadd) + g(c::kDmul) + 2 * g(c::kDfma) + g(c::kTensorBf16) + g(c::kTensorFp16) + g(c::kTensorTf32) +
         g(c::kTensorFp8);
}

// One or more recipes per metric, tried in order; the first whose counters are all present wins.
const std::map<MetricId, std::vector<Recipe>>& recipes() {
  static const std::map<MetricId, std::vector<Recipe>> table = [] {
    std::map<MetricId, std::vector<Recipe>> t;
    auto direct = [](std::string_view counter) {
      return Recipe{{counter}, std::string(counter), [counter](const Get& g) { return g(counter); }};
    };
    t[MetricId::kL1HitRate] = {direct(c::kL1Hit)};
    t[MetricId::kL2HitRate] = {direct(c::kL2Hit)};
    t[MetricId::kCoalescing] = {
        {{c::kLdInst, c::kLdBytesPerSectorPct},
         std::string(c::kLdBytesPerSectorPct) + " if " + std::string(c::kLdInst) + " > 0, else 0",
         [](const Get& g) { return g(c::kLdInst) > 0 ? g(c::kLdBytesPerSectorPct) : 0.0; }},
        {{c::kLdInst, c::kLdDataBytes, c::kLdSectors},
         "100 * " + std::string(c::kLdDataBytes) + " / (32 * " + std::string(c::kLdSectors) + ") if global loads, else 0",
         [](const Get& g) {
           return g(c::kLdInst) > 0 && g(c::kLdSectors) > 0 ? 100.0 * g(c::kLdDataBytes) / (kSectorBytes * g(c::kLdSectors))
                                                             : 0.0;
         }},
    };
    t[MetricId::kComputeThroughput] = {direct(c::kSmThroughput)};
    t[MetricId::kTensorUtilization] = {direct(c::kTensorHmmaPipe)};
    auto atomics = [](std::string_view atom, std::string_view red) {
      return Recipe{{atom, red, c::kInst},
                    "(" + std::string(atom) + " + " + std::string(red) + ") / " + std::string(c::kInst),
                    [atom, red](const Get& g) { return g(c::kInst) > 0 ? (g(atom) + g(red)) / g(c::kInst) : 0.0; }};
    };
    t[MetricId::kAtomicsPerInstruction] = {atomics(c::kAtomInst, c::kRedInst),
                                           atomics(c::kGenericAtomInst, c::kGlobalRedInst)};
    t[MetricId::kArithmeticIntensity] = {
        {{c::kFadd, c::kFmul, c::kFfma, c::kHadd, c::kHmul, c::kHfma, c::kDadd, c::kDmul, c::kDfma, c::kTensorBf16,
          c::kTensorFp16, c::kTensorTf32, c::kTensorFp8, c::kDramRead, c::kDramWrite},
         "(fadd + fmul + 2 ffma + 2 hadd + 2 hmul + 4 hfma + dadd + dmul + 2 dfma + tensor ops) / "
         "max(dram read + write bytes, 32)",
         [](const Get& g) {
           // A kernel that moved no DRAM bytes is scored as if it moved one sector, so the value
           // stays finite; documented in docs/signature.md.
           const double bytes = std::max(g(c::kDramRead) + g(c::kDramWrite), kSectorBytes);
           return flops(g) / bytes;
         }},
    };
    t[MetricId::kDramBandwidth] = {
        direct(c::kDramPerSecond),
        {{c::kDramRead, c::kDramWrite, c::kDuration},
         "(dram read + write bytes) / duration",
         [](const Get& g) {
           return g(c::kDuration) > 0 ? (g(c::kDramRead) + g(c::kDramWrite)) / (g(c::kDuration) * kNanosecond) : 0.0;
         }},
    };
    t[MetricId::kActiveLaneFraction] = {
        {{c::kLanesPerInst}, std::string(c::kLanesPerInst) + " / 32",
         [](const Get& g) { return g(c::kLanesPerInst) / kWarpSize; }},
        {{c::kLanesPerInstDeprecated}, std::string(c::kLanesPerInstDeprecated) + " / 32 (deprecated alias, same value)",
         [](const Get& g) { return g(c::kLanesPerInstDeprecated) / kWarpSize; }},
        {{c::kThreadInst, c::kInst}, "smsp__thread_inst_executed.sum / (32 * smsp__inst_executed.sum)",
         [](const Get& g) { return g(c::kInst) > 0 ? g(c::kThreadInst) / (kWarpSize * g(c::kInst)) : 0.0; }},
    };
    t[MetricId::kOccupancy] = {direct(c::kWarpsActive)};
    return t;
  }();
  return table;
}

std::string join(const std::vector<std::string_view>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

std::optional<long long> geometry_value(const RowCounters& rc, std::string_view name) {
  if (rc.state(name) != RowCounters::State::kPresent) return std::nullopt;
  return static_cast<long long>(rc.get(name));
}

// "(2, 64, 1)" -> {2, 64, 1}
std::optional<std::array<long long, 3>> parse_dim3(const std::string& s) {
  std::smatch m;
  if (!std::regex_match(s, m, std::regex(R"(\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\))"))) return std::nullopt;
  return std::array<long long, 3>{std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
}

std::optional<LaunchGeometry> read_geometry(const NcuTable& t, const NcuRow& r, const RowCounters& rc) {
  LaunchGeometry g;
  bool have = false;
  std::array<std::optional<long long>, 3> gd{geometry_value(rc, "launch__grid_dim_x"), geometry_value(rc, "launch__grid_dim_y"),
                                             geometry_value(rc, "launch__grid_dim_z")};
  std::array<std::optional<long long>, 3> bd{geometry_value(rc, "launch__block_dim_x"), geometry_value(rc, "launch__block_dim_y"),
                                             geometry_value(rc, "launch__block_dim_z")};
  if (gd[0] && gd[1] && gd[2] && bd[0] && bd[1] && bd[2]) {
    g.grid = {*gd[0], *gd[1], *gd[2]};
    g.block = {*bd[0], *bd[1], *bd[2]};
    have = true;
  } else {
    auto grid_text = t.text(r, "Grid Size"), block_text = t.text(r, "Block Size");
    auto gg = grid_text ? parse_dim3(*grid_text) : std::nullopt;
    auto bb = block_text ? parse_dim3(*block_text) : std::nullopt;
    if (gg && bb) {
      g.grid = *gg;
      g.block = *bb;
      have = true;
    }
  }
  if (!have) return std::nullopt;
  g.grid_size = geometry_value(rc, c::kGridSize).value_or(g.grid[0] * g.grid[1] * g.grid[2]);
  g.block_size = geometry_value(rc, c::kBlockSize).value_or(g.block[0] * g.block[1] * g.block[2]);
  g.registers_per_thread = geometry_value(rc, c::kRegisters);
  g.shared_static_bytes = geometry_value(rc, c::kSmemStatic);
  g.shared_dynamic_bytes = geometry_value(rc, c::kSmemDynamic);
  return g;
}

}  // namespace

const std::vector<CounterSpec>& ncu_counter_list() { return kCounters; }

std::optional<std::string_view> weight_counter(OperatorWeight w) {
  switch (w) {
    case OperatorWeight::kL1Sectors: return c::kL1Sectors;
    case OperatorWeight::kL2Sectors: return c::kL2Sectors;
    case OperatorWeight::kGlobalLoadSectors: return c::kLdSectors;
    case OperatorWeight::kInstructions: return c::kInst;
    case OperatorWeight::kDuration:
    case OperatorWeight::kDramBytes: return std::nullopt;
  }
  return std::nullopt;
}

std::array<std::string_view, 2> dram_byte_counters() { return {c::kDramRead, c::kDramWrite}; }

std::string ncu_metrics_argument() {
  std::string s;
  for (const auto& spec : kCounters) {
    if (!s.empty()) s += ',';
    s += spec.name;
  }
  return s;
}

std::string ncu_metrics_argument(MetricId metric) {
  std::string s;
  for (const auto cn : recipes().at(metric).front().counters) {
    if (!s.empty()) s += ',';
    s += cn;
  }
  return s;
}

std::vector<std::string> ncu_required_options() {
  return {"--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none", "--cache-control", "all"};
}

std::set<MetricId> parse_metric_ids(const std::string& csv, const std::string& what) {
  std::set<MetricId> out;
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto id = metric_from_key(item);
    if (!id) {
      std::string known;
      for (const auto& m : metric_table()) {
        if (!known.empty()) known += ", ";
        known += m.key;
      }
      throw InputError("", what, "unknown metric id '" + item + "' (known: " + known + ")");
    }
    out.insert(*id);
  }
  return out;
}

MeasuredEvidence::Problem parse_problem(const std::string& text, const std::string& what) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(R"(\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?)")))
    throw InputError("", what, "expected M,N or M,N,BATCH (positive integers), found '" + text + "'");
  MeasuredEvidence::Problem p;
  p.m = std::stoll(m[1]);
  p.n = std::stoll(m[2]);
  p.batch = m[3].matched ? std::stoll(m[3]) : 1;
  if (p.m <= 0 || p.n <= 0 || p.batch <= 0) throw InputError("", what, "M, N and BATCH must be positive");
  return p;
}

KernelSignature derive_signature(const NcuTable& table, const NcuRow& row, const DeriveOptions& options) {
  const RowCounters rc(table, row);
  KernelSignature k;
  k.name = *table.text(row, "Kernel Name");
  k.ncu_id = *table.text(row, "ID");
  k.launch = read_geometry(table, row, rc);
  if (rc.state(c::kDuration) == RowCounters::State::kPresent) k.duration_ns = rc.get(c::kDuration);
  if (rc.state(c::kSmClock) == RowCounters::State::kPresent) k.sm_clock_hz = rc.get(c::kSmClock);

  std::vector<std::string> missing;  // one line per metric we could not derive
  for (const MetricInfo& m : metric_table()) {
    const auto i = index_of(m.id);
    if (options.unmeasurable.count(m.id)) {
      k.unmeasured_reason[i] = "marked unmeasurable for this platform";
      continue;
    }
    const auto& alternatives = recipes().at(m.id);
    const Recipe* chosen = nullptr;
    for (const Recipe& r : alternatives) {
      bool ok = true;
      for (auto cn : r.counters) ok = ok && rc.state(cn) == RowCounters::State::kPresent;
      if (ok) {
        chosen = &r;
        break;
      }
    }
    if (!chosen) {
      std::vector<std::string_view> absent, na;
      for (auto cn : alternatives.front().counters) {
        const auto st = rc.state(cn);
        if (st == RowCounters::State::kMissing) absent.push_back(cn);
        if (st == RowCounters::State::kNotAvailable) na.push_back(cn);
      }
      std::string why;
      if (!absent.empty()) why += "missing counter(s) " + join(absent, ", ");
      if (!na.empty()) why += std::string(why.empty() ? "" : "; ") + "n/a value(s) for " + join(na, ", ");
      if (alternatives.size() > 1) why += " (and no complete alternative set)";
      k.unmeasured_reason[i] = why;
      missing.push_back(std::string(m.key) + ": " + why);
      continue;
    }
    const Get get = [&](std::string_view cn) {
      const double v = rc.get(cn);
      k.counters[std::string(cn)] = v;
      return v;
    };
    k.values[i] = chosen->compute(get);
    k.formula[i] = chosen->formula;
  }
  // What an operator's mean weighs this kernel by (operator_scope.h), kept whether or not a
  // recipe read it; a profile without them (collected before they were listed) lacks them.
  for (const auto cn : {c::kL1Sectors, c::kL2Sectors, c::kLdSectors, c::kInst, c::kDramRead, c::kDramWrite})
    if (rc.state(cn) == RowCounters::State::kPresent) k.counters[std::string(cn)] = rc.get(cn);

  if (!missing.empty() && !options.partial) {
    std::string msg = "kernel '" + k.name + "' (ID " + k.ncu_id + ", line " + std::to_string(row.line) +
                      "): cannot derive " + std::to_string(missing.size()) + " metric(s):";
    for (const auto& l : missing) msg += "\n  " + l;
    msg += "\nprofile with the list from `vxsynth signature --metrics-list`, mark metrics the platform lacks with "
           "--unmeasurable ID,..., or pass --partial to record them as unmeasured";
    if (table.layout() == NcuLayout::kDetails)
      msg += "\nthis profile is ncu's details layout (one row per metric), which was read; it lacks these raw "
             "counters (a details page of sections carries display names, not counters): " +
             std::string(kNcuRawExportHint);
    throw InputError(table.source(), "", msg);
  }

  // Kernel-name reading, checked against geometry and counters.
  MeasuredEvidence ev;
  ev.problem = options.problem;
  if (k.launch) {
    ev.block_size = k.launch->block_size;
    ev.grid_size = k.launch->grid_size;
    ev.grid_dims = k.launch->grid;
    const auto cx = geometry_value(rc, "launch__cluster_dim_x"), cy = geometry_value(rc, "launch__cluster_dim_y"),
               cz = geometry_value(rc, "launch__cluster_dim_z");
    if (cx && cy && cz && *cx > 0) ev.cluster_dims = std::array<long long, 3>{*cx, *cy, *cz};
  }
  auto opt = [&](std::string_view cn) -> std::optional<double> {
    if (rc.state(cn) != RowCounters::State::kPresent) return std::nullopt;
    return rc.get(cn);
  };
  ev.tensor_ops_bf16 = opt(c::kTensorBf16);
  ev.tensor_ops_fp16 = opt(c::kTensorFp16);
  ev.tensor_ops_tf32 = opt(c::kTensorTf32);
  ev.tensor_ops_fp8 = opt(c::kTensorFp8);
  ev.gmma_instructions = opt(c::kGmmaInst);
  if (auto ffma = opt(c::kFfma)) ev.fp32_thread_instructions = *ffma + opt(c::kFadd).value_or(0) + opt(c::kFmul).value_or(0);
  k.name_reading = read_kernel_name(k.name);
  reconcile(k.name_reading, ev);
  const EngineVerdict verdict = decide_engine(k.name_reading, ev);
  k.engine = verdict.engine;
  k.engine_basis = verdict.basis;
  return k;
}

std::vector<KernelSignature> derive_signatures(const NcuTable& table, const DeriveOptions& options,
                                               const std::string& kernel_regex) {
  std::optional<std::regex> re;
  if (!kernel_regex.empty()) {
    try {
      re.emplace(kernel_regex);
    } catch (const std::regex_error& e) {
      throw InputError("", "--kernel", "not a valid regular expression: '" + kernel_regex + "' (" + e.what() + ")");
    }
  }
  std::vector<KernelSignature> out;
  for (const NcuRow& row : table.rows()) {
    const std::string name = *table.text(row, "Kernel Name");
    if (re && !std::regex_search(name, *re)) continue;
    out.push_back(derive_signature(table, row, options));
  }
  return out;
}

}  // namespace vxsynth::signature
