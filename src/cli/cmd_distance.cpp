// vxsynth distance: signature distance of candidates to references. Three forms:
//   CANDIDATE REFERENCE                  one pair, per metric and per group
//   CANDIDATE... --references REF...     a matrix of D (rows candidates, columns references)
//   CANDIDATE... --suite DIR             the nearest references of a suite folder, ranked by D
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "common/error.h"
#include "signature/distance.h"
#include "signature/format.h"
#include "signature/kernel_source.h"
#include "signature/signature.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;
using signature::KernelSignature;

struct DistanceOptions {
  std::vector<std::string> specs, references;
  std::string config, unmeasurable, suite;
  int top = 5;
  bool json = false;
  bool partial = false;
  bool cross_platform = false;
  std::string scope = "kernel";
  signature::Scope scope_of() const { return signature::scope_from_key(scope, "", "--scope"); }
};

// The candidates' and the references' GPUs must be one model (docs/signature.md, "Platforms"),
// unless --cross-platform asks for a comparison of two platforms. Files that name no platform
// (ncu CSV, older signature files) are not checked.
void check_platforms(const DistanceOptions& o, const std::vector<std::string>& candidates, const std::vector<std::string>& references) {
  if (o.cross_platform) return;
  std::vector<signature::Platform> ref_platforms;
  for (const auto& r : references) ref_platforms.push_back(signature::read_platform(r));
  for (const auto& c : candidates) {
    const signature::Platform cp = signature::read_platform(c);
    if (!cp.known()) continue;
    for (std::size_t i = 0; i < references.size(); ++i) {
      const std::string& r = references[i];
      const signature::Platform& rp = ref_platforms[i];
      if (!rp.known() || signature::same_gpu(cp, rp)) continue;
      throw InputError(r, "platform",
                       c + " was profiled on " + signature::describe(cp) + ", " + r + " on " + signature::describe(rp) +
                           ": D across two GPU models compares two platforms. Compare with references of " + cp.gpu +
                           ", or say --cross-platform to compare the platforms on purpose");
    }
  }
}

// One kernel of the matrix or the ranking, with the label that names where it came from.
struct Entry {
  std::string label;      // the spec, or spec#id=N when the file held several kernels
  std::string benchmark;  // for suite references: the benchmark folder's name
  KernelSignature sig;
};

std::vector<Entry> expand(const std::string& spec, const signature::DeriveOptions& options, signature::Scope scope) {
  auto kernels = signature::load_kernel_signatures(spec, options, scope);
  std::vector<Entry> out;
  const bool several = kernels.size() > 1;
  for (auto& k : kernels) {
    std::string label = spec;
    if (several) label += (spec.find('#') == std::string::npos ? "#id=" : " id=") + k.ncu_id;
    out.push_back({label, "", std::move(k)});
  }
  return out;
}

std::vector<Entry> expand_all(const std::vector<std::string>& specs, const signature::DeriveOptions& options,
                              signature::Scope scope) {
  std::vector<Entry> out;
  for (const auto& s : specs)
    for (auto& e : expand(s, options, scope)) out.push_back(std::move(e));
  return out;
}

// The references of a suite folder: every DIR/<benchmark>/reference.json, by benchmark name.
std::vector<Entry> suite_references(const std::string& dir, const signature::DeriveOptions& options, signature::Scope scope) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir, "--suite", "not a folder (expected a suite platform folder such as suite/vx-robotics/h200)");
  std::vector<fs::path> files;
  for (const auto& d : fs::directory_iterator(dir))
    if (d.is_directory() && fs::exists(d.path() / "reference.json")) files.push_back(d.path() / "reference.json");
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(dir, "--suite", "holds no <benchmark>/reference.json");
  std::vector<Entry> out;
  for (const auto& f : files) {
    Entry e{f.string(), f.parent_path().filename().string(), signature::load_kernel_signature(f.string(), options, scope)};
    out.push_back(std::move(e));
  }
  return out;
}

// A spec's name in a table: a suite file (reference.json, signature.json, ...) by its benchmark
// folder, any other file by its stem, with its kernel selector; at most 24 characters.
std::string short_name(const std::string& label) {
  const std::string path = label.substr(0, label.find_first_of("# "));
  const std::string selector = path.size() < label.size() ? label.substr(path.size()) : "";
  const fs::path p(path);
  const std::string file = p.filename().string();
  const bool suite_file = file == "reference.json" || file == "signature.json" || file == "vortex-signature.json";
  std::string name = (suite_file && p.has_parent_path() ? p.parent_path().filename().string() : p.stem().string());
  for (const char ch : selector) name += ch == ' ' ? '#' : ch;
  return name.size() > 24 ? name.substr(0, 23) + "~" : name;
}

