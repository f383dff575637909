// vxsynth gpu {run, profile, build, inspect, status}: the CUDA candidate harness and the ncu
// driver (docs/gpu.md). run/profile need a CUDA device; build/inspect/status work anywhere.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "cli/command.h"
#include "common/error.h"
#include "gpu/candidate_build.h"
#include "gpu/device_probe.h"
#include "gpu/elf_inspect.h"
#include "gpu/job.h"
#include "gpu/process.h"
#include "gpu/profile_report.h"
#include "gpu/sandbox.h"
#include "ops/op_spec.h"
#include "signature/derive.h"

namespace fs = std::filesystem;

namespace vxsynth::cli {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct CommonOptions {
  std::vector<std::string> ops;
  std::vector<std::string> candidates;
  std::string out;
  std::string cache_dir;
  std::string harness;
  std::vector<std::string> nvcc_flags;
  std::uint64_t seed = 0;
  bool seed_given = false;
  unsigned jobs = 0;
};

void add_common(CLI::App& sub, CommonOptions& o) {
  sub.add_option("--out", o.out, "output folder (created)")->required();
  sub.add_option("--seed", o.seed, "seed of the input draws (default: a fresh random seed, recorded in result.json)");
  sub.add_option("--cache-dir", o.cache_dir, "candidate build cache (default: $VXSYNTH_CACHE_DIR or ~/.cache/vxsynth)");
  sub.add_option("--harness", o.harness, "the vxsynth-gpu-harness executable (default: next to vxsynth)");
  sub.add_option("--nvcc-flag", o.nvcc_flags, "extra nvcc flag for every candidate build (repeatable)");
  sub.add_option("--jobs", o.jobs, "parallel nvcc builds (default: all cores)");
}

std::string find_harness(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("VXSYNTH_GPU_HARNESS"); env && *env) return env;
  const fs::path next_to_cli = fs::path(gpu::executable_dir()) / "vxsynth-gpu-harness";
  if (fs::exists(next_to_cli)) return next_to_cli.string();
#ifndef VXSYNTH_GPU_HARNESS_BUILT
  throw WorkError("vxsynth-gpu-harness was not built: this build found no CUDA toolkit/cuDNN (see the CMake "
                  "configure output)");
#else
  throw WorkError("vxsynth-gpu-harness not found next to " + gpu::executable_dir() + " (give --harness)");
#endif
}

std::string find_ncu(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("VXSYNTH_NCU"); env && *env) return env;
  if (auto p = gpu::find_on_path("ncu"); !p.empty()) return p;
  for (const char* p : {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/2025.3.1/ncu"}) {
    if (fs::exists(p)) return p;
  }
  throw WorkError("ncu (Nsight Compute) not found on PATH, in /usr/local/cuda/bin or /opt/nvidia (give --ncu)");
}

std::vector<gpu::JobOp> job_ops(const std::vector<std::string>& paths) {
  std::vector<gpu::JobOp> ops;
  std::map<std::string, int> seen;
  for (const auto& path : paths) {
    ops::read_op_spec(path);  // bad specs fail here, with the file and field, before any build
    std::string name = fs::path(path).stem().string();
    if (seen[name]++ > 0) name += "-" + std::to_string(seen[name]);
    ops.push_back({name, fs::absolute(path).string()});
  }
  return ops;
}

