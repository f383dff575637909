// vxsynth gpu {run, profile, build, inspect, status}: the CUDA candidate harness and the ncu
// driver (docs/gpu.md). run/profile need a CUDA device; build/inspect/status work anywhere.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/command.h"
#include "common/error.h"
#include "gpu/candidate_build.h"
#include "gpu/device_probe.h"
#include "gpu/driver.h"
#include "gpu/elf_inspect.h"
#include "gpu/job.h"
#include "gpu/profile_report.h"
#include "gpu/sandbox.h"
#include "refine/platform_check.h"
#include "signature/kernel_source.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

struct CommonOptions {
  std::vector<std::string> ops;
  std::vector<std::string> candidates;
  std::string out;
  bool pair = false;
  gpu::DriverOptions driver;
};

// --pair: candidate i runs on op i only (a suite's proxies each on its own op, instead of every
// generic candidate on every op it accepts).
std::vector<std::vector<std::string>> paired_ops(const CommonOptions& o) {
  if (!o.pair) return {};
  if (o.ops.size() != o.candidates.size()) {
    throw InputError("--pair: " + std::to_string(o.candidates.size()) + " candidates but " + std::to_string(o.ops.size()) +
                     " ops: give as many --op as candidates (candidate i runs on op i)");
  }
  std::vector<std::vector<std::string>> out;
  for (const auto& op : gpu::job_ops(o.ops)) out.push_back({op.name});
  return out;
}

void add_common(CLI::App& sub, CommonOptions& o) {
  sub.add_option("--out", o.out, "output folder (created)")->required();
  sub.add_option("--seed", o.driver.seed, "seed of the input draws (default: a fresh random seed, recorded in job.json)");
  sub.add_option("--cache-dir", o.driver.cache_dir,
                 "candidate build cache (default: $VXSYNTH_CACHE_DIR or ~/.cache/vxsynth/gpu-candidates)");
  sub.add_option("--harness", o.driver.harness, "the vxsynth-gpu-harness executable (default: next to vxsynth)");
  sub.add_option("--nvcc-flag", o.driver.nvcc_flags, "extra nvcc flag for every candidate build (repeatable)");
  sub.add_option("--jobs", o.driver.jobs, "parallel nvcc builds (default: all cores)");
  sub.add_flag("--pair", o.pair, "candidate i runs on op i only (as many --op as candidates)");
  sub.add_option("--timeout", o.driver.timeout_seconds,
                 "seconds after which the harness (and ncu) are killed, 0 = no limit (default 600)");
}

// Prints the checks; a pair the candidate declined ("unsupported") is not a failure, but a
// candidate that accepted no op is.
void report_checks(const gpu::JobResult& result) {
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
}

struct RunOptions : CommonOptions {
  std::string cpu_check = "auto";
  bool no_tensors = false;
  bool memcheck = false;
};

struct ProfileOptions : CommonOptions {
  bool with_reference = false;
  std::string suite;
  bool cross_platform = false;
  int repeat = 1;
  std::vector<std::string> kernels;
  std::string scope = "operator";
};