template <typename... Args>
std::string strf(const char* format, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

Json entry_json(const Entry& e) {
  Json j{{"source", e.label}, {"name", e.sig.name}};
  if (!e.benchmark.empty()) j["benchmark"] = e.benchmark;
  return j;
}

std::string d_text(const signature::DistanceReport& r) { return r.d ? strf("%.4f", *r.d) : "undefined"; }

// A D that cannot be computed is an error (exit 2), after the rest has been printed.
void fail_on_undefined(const std::vector<std::string>& undefined) {
  if (undefined.empty()) return;
  std::string msg = "D is undefined for " + std::to_string(undefined.size()) +
                    " pair(s): no metric is measured on both sides:";
  for (const auto& u : undefined) msg += "\n  " + u;
  throw InputError("", "", msg);
}

int run_pair(const DistanceOptions& o, const signature::DeriveOptions& options, const signature::DistanceConfig& cfg) {
  check_platforms(o, {o.specs[0]}, {o.specs[1]});
  const auto cand = signature::load_kernel_signature(o.specs[0], options, o.scope_of());
  const auto ref = signature::load_kernel_signature(o.specs[1], options, o.scope_of());
  const auto report = signature::compute_distance(cand.values, ref.values, cfg);
  if (o.json) {
    Json j{{"schema", schema_id("distance", 1)},
           {"candidate", Json{{"source", o.specs[0]}, {"name", cand.name}}},
           {"reference", Json{{"source", o.specs[1]}, {"name", ref.name}}},
           {"config", cfg.to_json()}};
    Json values = Json::object();
    for (const auto& m : signature::metric_table()) {
      const auto i = signature::index_of(m.id);
      values[std::string(m.key)] = Json{{"candidate", cand.values[i] ? Json(*cand.values[i]) : Json(nullptr)},
                                        {"reference", ref.values[i] ? Json(*ref.values[i]) : Json(nullptr)}};
    }
    j["values"] = values;
    j["distance"] = report.to_json();
    std::cout << dump_json(j) << "\n";
  } else {
    std::cout << signature::format_distance(cand, o.specs[0], ref, o.specs[1], report, cfg);
  }
  if (!report.d) {
    std::string which;
    for (const auto& [side, k] : {std::pair{"candidate", &cand}, std::pair{"reference", &ref}}) {
      int measured = 0;
      for (const auto& v : k->values) measured += v ? 1 : 0;
      which += std::string(which.empty() ? "" : ", ") + side + " measures " + std::to_string(measured);
    }
    throw InputError("", "", "D is undefined: no metric is measured on both sides (" + which +
                                 " of " + std::to_string(signature::kMetricCount) + ")");
  }
  return kExitOk;
}

int run_matrix(const DistanceOptions& o, const signature::DeriveOptions& options, const signature::DistanceConfig& cfg) {
  check_platforms(o, o.specs, o.references);
  const auto cands = expand_all(o.specs, options, o.scope_of());
  const auto refs = expand_all(o.references, options, o.scope_of());
  std::vector<std::string> undefined;
  Json rows = Json::array(), scored = Json::array();
  std::vector<std::vector<signature::DistanceReport>> m(cands.size());
  for (std::size_t c = 0; c < cands.size(); ++c) {
    Json row = Json::array(), srow = Json::array();
    for (std::size_t r = 0; r < refs.size(); ++r) {
      m[c].push_back(signature::compute_distance(cands[c].sig.values, refs[r].sig.values, cfg));
      const auto& rep = m[c].back();
      row.push_back(rep.d ? Json(*rep.d) : Json(nullptr));
      srow.push_back(rep.scored);
      if (!rep.d) undefined.push_back("c" + std::to_string(c + 1) + " " + cands[c].label + " x r" + std::to_string(r + 1) +
                                      " " + refs[r].label);
    }
    rows.push_back(row);
    scored.push_back(srow);
  }
  if (o.json) {
    Json jc = Json::array(), jr = Json::array();
    for (const auto& e : cands) jc.push_back(entry_json(e));
    for (const auto& e : refs) jr.push_back(entry_json(e));
    std::cout << dump_json(Json{{"schema", schema_id("distance-matrix", 1)},
                                {"candidates", jc},
                                {"references", jr},
                                {"D", rows},
                                {"scored", scored},
                                {"config", cfg.to_json()}})
              << "\n";
  } else {
    // Rows and columns by name (short_name); the legend below gives each one's file and kernel.
    std::vector<std::string> row_names, col_names;
    std::size_t row_width = 6, col_width = 10;
    for (std::size_t c = 0; c < cands.size(); ++c) {
      row_names.push_back("c" + std::to_string(c + 1) + " " + short_name(cands[c].label));
      row_width = std::max(row_width, row_names.back().size());
    }
    for (std::size_t r = 0; r < refs.size(); ++r) {
      col_names.push_back("r" + std::to_string(r + 1) + " " + short_name(refs[r].label));
      col_width = std::max(col_width, col_names.back().size());
    }
    const int rw = static_cast<int>(row_width), cw = static_cast<int>(col_width);
    std::cout << "D, candidates (rows) x references (columns); * marks each row's nearest reference\n\n";
    std::cout << strf("%-*s", rw, "");
    for (std::size_t r = 0; r < refs.size(); ++r) std::cout << strf(" %*s", cw, col_names[r].c_str());
    std::cout << "\n";
    for (std::size_t c = 0; c < cands.size(); ++c) {
      std::size_t best = refs.size();
      for (std::size_t r = 0; r < refs.size(); ++r)
        if (m[c][r].d && (best == refs.size() || *m[c][r].d < *m[c][best].d)) best = r;
      std::cout << strf("%-*s", rw, row_names[c].c_str());
      for (std::size_t r = 0; r < refs.size(); ++r)
        std::cout << strf(" %*s%s", cw - 1, d_text(m[c][r]).c_str(), r == best ? "*" : " ");
      std::cout << "\n";
    }
    std::cout << "\ncandidates:\n";
    for (std::size_t c = 0; c < cands.size(); ++c)
      std::cout << "  c" << c + 1 << "  " << cands[c].label << "\n      " << cands[c].sig.name << "\n";
    std::cout << "references:\n";
    for (std::size_t r = 0; r < refs.size(); ++r)
      std::cout << "  r" << r + 1 << "  " << refs[r].label << "\n      " << refs[r].sig.name << "\n";
  }
  fail_on_undefined(undefined);
  return kExitOk;
}

int run_nearest(const DistanceOptions& o, const signature::DeriveOptions& options, const signature::DistanceConfig& cfg) {
  const auto cands = expand_all(o.specs, options, o.scope_of());
  const auto refs = suite_references(o.suite, options, o.scope_of());
  std::vector<std::string> ref_files;
  for (const auto& r : refs) ref_files.push_back(r.label);
  check_platforms(o, o.specs, ref_files);
  std::vector<std::string> undefined;
  Json jc = Json::array();
  for (const auto& cand : cands) {
    std::vector<std::pair<signature::DistanceReport, const Entry*>> ranked;
    for (const auto& ref : refs) {
      ranked.emplace_back(signature::compute_distance(cand.sig.values, ref.sig.values, cfg), &ref);
      if (!ranked.back().first.d) undefined.push_back(cand.label + " x " + ref.label);
    }
    // Nearest first; an undefined D sorts last; ties keep the benchmark order.
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      if (!a.first.d || !b.first.d) return a.first.d.has_value() && !b.first.d.has_value();
      return *a.first.d < *b.first.d;
    });
    const std::size_t shown = o.top > 0 ? std::min<std::size_t>(static_cast<std::size_t>(o.top), ranked.size()) : ranked.size();
    if (o.json) {
      Json list = Json::array();
      for (std::size_t i = 0; i < shown; ++i) {
        Json e = entry_json(*ranked[i].second);
        e["D"] = ranked[i].first.d ? Json(*ranked[i].first.d) : Json(nullptr);
        e["scored"] = ranked[i].first.scored;
        list.push_back(e);
      }
      Json j = entry_json(cand);
      j["nearest"] = list;
      jc.push_back(j);
      continue;
    }
    std::cout << "candidate: " << cand.label << "\n           " << cand.sig.name << "\n";
    std::cout << "nearest " << shown << " of " << refs.size() << " references in " << o.suite << ":\n";
    std::cout << strf("  %4s  %9s  %6s  %-28s %s\n", "rank", "D", "scored", "benchmark", "kernel");
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& [rep, ref] = ranked[i];
      std::cout << strf("  %4zu  %9s  %3d/%-2d  %-28s %s\n", i + 1, d_text(rep).c_str(), rep.scored,
                                 static_cast<int>(signature::kMetricCount), ref->benchmark.c_str(), ref->sig.name.c_str());
    }
    std::cout << "\n";
  }
  if (o.json)
    std::cout << dump_json(Json{{"schema", schema_id("distance-nearest", 1)},
                                {"suite", o.suite},
                                {"candidates", jc},
                                {"config", cfg.to_json()}})
              << "\n";
  fail_on_undefined(undefined);
  return kExitOk;
}