// Builds every source (cached, in parallel) and checks the sandbox; bad candidates stop here.
std::vector<gpu::JobCandidate> build_all(const CommonOptions& o, Json& build_log) {
  gpu::BuildOptions bo;
  bo.cache_dir = o.cache_dir;
  bo.extra_flags = o.nvcc_flags;
  const auto results = gpu::build_candidates(o.candidates, bo, o.jobs);
  std::vector<gpu::JobCandidate> out;
  std::string errors;
  build_log = Json::array();
  std::map<std::string, int> seen;
  for (const auto& r : results) {
    build_log.push_back({{"source", r.source}, {"object", r.shared_object}, {"cache_hit", r.cache_hit},
                         {"seconds", r.seconds}, {"error", r.error}});
    if (!r.error.empty()) {
      errors += r.error + "\n";
      continue;
    }
    const auto verdict = gpu::check_sandbox(gpu::inspect_elf(r.shared_object));
    if (!verdict.ok()) {
      errors += verdict.describe(r.source);
      continue;
    }
    std::string name = r.name;
    if (seen[name]++ > 0) name += "-" + std::to_string(seen[name]);
    out.push_back({name, fs::absolute(r.source).string(), r.shared_object});
  }
  if (!errors.empty()) throw WorkError(errors);
  return out;
}

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

int run_harness(const std::string& harness, const std::string& job_path, const gpu::ProcessOptions& po = {}) {
  const auto r = gpu::run_process({harness, job_path}, po);
  return r.exit_code;
}

// Prints the checks; a pair the candidate declined ("unsupported") is not a failure, but a
// candidate that accepted no op is.
int report_checks(const gpu::JobResult& result) {
  std::map<std::string, int> count;
  std::map<std::string, int> accepted;
  for (const auto& c : result.checks) {
    ++count[c.status];
    accepted[c.candidate] += c.status != "unsupported" ? 1 : 0;
  }
  std::cout << "checks: " << count["passed"] << " passed, " << count["failed"] << " failed, " << count["error"]
            << " errors, " << count["unsupported"] << " declined by the candidate\n";
  for (const auto& c : result.checks) {
    if (c.status == "failed" || c.status == "error") {
      std::cout << "  " << c.status << ": " << c.candidate << " on " << c.op
                << (c.message.empty() ? "" : " (" + c.message + ")") << "\n";
    }
  }
  int idle = 0;
  for (const auto& [candidate, n] : accepted) {
    if (n == 0) {
      std::cout << "  " << candidate << " accepted none of the ops\n";
      ++idle;
    }
  }
  for (const auto& v : result.vendors) {
    std::cout << "vendor " << v.library << " on " << v.op << " [" << v.math << "]: ";
    if (v.kernels.empty()) std::cout << "(kernel names: " << v.kernels_note << ")";
    for (std::size_t i = 0; i < v.kernels.size(); ++i) std::cout << (i ? " | " : "") << v.kernels[i];
    std::cout << "\n";
  }
  return count["failed"] + count["error"] + idle == 0 ? kExitOk : kExitWorkFailed;
}

struct RunOptions : CommonOptions {
  std::string cpu_check = "auto";
  bool no_tensors = false;
};

struct ProfileOptions : CommonOptions {
  bool with_reference = false;
  int repeat = 1;
  std::string ncu;
};

