#include "signature/format.h"

#include <cstdio>
#include <sstream>

namespace vxsynth::signature {

namespace {
std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
std::string dims(const std::array<long long, 3>& d) {
  std::string s = "(";
  s += std::to_string(d[0]);
  s += ',';
  s += std::to_string(d[1]);
  s += ',';
  s += std::to_string(d[2]);
  s += ')';
  return s;
}
}  // namespace

std::string format_value(const MetricInfo& m, double v) {
  switch (m.unit) {
    case Unit::kPercent: return printf_string("%.2f %%", v);
    case Unit::kFraction: return printf_string("%.4f", v);
    case Unit::kRatio: return printf_string("%.4g", v);
    case Unit::kFlopPerByte: return printf_string("%.4g FLOP/B", v);
    case Unit::kBytePerSecond:
      if (v >= 1e12) return printf_string("%.3f TB/s", v / 1e12);
      if (v >= 1e9) return printf_string("%.3f GB/s", v / 1e9);
      return printf_string("%.4g B/s", v);
  }
  return printf_string("%g", v);
}

std::string format_signature(const KernelSignature& k) {
  std::ostringstream o;
  o << "kernel " << (k.ncu_id.empty() ? "" : "[ID " + k.ncu_id + "] ") << k.name << "\n";
  o << "  engine class: " << engine_key(k.engine) << " (" << k.engine_basis << ")\n";
  if (k.launch) {
    const auto& l = *k.launch;
    o << "  launch: grid " << dims(l.grid) << " = " << l.grid_size << " blocks, block " << dims(l.block) << " = "
      << l.block_size << " threads";
    if (l.registers_per_thread) o << ", " << *l.registers_per_thread << " registers/thread";
    if (l.shared_static_bytes || l.shared_dynamic_bytes)
      o << ", shared memory " << l.shared_static_bytes.value_or(0) << " B static + " << l.shared_dynamic_bytes.value_or(0)
        << " B dynamic";
    o << "\n";
  } else {
    o << "  launch: unknown (no launch__* or Grid/Block Size columns)\n";
  }
  if (k.duration_ns) o << "  duration: " << printf_string("%.3f us", *k.duration_ns / 1000.0);
  if (k.sm_clock_hz) o << " at SM clock " << printf_string("%.3f GHz", *k.sm_clock_hz / 1e9);
  if (k.duration_ns) o << "\n";
  for (std::size_t g = 0; g < kGroupCount; ++g) {
    o << "  " << group_title(static_cast<PressureGroup>(g)) << "\n";
    for (const MetricInfo& m : metric_table()) {
      if (static_cast<std::size_t>(m.group) != g) continue;
      const auto i = index_of(m.id);
      char label[40];
      std::snprintf(label, sizeof label, "    %-24s", std::string(m.key).c_str());
      o << label;
      if (k.values[i])
        o << format_value(m, *k.values[i]) << "\n";
      else
        o << "unmeasured (" << k.unmeasured_reason[i] << ")\n";
    }
  }
  const auto& r = k.name_reading;
  o << "  kernel name (" << r.family << "):";
  if (r.properties.empty()) o << " nothing recognised";
  for (const auto& p : r.properties) {
    if (p.key == "engine") continue;
    o << " " << p.key << "=" << (p.check == Agreement::kContradicted ? "unknown(read " + p.value + ")" : p.value);
    o << " [" << provenance_key(p.provenance);
    if (p.check != Agreement::kUnchecked) o << ", " << check_key(p.check);
    o << "]";
  }
  o << "\n";
  return o.str();
}

std::string format_operator(const OperatorSignature& op) {
  std::ostringstream o;
  o << "operator " << op.signature.name << ": " << op.kernels.size() << " kernel" << (op.kernels.size() == 1 ? "" : "s")
    << ", " << printf_string("%.3f us", op.duration_ns / 1000.0);
  if (op.dram_bytes) o << ", " << printf_string("%.0f", *op.dram_bytes) << " DRAM bytes";
  o << "\n";
  for (const auto& k : op.kernels) {
    o << "  " << (k.ncu_id.empty() ? "" : "[ID " + k.ncu_id + "] ") << printf_string("%8.3f us", k.duration_ns / 1000.0);
    if (k.dram_bytes) o << printf_string(" %12.0f B", *k.dram_bytes);
    o << "  " << k.name.substr(0, 100) << "\n";
  }
  // The kernel view's lines, less those the operator has no use for (its name, one launch, its
  // duration: all said above).
  std::istringstream lines(format_signature(op.signature));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line))
    if (line.rfind("  launch:", 0) != 0 && line.rfind("  duration:", 0) != 0) o << line << "\n";
  for (const MetricInfo& m : metric_table())
    if (!op.approximate[index_of(m.id)].empty())
      o << "  approximate " << m.key << ": " << op.approximate[index_of(m.id)] << "\n";
  return o.str();
}

std::string format_distance(const KernelSignature& candidate, const std::string& candidate_label,
                            const KernelSignature& reference, const std::string& reference_label,
                            const DistanceReport& report, const DistanceConfig& cfg) {
  std::ostringstream o;
  o << "candidate: " << candidate_label << "\n           " << candidate.name << "\n";
  o << "reference: " << reference_label << "\n           " << reference.name << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-26s %16s %16s %9s\n", "metric", "candidate", "reference", "distance");
  o << line;
  std::string left_out;
  for (std::size_t g = 0; g < kGroupCount; ++g) {
    std::snprintf(line, sizeof line, "%s: group sum %.4f over %d metric(s)\n",
                  std::string(group_title(static_cast<PressureGroup>(g))).c_str(), report.group_sum[g],
                  report.group_count[g]);
    o << line;
    for (const MetricInfo& m : metric_table()) {
      if (static_cast<std::size_t>(m.group) != g) continue;
      const auto i = index_of(m.id);
      auto show = [&](const KernelSignature& k) { return k.values[i] ? format_value(m, *k.values[i]) : std::string("-"); };
      const std::string dist = report.per_metric[i] ? printf_string("%.4f", *report.per_metric[i]) : "left out";
      std::snprintf(line, sizeof line, "  %-26s %16s %16s %9s\n", std::string(m.key).c_str(), show(candidate).c_str(),
                    show(reference).c_str(), dist.c_str());
      o << line;
      if (!report.per_metric[i]) {
        left_out += "\n  " + std::string(m.key) + ": ";
        if (!candidate.values[i]) left_out += "candidate " + candidate.unmeasured_reason[i];
        if (!candidate.values[i] && !reference.values[i]) left_out += "; ";
        if (!reference.values[i]) left_out += "reference " + reference.unmeasured_reason[i];
      }
    }
  }
  o << "\n";
  if (report.d)
    o << "D = " << printf_string("%.4f", *report.d) << " (mean over " << report.scored << " of " << kMetricCount
      << " metrics measured on both sides; retention margin " << cfg.retention_margin << ")\n";
  else
    o << "D undefined: no metric is measured on both sides\n";
  if (!left_out.empty()) o << "left out of D:" << left_out << "\n";
  return o.str();
}

}  // namespace vxsynth::signature