const CommandRegistrar reg(
    "distance", "signature distance D of candidates to references: a pair, a matrix, or the nearest suite references",
    20, [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<DistanceOptions>();
      const char* spec_help =
          "CANDIDATE REFERENCE (or only candidates with --references / --suite). Each is a signature or "
          "reference JSON file, or a kernel of an ncu CSV: FILE.csv#id=N (ncu launch ID) or FILE.csv#REGEX (the one "
          "kernel whose name matches); #id=N / #REGEX also pick from a signature file with several kernels. With "
          "--references or --suite, a file without #selector stands for all its kernels and #REGEX for all matches";
      sub.add_option("SPEC", o->specs, spec_help)->required();
      auto* refs = sub.add_option("--references", o->references,
                                  "matrix form: the references (the columns); the positional specs are the candidates "
                                  "(the rows). Give the candidates first.");
      auto* suite = sub.add_option("--suite", o->suite,
                                   "nearest-reference form: rank the references DIR/<benchmark>/reference.json of a "
                                   "suite folder (e.g. suite/vx-robotics/h200) by D, per candidate");
      refs->excludes(suite);
      sub.add_option("--top", o->top, "with --suite: how many nearest references to list (0: all)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str();
      sub.add_option("--config", o->config,
                     "distance constants as JSON {\"schema\": \"vxsynth.distance-config/1\", ...} (default: "
                     "percent_scale 100, epsilon 1e-12, rate_scale 5, clamp [0,1], retention_margin 0.005)");
      sub.add_flag("--json", o->json,
                   "print the report as JSON (schema vxsynth.distance/1; vxsynth.distance-matrix/1 with --references; "
                   "vxsynth.distance-nearest/1 with --suite)");
      sub.add_option("--unmeasurable", o->unmeasurable, "metric ids to record as unmeasured when reading CSV");
      sub.add_flag("--partial", o->partial, "when reading CSV, record metrics with missing counters as unmeasured");
      sub.add_flag("--cross-platform", o->cross_platform,
                   "compare profiles of two GPU models (refused otherwise when both files name their platform)");
      sub.add_option("--scope", o->scope,
                     "kernel (the default: a reference's hot kernel, one kernel per CSV launch) or operator (a "
                     "reference's whole call, a profile's operators, an ncu CSV's selected launches as one operator)")
          ->check(CLI::IsMember({"kernel", "operator"}));
      sub.footer(
          "Metrics not measured on both sides are left out of D (never scored as 1); a pair with no metric measured "
          "on both sides has no D, which is an error. Exit codes: 0 success, 2 bad usage or bad input (including an "
          "undefined D).");
      return [o]() -> int {
        signature::DeriveOptions options;
        options.unmeasurable = signature::parse_metric_ids(o->unmeasurable, "--unmeasurable");
        options.partial = o->partial;
        const signature::DistanceConfig cfg =
            o->config.empty() ? signature::DistanceConfig{} : signature::DistanceConfig::load(o->config);
        if (!o->suite.empty()) return run_nearest(*o, options, cfg);
        if (!o->references.empty()) return run_matrix(*o, options, cfg);
        if (o->specs.size() != 2)
          throw InputError("", "SPEC",
                           "expected CANDIDATE REFERENCE (two specs), found " + std::to_string(o->specs.size()) +
                               "; for several, give the references with --references or a suite folder with --suite");
        return run_pair(*o, options, cfg);
      };
    });

}  // namespace
}  // namespace vxsynth::cli