Runner configure_run(CLI::App& sub) {
  auto o = std::make_shared<RunOptions>();
  sub.add_option("--op", o->ops, "op specs (vxsynth.op/1)")->required();
  sub.add_option("--candidate", o->candidates, "candidate sources K.cu (several: each runs on every op it accepts)")
      ->required();
  sub.add_option("--cpu-check", o->cpu_check, "also check the vendor output against the CPU reference: auto "
                                              "(problems up to 4 GFLOP), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  sub.add_flag("--no-tensors", o->no_tensors, "do not write the inputs and outputs as tensor files");
  sub.add_flag("--memcheck", o->memcheck,
               "run under compute-sanitizer memcheck: out-of-bounds or misaligned accesses fail the run even when "
               "the outputs match (report in DIR/memcheck.log)");
  add_common(sub, *o);
  sub.footer("Writes DIR/<candidate>@<op>/{inputs,y_vendor,y_candidate}.tensor, DIR/result.json, DIR/job.json.\n"
             "Exit codes: 0 every check passed, 1 a check failed, a candidate was rejected or no CUDA device, "
             "2 bad input.");
  return [o]() -> int {
    gpu::RunRequest request;
    request.ops = o->ops;
    request.candidates = o->candidates;
    request.candidate_ops = paired_ops(*o);
    request.out_dir = o->out;
    request.write_tensors = !o->no_tensors;
    request.memcheck = o->memcheck;
    request.cpu_check = o->cpu_check == "on"    ? gpu::CpuCheck::on
                        : o->cpu_check == "off" ? gpu::CpuCheck::off
                                                : gpu::CpuCheck::automatic;
    const auto outcome = gpu::run_candidates(request, o->driver);
    std::cout << "seed " << outcome.job.seed << "\n";
    report_checks(outcome.result);
    if (outcome.memory_errors) {
      std::cout << "compute-sanitizer memcheck found memory errors: see " << outcome.memcheck_log << "\n";
    } else if (o->memcheck) {
      std::cout << "compute-sanitizer memcheck: no errors\n";
    }
    if (outcome.harness_exit != 0) return outcome.harness_exit == 2 ? kExitBadInput : kExitWorkFailed;
    return outcome.ok() ? kExitOk : kExitWorkFailed;
  };
}

Runner configure_profile(CLI::App& sub) {
  auto o = std::make_shared<ProfileOptions>();
  sub.add_option("--op", o->ops, "op specs (vxsynth.op/1): every candidate runs on every op it accepts")->required();
  sub.add_option("--candidates", o->candidates, "candidate sources A.cu B.cu ...")->required();
  sub.add_flag("--with-reference", o->with_reference, "profile the vendor operator too and report each candidate's D");
  sub.add_flag("--cross-platform", o->cross_platform,
               "with --suite: report D to references captured on another GPU model (refused otherwise)");
  sub.add_option("--suite", o->suite,
                 "a suite folder (e.g. suite/vx-robotics/h200): also report each candidate's D to the workload reference "
                 "SUITE/<op>/reference.json, where <op> is the op file's name (the suite table's D)");
  sub.add_option("--repeat", o->repeat, "profiled launches per candidate (fresh inputs each); >1 reports the noise")
      ->check(CLI::Range(1, 100));
  sub.add_option("--kernel", o->kernels,
                 "profile only kernels with this function name (repeatable; e.g. gemm, a generated candidate's main "
                 "kernel); the others run unprofiled. Not with --with-reference (the vendor's kernels would be skipped)");
  sub.add_option("--scope", o->scope,
                 "what a candidate's signature and D are of: operator (every kernel of its launch, the default) or "
                 "kernel (its longest kernel, the paper's); --kernel implies kernel")
      ->check(CLI::IsMember({"operator", "kernel"}));
  sub.add_option("--ncu", o->driver.ncu, "the ncu executable (default: $VXSYNTH_NCU, PATH, /usr/local/cuda/bin)");
  add_common(sub, *o);
  sub.footer("One ncu process over one harness process. Writes DIR/ncu-raw.csv, DIR/signatures/<segment>.json "
             "(vxsynth.signature/1), DIR/profile-summary.{json,txt}, DIR/result.json.\n"
             "Exit codes: 0 success, 1 ncu/harness failure, a failed check or no CUDA device, 2 bad input "
             "(including a counter missing from ncu's output: the message names it).");
  return [o]() -> int {
    gpu::ProfileRequest request;
    request.ops = o->ops;
    request.candidates = o->candidates;
    request.candidate_ops = paired_ops(*o);
    request.out_dir = o->out;
    request.with_reference = o->with_reference;
    request.repeat = o->repeat;
    if (!o->kernels.empty() && o->with_reference) {
      throw InputError("--kernel", o->kernels.front(), "not with --with-reference: the vendor operator's kernels would not be profiled");
    }
    request.only_kernels = o->kernels;
    gpu::ncu_kernel_filter(request.only_kernels);  // a bad name is bad input before anything runs
    request.scope = o->kernels.empty() ? signature::scope_from_key(o->scope, "", "--scope") : signature::Scope::kKernel;
    // The workload references, read before the GPU work: a bad suite is bad input.
    if (!o->suite.empty()) {
      if (!fs::is_directory(o->suite)) throw InputError(o->suite, "--suite", "not a folder (expected e.g. suite/vx-robotics/h200)");
      for (const auto& op : o->ops) {
        const std::string name = fs::path(op).stem().string();
        const fs::path ref = fs::path(o->suite) / name / "reference.json";
        if (fs::is_regular_file(ref)) {
          // D(suite) is a distance to a reference of this GPU model, or none is made.
          if (!o->cross_platform) refine::require_references_of_this_gpu({ref.string()});
          request.workload_references[name] = gpu::WorkloadReference::read(ref.string());
        } else {
          std::cout << "--suite: no " << ref.string() << " for op " << name << " (name the op file after the benchmark folder)\n";
        }
      }
    }
    const auto outcome = gpu::profile_candidates(request, o->driver);
    report_checks(outcome.result);
    std::cout << "rows mapped to launches by " << outcome.summary.mapping_method << "\n"
              << outcome.summary.text() << "time: builds " << outcome.build_seconds << " s, ncu + harness "
              << outcome.ncu_seconds << " s, total " << outcome.total_seconds << " s\n";
    return outcome.failed_checks == 0 ? kExitOk : kExitWorkFailed;
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
      harness = gpu::find_harness("");
    } catch (const std::exception& e) {
      harness = std::string("not available: ") + e.what();
    }
    std::cout << "harness: " << harness << "\n";
    std::string ncu;
    try {
      ncu = gpu::find_ncu("");
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