Runner configure_run(CLI::App& sub) {
  auto o = std::make_shared<RunOptions>();
  sub.add_option("--op", o->ops, "op spec (vxsynth.op/1); repeatable")->required();
  sub.add_option("--candidate", o->candidates, "candidate source K.cu (repeatable)")->required();
  sub.add_option("--cpu-check", o->cpu_check, "also check the vendor output against the CPU reference: auto "
                                              "(problems up to 4 GFLOP), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  sub.add_flag("--no-tensors", o->no_tensors, "do not write the inputs and outputs as tensor files");
  add_common(sub, *o);
  sub.footer("Writes DIR/<candidate>@<op>/{x,weight,bias,y_vendor,y_candidate}.tensor and DIR/result.json.\n"
             "Exit codes: 0 every check passed, 1 a check failed or no CUDA device, 2 bad input.");
  return [o]() -> int {
    gpu::require_cuda_device("vxsynth gpu run");
    const std::string harness = find_harness(o->harness);
    gpu::Job job;
    job.mode = gpu::JobMode::run;
    job.ops = job_ops(o->ops);
    fs::create_directories(o->out);
    job.out_dir = fs::absolute(o->out).string();
    job.seed = o->seed_given || o->seed != 0 ? o->seed : fresh_seed();
    job.write_tensors = !o->no_tensors;
    job.cpu_check = o->cpu_check == "on" ? gpu::CpuCheck::on : o->cpu_check == "off" ? gpu::CpuCheck::off
                                                                                       : gpu::CpuCheck::automatic;
    Json builds;
    job.candidates = build_all(*o, builds);
    write_json_file((fs::path(o->out) / "builds.json").string(), builds);
    const std::string job_path = (fs::path(o->out) / "job.json").string();
    gpu::write_job(job_path, job);
    std::cout << "seed " << job.seed << "\n";
    const int rc = run_harness(harness, job_path);
    const fs::path result_path = fs::path(o->out) / "result.json";
    if (!fs::exists(result_path)) throw WorkError("the harness wrote no result (exit " + std::to_string(rc) + ")");
    const int checks = report_checks(gpu::read_job_result(result_path.string()));
    if (rc != 0) return rc == 2 ? kExitBadInput : kExitWorkFailed;
    return checks;
  };
}

Runner configure_profile(CLI::App& sub) {
  auto o = std::make_shared<ProfileOptions>();
  sub.add_option("--op", o->ops, "op spec (vxsynth.op/1); repeatable: every candidate runs on every op it accepts")
      ->required();
  sub.add_option("--candidates", o->candidates, "candidate sources A.cu B.cu ...")->required();
  sub.add_flag("--with-reference", o->with_reference, "profile the vendor operator too and report each candidate's D");
  sub.add_option("--repeat", o->repeat, "profiled launches per candidate (fresh inputs each); >1 reports the noise")
      ->check(CLI::Range(1, 100));
  sub.add_option("--ncu", o->ncu, "the ncu executable (default: PATH, /usr/local/cuda/bin)");
  add_common(sub, *o);
  sub.footer("One ncu process over one harness process. Writes DIR/ncu-raw.csv, DIR/signatures/<segment>.json "
             "(vxsynth.signature/1), DIR/profile-summary.{json,txt}, DIR/result.json.\n"
             "Exit codes: 0 success, 1 ncu/harness failure, a failed check or no CUDA device, 2 bad input "
             "(including a counter missing from ncu's output: the message names it).");
  return [o]() -> int {
    gpu::require_cuda_device("vxsynth gpu profile");
    const std::string harness = find_harness(o->harness);
    const std::string ncu = find_ncu(o->ncu);
    const auto t0 = Clock::now();
    gpu::Job job;
    job.mode = gpu::JobMode::profile;
    job.ops = job_ops(o->ops);
    fs::create_directories(o->out);
    job.out_dir = fs::absolute(o->out).string();
    job.seed = o->seed != 0 ? o->seed : fresh_seed();
    job.repeat = o->repeat;
    job.with_reference = o->with_reference;
    job.write_tensors = false;
    job.cpu_check = gpu::CpuCheck::off;
    Json builds;
    job.candidates = build_all(*o, builds);
    const double build_seconds = seconds_since(t0);
    write_json_file((fs::path(o->out) / "builds.json").string(), builds);
    const std::string job_path = (fs::path(o->out) / "job.json").string();
    gpu::write_job(job_path, job);
    const auto argv = gpu::ncu_command(ncu, harness, job_path);
    {
      std::ofstream cmd(fs::path(o->out) / "ncu-command.txt");
      cmd << gpu::render_command(argv) << "\n";
    }
    const std::string csv = (fs::path(o->out) / "ncu-raw.csv").string();
    const auto t1 = Clock::now();
    const auto r = gpu::run_process(argv, {csv, (fs::path(o->out) / "ncu.log").string(), {}});
    const double ncu_seconds = seconds_since(t1);
    const fs::path result_path = fs::path(o->out) / "result.json";
    if (r.exit_code != 0 || !fs::exists(result_path)) {
      throw WorkError("ncu or the harness failed (exit " + std::to_string(r.exit_code) + "); see " +
                      (fs::path(o->out) / "ncu.log").string() + " and harness.log");
    }
    const auto result = gpu::read_job_result(result_path.string());
    const int checks = report_checks(result);
    const auto table = signature::NcuTable::read_file(csv);
    const auto mapping = gpu::map_profile(table, result.launches, signature::DeriveOptions{});
    const fs::path sig_dir = fs::path(o->out) / "signatures";
    fs::create_directories(sig_dir);
    std::map<std::string, std::vector<const gpu::ProfiledLaunch*>> by_segment;
    for (const auto& l : mapping.launches) by_segment[l.launch.segment].push_back(&l);
    for (const auto& [segment, launches] : by_segment) {
      signature::SignatureFile file;
      file.source = csv;
      for (const auto* l : launches) file.kernels.push_back(l->primary());
      Json j = file.to_json();
      j["segment"] = segment;
      j["op"] = launches.front()->launch.op;
      j["candidate"] = launches.front()->launch.candidate;
      j["note"] = "kernels[i] is the longest kernel of repeat i; other kernels of the launch are listed in "
                  "other_kernels";
      Json others = Json::array();
      for (const auto* l : launches) {
        for (std::size_t k = 1; k < l->kernels.size(); ++k) {
          others.push_back({{"repeat", l->launch.repeat}, {"name", l->kernels[k].name},
                            {"duration_ns", l->kernels[k].duration_ns.value_or(0)}});
        }
      }
      j["other_kernels"] = others;
      write_json_file((sig_dir / (segment + ".json")).string(), j);
    }
    const auto summary = gpu::summarize_profile(mapping, signature::DistanceConfig{});
    Json sj = summary.to_json();
    sj["timing_seconds"] = {{"build_and_sandbox", build_seconds}, {"ncu_with_harness", ncu_seconds},
                            {"total", seconds_since(t0)}};
    sj["device"] = result.device;
    sj["ncu_command"] = gpu::render_command(argv);
    write_json_file((fs::path(o->out) / "profile-summary.json").string(), sj);
    const std::string text = summary.text();
    std::ofstream(fs::path(o->out) / "profile-summary.txt") << text;
    std::cout << text << "time: builds " << build_seconds << " s, ncu + harness " << ncu_seconds << " s, total "
              << seconds_since(t0) << " s\n";
    return checks;
  };
}

struct BuildCmdOptions {
  std::vector<std::string> sources;
  std::string cache_dir;
  std::vector<std::string> nvcc_flags;
  unsigned jobs = 0;
};

Runner configure_build(CLI::App& sub) {
  auto o = std::make_shared<BuildCmdOptions>();
  sub.add_option("SOURCES", o->sources, "candidate sources (.cu)")->required();
  sub.add_option("--cache-dir", o->cache_dir, "build cache (default: $VXSYNTH_CACHE_DIR or ~/.cache/vxsynth)");
  sub.add_option("--nvcc-flag", o->nvcc_flags, "extra nvcc flag (repeatable)");
  sub.add_option("--jobs", o->jobs, "parallel builds (default: all cores)");
  sub.footer("Builds with nvcc -arch=sm_90 (cached by content hash) and checks the sandbox rules; needs no GPU.\n"
             "Exit codes: 0 all built and accepted, 1 a build failed or a candidate broke a sandbox rule.");
  return [o]() -> int {
    gpu::BuildOptions bo;
    bo.cache_dir = o->cache_dir;
    bo.extra_flags = o->nvcc_flags;
    int bad = 0;
    for (const auto& r : gpu::build_candidates(o->sources, bo, o->jobs)) {
      if (!r.error.empty()) {
        std::cout << r.source << ": build failed\n" << r.error << "\n";
        ++bad;
        continue;
      }
      const auto verdict = gpu::check_sandbox(gpu::inspect_elf(r.shared_object));
      std::cout << r.source << ": " << r.shared_object << (r.cache_hit ? " (cached)" : "") << "\n";
      if (!verdict.ok()) {
        std::cout << verdict.describe(r.source);
        ++bad;
      }
    }
    return bad == 0 ? kExitOk : kExitWorkFailed;
  };
}

Runner configure_inspect(CLI::App& sub) {
  auto object = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub.add_option("OBJECT", *object, "a candidate shared object (.so)")->required();
  sub.add_flag("--json", *json, "print needed libraries, undefined and exported symbols, verdict as JSON");
  sub.footer("Exit codes: 0 the object passes the sandbox rules, 1 it breaks one, 2 not a readable ELF object.");
  return [object, json]() -> int {
    const auto info = gpu::inspect_elf(*object);
    const auto verdict = gpu::check_sandbox(info);
    if (*json) {
      Json j;
      j["needed"] = info.needed;
      Json undef = Json::array();
      for (const auto& s : info.undefined) undef.push_back(s.name);
      j["undefined"] = undef;
      Json violations = Json::array();
      for (const auto& v : verdict.violations) violations.push_back({{"rule", v.rule}, {"item", v.item}, {"reason", v.reason}});
      j["violations"] = violations;
      j["accepted"] = verdict.ok();
      std::cout << dump_json(j) << "\n";
    } else if (verdict.ok()) {
      std::cout << *object << ": accepted (needs";
      for (const auto& n : info.needed) std::cout << " " << n;
      std::cout << ")\n";
    } else {
      std::cout << verdict.describe(*object);
    }
    return verdict.ok() ? kExitOk : kExitWorkFailed;
  };
}

Runner configure_status(CLI::App& sub) {
  sub.footer("Says whether a CUDA device, nvcc, ncu and the harness are present. Exit code 0 always.");
  return []() -> int {
    const auto probe = gpu::probe_cuda_device();
    std::cout << "CUDA device: " << (probe.present ? "present, " + probe.detail : "no CUDA device is present (" + probe.detail + ")")
              << "\n";
    const std::string nvcc = gpu::locate_nvcc();
    std::cout << "nvcc: " << (nvcc.empty() ? "not found" : nvcc) << "\n";
    std::string harness;
    try {
      harness = find_harness("");
    } catch (const std::exception& e) {
      harness = std::string("not available: ") + e.what();
    }
    std::cout << "harness: " << harness << "\n";
    std::string ncu;
    try {
      ncu = find_ncu("");
    } catch (const std::exception& e) {
      ncu = "not found";
    }
    std::cout << "ncu: " << ncu << "\n";
    std::cout << "candidate cache: " << gpu::default_cache_dir() << "\n";
    return kExitOk;
  };
}

const CommandRegistrar reg("gpu", "CUDA candidates: build, sandbox check, run against the vendor operator, profile with ncu",
                           60, [](CLI::App& sub) -> Runner {
                             sub.require_subcommand(1);
                             auto selected = std::make_shared<Runner>();
                             struct Entry {
                               const char* name;
                               const char* help;
                               Runner (*configure)(CLI::App&);
                             };
                             const Entry entries[] = {
                                 {"run", "check candidates against the vendor operator on fresh seeded inputs", configure_run},
                                 {"profile", "profile candidates (and the vendor operator) in one ncu process", configure_profile},
                                 {"build", "build candidates with nvcc (cached) and check the sandbox rules", configure_build},
                                 {"inspect", "sandbox verdict for a shared object: needed libraries, undefined symbols", configure_inspect},
                                 {"status", "is there a CUDA device, nvcc, ncu, the harness?", configure_status}};
                             auto runners = std::make_shared<std::vector<std::pair<CLI::App*, Runner>>>();
                             for (const auto& e : entries) {
                               CLI::App* child = sub.add_subcommand(e.name, e.help);
                               runners->emplace_back(child, e.configure(*child));
                             }
                             return [runners]() -> int {
                               for (auto& [app, runner] : *runners) {
                                 if (app->parsed()) return runner();
                               }
                               return kExitBadInput;
                             };
                           });

}  // namespace
}  // namespace vxsynth::cli
