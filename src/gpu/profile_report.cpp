#include "gpu/profile_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "common/error.h"

namespace vxsynth::gpu {
namespace {

using signature::kMetricCount;

std::optional<unsigned long long> stream_of(const signature::NcuTable& table, const signature::NcuRow& row) {
  for (const char* column : {"Stream", "launch__stream_id"}) {
    const auto text = table.text(row, column);
    if (!text) continue;
    if (const auto v = signature::parse_ncu_number(*text)) return static_cast<unsigned long long>(*v);
  }
  return std::nullopt;
}

std::optional<long long> process_of(const signature::NcuTable& table, const signature::NcuRow& row) {
  const auto text = table.text(row, "Process ID");
  if (!text) return std::nullopt;
  if (const auto v = signature::parse_ncu_number(*text)) return static_cast<long long>(*v);
  return std::nullopt;
}

std::string fmt(double v, int precision = 4) {
  std::ostringstream ss;
  ss.setf(std::ios::fixed);
  ss.precision(precision);
  ss << v;
  return ss.str();
}

// Right-aligned in `width` columns.
std::string printf_pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string ncu_kernel_filter(const std::vector<std::string>& only_kernels) {
  if (only_kernels.empty()) return "";
  std::set<std::string> names;
  for (const auto& k : only_kernels) {
    const bool identifier = !k.empty() && (std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_') &&
                            std::all_of(k.begin(), k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!identifier) throw InputError("kernel filter: \"" + k + "\" is not a kernel function name (a C identifier)");
    names.insert(k);
  }
  // ncu matches the function base name (no parameters, no template arguments); an optional
  // namespace prefix keeps the match whether or not ncu includes it. Anchored at both ends so
  // that it means the same under full-match and search semantics.
  std::string alternatives;
  for (const auto& n : names) alternatives += (alternatives.empty() ? "" : "|") + n;
  return "regex:^(.*::)?(" + alternatives + ")$";
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& harness, const std::string& job,
                                     const std::vector<std::string>& only_kernels) {
  std::vector<std::string> argv = {ncu, "--target-processes", "all", "--nvtx", "--nvtx-include",
                                   std::string(kProfileRange) + "/", "--metrics", signature::ncu_metrics_argument()};
  for (const auto& o : signature::ncu_required_options()) argv.push_back(o);
  if (const auto filter = ncu_kernel_filter(only_kernels); !filter.empty()) {
    argv.insert(argv.end(), {"--kernel-name-base", "function", "--kernel-name", filter});
  }
  argv.push_back(harness);
  argv.push_back(job);
  return argv;
}

ProfileMapping map_profile(const signature::NcuTable& table, const std::vector<LaunchRecord>& launches,
                           const signature::DeriveOptions& options) {
  if (launches.empty()) throw WorkError("the harness recorded no profiled launch");
  const auto& rows = table.rows();
  if (rows.empty()) {
    throw WorkError(table.source() + ": ncu profiled no kernel (is the NVTX filter \"" +
                    std::string(kProfileRange) + "/\" matching? see ncu.log)");
  }
  // Candidates launch in the runner process and the vendor operator in the harness: stream ids
  // are per process, so a row is keyed by (process, stream) when ncu names the process and the
  // launches carry theirs.
  const bool by_process = std::all_of(launches.begin(), launches.end(), [](const LaunchRecord& l) { return l.pid != 0; }) &&
                          !rows.empty() && process_of(table, rows.front()).has_value();
  using Key = std::pair<long long, unsigned long long>;
  std::vector<Key> row_stream;
  for (const auto& row : rows) {
    const auto s = stream_of(table, row);
    if (!s) throw WorkError(table.source() + ": line " + std::to_string(row.line) + " has no numeric Stream column");
    long long pid = 0;
    if (by_process) {
      const auto p = process_of(table, row);
      if (!p) throw WorkError(table.source() + ": line " + std::to_string(row.line) + " has no numeric Process ID");
      pid = *p;
    }
    row_stream.push_back({pid, *s});
  }
  std::set<long long> launch_pids;
  for (const auto& l : launches) launch_pids.insert(by_process ? l.pid : 0);
  // A runner killed in the middle of a profiled launch (a candidate that never returned) may
  // leave rows of a process that recorded no launch: they belong to nobody.
  constexpr std::size_t kNobody = static_cast<std::size_t>(-1);
  std::map<Key, std::size_t> by_id;
  for (std::size_t i = 0; i < launches.size(); ++i) by_id[{by_process ? launches[i].pid : 0, launches[i].stream_id}] = i;
  ProfileMapping mapping;
  mapping.launches.resize(launches.size());
  for (std::size_t i = 0; i < launches.size(); ++i) mapping.launches[i].launch = launches[i];
  std::vector<std::size_t> owner(rows.size());
  const std::size_t known = static_cast<std::size_t>(std::count_if(
      row_stream.begin(), row_stream.end(), [&](const Key& s) { return by_id.count(s) != 0; }));
  if (known > 0) {
    // Rows on the harness's streams go to their launch. Some libraries launch on streams of
    // their own (cuDNN does for grouped convolutions); ncu serializes and the harness waits
    // for each launch, so such rows belong to a launch between the launches of the known rows
    // around them: the one launch there that has no row of its own, else the earlier one.
    mapping.method = known == rows.size() ? "stream id" : "stream id, library-internal streams by launch order";
    std::vector<std::ptrdiff_t> launch_of(rows.size(), -1);
    std::vector<bool> has_known_row(launches.size(), false);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (by_id.count(row_stream[r])) {
        launch_of[r] = static_cast<std::ptrdiff_t>(by_id[row_stream[r]]);
        has_known_row[by_id[row_stream[r]]] = true;
      }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (launch_of[r] >= 0) {
        owner[r] = static_cast<std::size_t>(launch_of[r]);
        continue;
      }
      if (!launch_pids.count(row_stream[r].first)) {
        owner[r] = kNobody;
        continue;
      }
      std::ptrdiff_t prev = -1, next = static_cast<std::ptrdiff_t>(launches.size());
      for (std::size_t q = r; q-- > 0;) {
        if (launch_of[q] >= 0) {
          prev = launch_of[q];
          break;
        }
      }
      for (std::size_t q = r + 1; q < rows.size(); ++q) {
        if (launch_of[q] >= 0) {
          next = launch_of[q];
          break;
        }
      }
      std::vector<std::size_t> empty_between;
      for (std::ptrdiff_t i = prev + 1; i < next; ++i) {
        const auto& l = launches[static_cast<std::size_t>(i)];
        // Only a launch of the row's own process can own it (a candidate that ran no kernel
        // must not take the vendor library's rows).
        if (by_process && l.pid != row_stream[r].first) continue;
        if (!has_known_row[static_cast<std::size_t>(i)]) empty_between.push_back(static_cast<std::size_t>(i));
      }
      if (empty_between.size() == 1) {
        owner[r] = empty_between.front();
      } else if (empty_between.empty() && prev >= 0) {
        owner[r] = static_cast<std::size_t>(prev);
      } else {
        throw WorkError(table.source() + ": line " + std::to_string(rows[r].line) + " ran on stream " +
                        std::to_string(row_stream[r].second) + ", which no launch of the harness used, and " +
                        std::to_string(empty_between.size()) + " launches could own it");
      }
    }
  } else {
    // ncu numbers streams its own way: every launch group has its own stream and ran in order,
    // so the k-th run of equal stream values is the k-th launch.
    mapping.method = "stream order";
    std::size_t run = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (r > 0 && row_stream[r] != row_stream[r - 1]) ++run;
      owner[r] = run;
    }
    if (run + 1 != launches.size()) {
      throw WorkError(table.source() + ": " + std::to_string(run + 1) + " groups of kernels by stream, but the harness made " +
                      std::to_string(launches.size()) + " profiled launches; cannot tell which row is whose");
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (owner[r] == kNobody) continue;
    mapping.launches[owner[r]].kernels.push_back(signature::derive_signature(table, rows[r], options));
  }
  std::vector<ProfiledLaunch> profiled;
  for (auto& l : mapping.launches) {
    if (l.kernels.empty()) {
      mapping.kernelless.push_back(l.launch);
      continue;
    }
    profiled.push_back(std::move(l));
  }
  mapping.launches = std::move(profiled);
  if (mapping.launches.empty()) {
    throw WorkError(table.source() + ": no launch of the harness ran a kernel that ncu profiled");
  }
  for (auto& l : mapping.launches) {
    l.op = signature::aggregate_operator(l.kernels, l.launch.segment, table.source());  // rows are in launch order
    std::stable_sort(l.kernels.begin(), l.kernels.end(), [](const auto& a, const auto& b) {
      return a.duration_ns.value_or(0) > b.duration_ns.value_or(0);
    });
  }
  return mapping;
}

WorkloadReference WorkloadReference::read(const std::string& file) {
  WorkloadReference r;
  r.file = file;
  r.kernel = signature::read_signatures(file).at(0).values;
  const Json j = read_json_file(file);
  if (j.contains("operator") && j["operator"].is_object())
    r.op = signature::OperatorSignature::from_json(j["operator"], file, "operator");
  return r;
}

namespace {

std::optional<double> ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b;
}

// Means over a segment's launches of the operator's time and DRAM bytes.
std::pair<double, std::optional<double>> operator_totals(const std::vector<const ProfiledLaunch*>& launches) {
  double ns = 0, bytes = 0;
  bool all_bytes = true;
  for (const auto* l : launches) {
    ns += l->op.duration_ns;
    if (l->op.dram_bytes) bytes += *l->op.dram_bytes;
    else all_bytes = false;
  }
  const double n = static_cast<double>(launches.size());
  return {ns / n, all_bytes ? std::optional<double>(bytes / n) : std::nullopt};
}

}  // namespace

ProfileSummary summarize_profile(const ProfileMapping& mapping, const signature::DistanceConfig& config,
                                 const WorkloadReferences& workload, signature::Scope scope) {
  using signature::Scope;
  if (scope == Scope::kOperator && !mapping.every_kernel)
    throw WorkError("operator scope needs every kernel of each launch profiled, and this job profiled only some "
                    "(ncu --kernel-name): summarise it at kernel scope");
  if (scope == Scope::kOperator)
    for (const auto& [op, w] : workload)
      if (!w.op)
        throw InputError(w.file, "operator",
                         "missing: this workload reference names its hot kernel only; write it again with "
                         "`python3 -m vxsynth.capture --finalize`, or compare at kernel scope");
  const Scope other = signature::other_scope(scope);
  ProfileSummary summary;
  summary.scope = scope;
  summary.mapping_method = mapping.method;
  summary.retention_margin = config.retention_margin;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ProfiledLaunch*>> groups;
  for (const auto& l : mapping.launches) {
    if (!groups.count(l.launch.segment)) order.push_back(l.launch.segment);
    groups[l.launch.segment].push_back(&l);
  }
  std::map<std::string, const std::vector<const ProfiledLaunch*>*> reference_of_op;
  for (const auto& [segment, launches] : groups) {
    if (launches.front()->launch.candidate == kReferenceName) reference_of_op[launches.front()->launch.op] = &launches;
  }
  for (const auto& segment : order) {
    const auto& launches = groups[segment];
    SegmentSummary s;
    s.segment = segment;
    s.op = launches.front()->launch.op;
    s.candidate = launches.front()->launch.candidate;
    s.primary_kernel = launches.front()->primary().name;
    std::set<std::string> others;
    for (const auto* l : launches) {
      for (std::size_t k = 1; k < l->kernels.size(); ++k) others.insert(l->kernels[k].name);
    }
    s.other_kernels.assign(others.begin(), others.end());
    s.repeats = static_cast<int>(launches.size());
    double duration = 0;
    for (const auto* l : launches) duration += l->primary().duration_ns.value_or(0);
    s.duration_ns_mean = duration / static_cast<double>(launches.size());
    std::tie(s.operator_duration_ns_mean, s.operator_dram_bytes_mean) = operator_totals(launches);
    for (std::size_t m = 0; m < kMetricCount; ++m) {
      std::vector<double> v;
      for (const auto* l : launches) {
        if (l->at(scope).values[m]) v.push_back(*l->at(scope).values[m]);
      }
      MetricSpread& sp = s.metrics[m];
      sp.n = static_cast<int>(v.size());
      if (v.empty()) continue;
      sp.min = *std::min_element(v.begin(), v.end());
      sp.max = *std::max_element(v.begin(), v.end());
      for (double x : v) sp.mean += x;
      sp.mean /= static_cast<double>(v.size());
      for (double x : v) sp.stddev += (x - sp.mean) * (x - sp.mean);
      sp.stddev = v.size() > 1 ? std::sqrt(sp.stddev / static_cast<double>(v.size() - 1)) : 0;
      sp.spread_distance = signature::metric_distance(signature::metric_table()[m], sp.max, sp.min, config);
    }
    for (std::size_t i = 0; i < launches.size(); ++i) {
      for (std::size_t j = i + 1; j < launches.size(); ++j) {
        const auto d = signature::compute_distance(launches[i]->at(scope).values, launches[j]->at(scope).values, config).d;
        if (d) {
          s.d_between_repeats.push_back(*d);
          summary.max_d_between_repeats = std::max(summary.max_d_between_repeats, *d);
        }
      }
    }
    if (s.candidate != kReferenceName && reference_of_op.count(s.op)) {
      const auto& refs = *reference_of_op[s.op];
      // Mean of each metric over the repeats, both sides: the steadier single figure for D.
      signature::MetricValues cand_mean{}, ref_mean{};
      for (std::size_t m = 0; m < kMetricCount; ++m) {
        if (s.metrics[m].n > 0) cand_mean[m] = s.metrics[m].mean;
        double sum = 0;
        int n = 0;
        for (const auto* r : refs) {
          if (r->at(scope).values[m]) {
            sum += *r->at(scope).values[m];
            ++n;
          }
        }
        if (n > 0) ref_mean[m] = sum / n;
      }
      s.d_of_means = signature::compute_distance(cand_mean, ref_mean, config).d;
      for (std::size_t i = 0; i < launches.size(); ++i) {
        const auto& ref = refs[std::min(i, refs.size() - 1)]->at(scope);
        const auto d = signature::compute_distance(launches[i]->at(scope).values, ref.values, config).d;
        if (d) s.d_to_reference.push_back(*d);
      }
      const auto [ref_ns, ref_bytes] = operator_totals(refs);
      s.time_ratio = ratio(s.operator_duration_ns_mean, ref_ns);
      s.dram_ratio = ratio(s.operator_dram_bytes_mean, ref_bytes);
      if (s.d_to_reference.size() > 1) {
        const auto [lo, hi] = std::minmax_element(s.d_to_reference.begin(), s.d_to_reference.end());
        summary.max_d_spread = std::max(summary.max_d_spread, *hi - *lo);
      }
    }
    if (const auto w = workload.find(s.op); w != workload.end() && s.candidate != kReferenceName) {
      const WorkloadReference& ref = w->second;
      s.workload_reference = ref.file;
      auto values_at = [&](Scope sc) -> std::optional<signature::MetricValues> {
        if (sc == Scope::kKernel) return ref.kernel;
        if (ref.op) return ref.op->signature.values;
        return std::nullopt;
      };
      for (const auto* l : launches) {
        if (const auto d = signature::compute_distance(l->at(scope).values, *values_at(scope), config).d) s.d_to_workload.push_back(*d);
        if (!mapping.every_kernel && other == Scope::kOperator) continue;
        if (const auto v = values_at(other))
          if (const auto d = signature::compute_distance(l->at(other).values, *v, config).d) s.d_to_workload_other_scope.push_back(*d);
      }
      if (ref.op) {
        s.workload_time_ratio = ratio(s.operator_duration_ns_mean, ref.op->duration_ns);
        s.workload_dram_ratio = ratio(s.operator_dram_bytes_mean, ref.op->dram_bytes);
      }
    }
    summary.segments.push_back(std::move(s));
  }
  return summary;
}

Json ProfileSummary::to_json() const {
  Json j;
  j["schema"] = schema_id("gpu-profile-summary", 1);
  j["scope"] = signature::scope_key(scope);
  j["mapping"] = mapping_method;
  j["retention_margin"] = retention_margin;
  j["noise"] = {{"max_d_between_repeats", max_d_between_repeats},
                {"max_d_to_reference_spread", max_d_spread},
                {"below_retention_margin", std::max(max_d_between_repeats, max_d_spread) < retention_margin}};
  j["segments"] = Json::array();
  for (const auto& s : segments) {
    Json sj{{"segment", s.segment}, {"op", s.op}, {"candidate", s.candidate}, {"primary_kernel", s.primary_kernel},
            {"other_kernels", s.other_kernels}, {"repeats", s.repeats}, {"duration_ns_mean", s.duration_ns_mean},
            {"operator_duration_ns_mean", s.operator_duration_ns_mean}};
    auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
    sj["operator_dram_bytes_mean"] = opt(s.operator_dram_bytes_mean);
    sj["time_ratio"] = opt(s.time_ratio);
    sj["dram_ratio"] = opt(s.dram_ratio);
    Json metrics = Json::object();
    for (std::size_t m = 0; m < kMetricCount; ++m) {
      const auto& sp = s.metrics[m];
      const std::string key(signature::metric_table()[m].key);
      if (sp.n == 0) {
        metrics[key] = nullptr;
        continue;
      }
      metrics[key] = {{"n", sp.n}, {"mean", sp.mean}, {"min", sp.min}, {"max", sp.max}, {"stddev", sp.stddev},
                      {"spread_distance", sp.spread_distance}};
    }
    sj["metrics"] = metrics;
    if (!s.d_to_reference.empty()) sj["d_to_reference"] = s.d_to_reference;
    if (s.d_of_means) sj["d_of_means"] = *s.d_of_means;
    if (!s.d_between_repeats.empty()) sj["d_between_repeats"] = s.d_between_repeats;
    if (!s.workload_reference.empty()) {
      sj["workload_reference"] = s.workload_reference;
      sj["d_to_workload"] = s.d_to_workload;
      sj["d_to_workload_" + std::string(signature::scope_key(signature::other_scope(scope)))] = s.d_to_workload_other_scope;
      sj["workload_time_ratio"] = opt(s.workload_time_ratio);
      sj["workload_dram_ratio"] = opt(s.workload_dram_ratio);
    }
    j["segments"].push_back(sj);
  }
  return j;
}

std::string ProfileSummary::text() const {
  std::ostringstream out;
  const bool any_workload =
      std::any_of(segments.begin(), segments.end(), [](const auto& s) { return !s.d_to_workload.empty(); });
  const bool op_scope = scope == signature::Scope::kOperator;
  auto ratio_text = [](const std::optional<double>& r) { return r ? fmt(*r, 2) + "x" : std::string("   -"); };
  auto mean_of = [](const std::vector<double>& v) {
    double m = 0;
    for (double d : v) m += d;
    return v.empty() ? 0.0 : m / static_cast<double>(v.size());
  };
  out << "scope: " << signature::scope_key(scope)
      << (op_scope ? " (every kernel of a launch; op us is their summed time, time and bytes are over the vendor's)"
                   : " (each launch's longest kernel)")
      << "\n";
  out << "segment                                   kernel (longest)                                  kern us    op us   D(ref)  D spread  D(means)  time  bytes"
      << (any_workload ? "  D(suite) [min, max]" : "") << (any_workload && op_scope ? "  kernel D(suite)" : "") << "\n";
  for (const auto& s : segments) {
    std::string seg = s.segment.substr(0, 40);
    seg.resize(42, ' ');
    std::string kern = s.primary_kernel.substr(0, 48);
    kern.resize(50, ' ');
    out << seg << kern << " " << printf_pad(fmt(s.duration_ns_mean / 1000.0, 1), 7) << " "
        << printf_pad(fmt(s.operator_duration_ns_mean / 1000.0, 1), 8);
    if (!s.d_to_reference.empty()) {
      const auto [lo, hi] = std::minmax_element(s.d_to_reference.begin(), s.d_to_reference.end());
      out << "  " << fmt(median(s.d_to_reference)) << "  " << fmt(*hi - *lo) << "    "
          << (s.d_of_means ? fmt(*s.d_of_means) : std::string("     -"));
    } else {
      out << "       -         -         -";
    }
    // Against the workload's operator when there is one, else the in-job vendor operator.
    const bool wl = s.workload_time_ratio.has_value();
    out << "  " << ratio_text(wl ? s.workload_time_ratio : s.time_ratio) << "  "
        << ratio_text(wl ? s.workload_dram_ratio : s.dram_ratio);
    if (!s.d_to_workload.empty()) {
      const auto [lo, hi] = std::minmax_element(s.d_to_workload.begin(), s.d_to_workload.end());
      out << "  " << fmt(mean_of(s.d_to_workload)) << " [" << fmt(*lo) << ", " << fmt(*hi) << "]";
      if (op_scope && !s.d_to_workload_other_scope.empty()) out << "  " << fmt(mean_of(s.d_to_workload_other_scope));
    }
    out << "\n";
  }
  const bool any_d = std::any_of(segments.begin(), segments.end(), [](const auto& s) { return !s.d_to_reference.empty(); });
  if (any_d) {
    // Said because it misleads: the isolated vendor launch can differ from the workload's own
    // (diffusion_policy-4's lock: 0.0365 against this job's cuDNN run, 0.0184 against the suite's).
    out << "D(ref): to the vendor operator profiled in this job, in isolation; a suite benchmark's D is to its workload "
           "reference (" << (any_workload ? "D(suite)" : "--suite SUITE, or vxsynth distance --suite SUITE SIGNATURE") << ")\n";
  }
  if (any_workload) {
    out << "D(suite): the mean over repeats of D to the workload reference the op names (SUITE/<op>/reference.json), as the "
           "suite table's final D"
        << (op_scope ? "; kernel D(suite): the same between longest kernels (the paper's scope)" : "") << "\n";
  }
  out << "time, bytes: the operator's summed kernel time and DRAM bytes over the workload reference's operator (or, "
         "without one, over this job's vendor operator)\n";
  out << "noise: largest D between repeats of one " << (op_scope ? "operator " : "kernel ") << fmt(max_d_between_repeats, 5)
      << ", largest spread of D to the reference " << fmt(max_d_spread, 5) << " (retention margin "
      << fmt(retention_margin, 3) << ")\n";
  return out.str();
}

}  // namespace vxsynth::gpu
