#include "refine/vortex_signature.h"

#include <algorithm>

#include "common/error.h"

namespace vxsynth::refine {

namespace {

using signature::MetricId;

double num(const Json& j, const char* key, const std::string& source, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) {
    throw InputError(source, where + "." + key, "expected a number (a `sim run --timing vortex2 --json` document)");
  }
  return j[key].get<double>();
}

}  // namespace

signature::KernelSignature vortex_signature(const Json& doc, const std::string& source,
                                            const VortexSignatureOptions& options) {
  if (!doc.is_object() || !doc.contains("timing") || !doc["timing"].is_object()) {
    throw InputError(source, "timing",
                     "no timing counters: the Vortex-side signature needs a run with --timing vortex2");
  }
  if (!doc.contains("counters") || !doc["counters"].is_object()) {
    throw InputError(source, "counters", "missing the functional counters");
  }
  if (!(options.clock_mhz > 0.0)) throw InputError(source, "clock_mhz", "expected a clock above 0 MHz");
  const Json& t = doc["timing"];
  const Json& total = t["total"];
  const Json& fun = doc["counters"]["total"];
  const Json& machine = t["machine"];
  const Json& params = t["params"];

  signature::KernelSignature k;
  k.name = doc.value("kernel", source);
  k.ncu_id = "";
  std::map<std::string, double>& c = k.counters;
  const double cycles = num(t, "cycles", source, "timing");
  const double cores = num(machine, "cores", source, "timing.machine");
  const double warps = num(machine, "warps", source, "timing.machine");
  const double issue_width = num(params, "issue_width", source, "timing.params");
  const double warp_issues = num(total, "warp_issues", source, "timing.total");
  const double clock_hz = options.clock_mhz * 1e6;
  c["cycles"] = cycles;
  c["clock_hz"] = clock_hz;
  c["warp_issues"] = warp_issues;
  auto set = [&](MetricId id, double value, std::string formula) {
    k.values[signature::index_of(id)] = value;
    k.formula[signature::index_of(id)] = std::move(formula);
  };
  auto unmeasured = [&](MetricId id, std::string why) { k.unmeasured_reason[signature::index_of(id)] = std::move(why); };

  // Where traffic is served.
  const Json& dcache = t["dcache"];
  const double dreads = num(dcache, "reads", source, "timing.dcache");
  const double dmisses = num(dcache, "read_misses", source, "timing.dcache");
  c["dcache.reads"] = dreads;
  c["dcache.read_misses"] = dmisses;
  set(MetricId::kL1HitRate, dreads > 0 ? 100.0 * (1.0 - dmisses / dreads) : 0.0,
      "100 * (1 - dcache read misses / dcache reads) (0: no L1 data traffic)");
  if (t["l2"].is_object()) {
    const double r = num(t["l2"], "reads", source, "timing.l2");
    const double m = num(t["l2"], "read_misses", source, "timing.l2");
    c["l2.reads"] = r;
    c["l2.read_misses"] = m;
    set(MetricId::kL2HitRate, r > 0 ? 100.0 * (1.0 - m / r) : 0.0, "100 * (1 - l2 read misses / l2 reads)");
  } else {
    unmeasured(MetricId::kL2HitRate, "this Vortex configuration has no L2 (timing parameter l2_enable=0)");
  }
  const double load_bytes = num(total, "global_load_bytes", source, "timing.total");
  const double sectors = num(total, "global_load_sectors", source, "timing.total");
  c["global_load_bytes"] = load_bytes;
  c["global_load_sectors"] = sectors;
  set(MetricId::kCoalescing, sectors > 0 ? 100.0 * load_bytes / (32.0 * sectors) : 0.0,
      "100 * global load bytes / (32 * distinct 32-byte sectors per warp load) (0: no global loads)");

  // Engine and commit.
  const double slots = cycles * cores * issue_width;
  set(MetricId::kComputeThroughput, slots > 0 ? 100.0 * warp_issues / slots : 0.0,
      "100 * issued warp micro-instructions / (cycles * cores * issue width)");
  const double uops = num(total["tensor"], "uops", source, "timing.total.tensor");
  c["tcu_uops"] = uops;
  set(MetricId::kTensorUtilization, slots > 0 ? 100.0 * uops / slots : 0.0,
      "100 * tensor micro-ops / (cycles * cores * tensor units)");
  const double warp_instrs = num(fun, "warp_instructions", source, "counters.total");
  const double atomics = fun["by_class"]["atomic"].value("warp", 0.0);
  c["warp_instructions"] = warp_instrs;
  c["atomic_warp_instructions"] = atomics;
  set(MetricId::kAtomicsPerInstruction, warp_instrs > 0 ? atomics / warp_instrs : 0.0,
      "atomic warp instructions / warp instructions");

  // Work per byte.
  const Json& mem = t["memory"];
  const double bytes = num(mem, "bytes_read", source, "timing.memory") + num(mem, "bytes_written", source, "timing.memory");
  const double fp = num(total, "fp_flops", source, "timing.total");
  const double tensor_flops = fun["tensor"].value("flops", 0.0);
  c["memory_bytes"] = bytes;
  c["fp_flops"] = fp;
  c["tensor_flops"] = tensor_flops;
  set(MetricId::kArithmeticIntensity, (fp + tensor_flops) / std::max(32.0, bytes),
      "(FP32 add/sub/mul + 2 FMA per lane + tensor FLOPs) / max(32, memory bytes read + written)");
  const double seconds = cycles / clock_hz;
  set(MetricId::kDramBandwidth, seconds > 0 ? bytes / seconds : 0.0,
      "memory bytes / (cycles / clock_hz), clock " + std::to_string(options.clock_mhz) + " MHz");

  // Machine busy.
  set(MetricId::kActiveLaneFraction, num(fun, "active_lane_fraction", source, "counters.total"),
      "thread-instructions / (warp instructions * threads per warp)");
  const double warp_cycles = num(total, "active_warp_cycles", source, "timing.total");
  c["active_warp_cycles"] = warp_cycles;
  set(MetricId::kOccupancy, cycles > 0 ? 100.0 * warp_cycles / (cycles * cores * warps) : 0.0,
      "100 * active warps summed over cycles / (cycles * cores * warps per core)");

  k.duration_ns = seconds * 1e9;
  k.sm_clock_hz = clock_hz;
  k.engine = uops > 0 ? signature::EngineClass::kTensorCore : signature::EngineClass::kSimt;
  k.engine_basis = "counters (vortex2 timing model: tensor micro-ops)";
  return k;
}

}  // namespace vxsynth::refine
