#include "refine/gpu_evaluator.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "codegen/benchmark.h"
#include "codegen/emit.h"
#include "codegen/generator.h"
#include "common/error.h"
#include "gpu/candidate_build.h"
#include "gpu/elf_inspect.h"
#include "gpu/sandbox.h"
#include "ops/equivalence.h"
#include "ops/op_spec.h"
#include "ops/tensor_file.h"
#include "refine/replay.h"
#include "common/process.h"
#include "vxsim/host/kernel_build.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

GpuEvaluator::GpuEvaluator(std::string work_dir, std::string checks_dir, int repeats, gpu::DriverOptions driver)
    : work_dir_(std::move(work_dir)), checks_dir_(std::move(checks_dir)), repeats_(repeats), driver_(std::move(driver)) {}

bool vortex_toolchain_present() { return !find_on_path(vxsim::host::default_tool_prefix() + "gcc").empty(); }

std::string tensor_data_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 16) return "";
  std::uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | static_cast<unsigned char>(bytes[8 + i]);
  if (16 + header > bytes.size()) return "";
  return sha256_hex(bytes.substr(16 + header));
}

std::pair<CheckOutcome, double> check_saved(const std::string& saved_dir, const std::string& work_dir) {
  const fs::path dir = saved_dir;
  const Json info = read_json_file((dir / "check.json").string());
  const std::uint64_t seed = info.at("seed").get<std::uint64_t>();
  Candidate c;
  c.key = info.at("key").get<std::string>();
  c.design = design::read_design((dir / "design.json").string());
  if (fs::is_regular_file(dir / "kernel.cpp")) c.vortex_kernel = (dir / "kernel.cpp").string();
  // A CUDA output too large to bring back from the GPU machine travels as the sha256 of its
  // data bytes (scripts/pack-suite-run.py). Only an exact-check op can use it: the Vortex side
  // must then equal the CPU reference bit for bit, and the CPU reference's data the digest.
  const fs::path y = dir / "y_candidate.tensor", y_digest = dir / "y_candidate.payload.sha256";
  const bool by_digest = !fs::exists(y) && fs::exists(y_digest);
  if (by_digest && !ops::tolerance_for(c.design.op, ops::Check::candidate).exact) {
    CheckOutcome f;
    f.status = "error";
    f.against = "cuda-candidate output digest";
    f.message = "the CUDA output was brought back as a digest, which only an exact-check op can be checked against";
    return {f, 0.0};
  }
  auto result = simulator_check(c, work_dir, seed, by_digest ? "" : y.string(),
                                by_digest ? "cpu reference bit for bit, and the cuda-candidate output's data digest (seed " +
                                                std::to_string(seed) + ")"
                                          : "cuda-candidate output (seed " + std::to_string(seed) + ")");
  if (by_digest && result.first.passed()) {
    std::string want;
    std::ifstream(y_digest) >> want;
    const fs::path expected = fs::path(work_dir) / ("sim-" + c.key) / "vortex" / "data" / "expected.vxt";
    if (tensor_data_sha256(expected.string()) != want) {
      result.first.status = "failed";
      result.first.message = "the CUDA output's data digest differs from the CPU reference's: the CUDA candidate is not exact";
    }
  }
  // The Vortex side got the inputs of the same seed: check the bits are the same.
  const fs::path vdata = fs::path(work_dir) / ("sim-" + c.key) / "vortex" / "data";
  for (const auto& t : fs::directory_iterator(dir)) {
    // An input travels as the tensor file, or (large inputs brought back from a GPU machine)
    // as the sha256 of that file: the Vortex side's file of the same seed must hash the same.
    const std::string name = t.path().filename().string();
    const bool digest = name.size() > 14 && name.substr(name.size() - 14) == ".tensor.sha256";
    if (t.path().extension() != ".tensor" && !digest) continue;
    const std::string stem = digest ? name.substr(0, name.size() - 14) : t.path().stem().string();
    if (stem == "y_candidate") continue;
    const fs::path mine = vdata / (stem + ".vxt");
    bool same = fs::exists(mine);
    if (same && digest) {
      std::string want;
      std::ifstream(t.path()) >> want;
      same = sha256_file(mine.string()) == want;
    } else if (same) {
      const ops::Tensor a = ops::read_tensor_file(mine.string()), b = ops::read_tensor_file(t.path().string());
      same = a.dtype() == b.dtype() && a.shape() == b.shape();
      for (std::int64_t k = 0; same && k < a.numel(); ++k) same = a.bits(k) == b.bits(k);
    }
    if (!same) {
      result.first.status = "error";
      result.first.message = "input " + stem + " differs between the CUDA run and the Vortex benchmark";
    }
  }
  return result;
}

void GpuEvaluator::stage(const std::vector<Candidate>& batch, const std::string& dir, std::vector<std::string>& sources,
                         std::vector<std::string>& op_files, std::vector<std::string>& op_names) {
  fs::create_directories(fs::path(dir) / "cu");
  fs::create_directories(fs::path(dir) / "ops");
  std::map<std::string, std::string> op_of_chain;
  for (const auto& c : batch) {
    std::string source;
    if (c.cuda_source.empty()) {
      codegen::BenchmarkOptions bo;
      bo.write_data = false;
      const auto files = codegen::write_benchmark(c.design, (fs::path(dir) / "gen" / c.key).string(), bo);
      source = files.cuda_source;
    } else {
      source = c.cuda_source;
    }
    // The harness names a candidate by its file stem: the key keeps them apart.
    const fs::path staged = fs::path(dir) / "cu" / (c.key + ".cu");
    fs::copy_file(source, staged, fs::copy_options::overwrite_existing);
    sources.push_back(staged.string());
    if (!op_of_chain.count(c.chain)) {
      const fs::path op = fs::path(dir) / "ops" / (c.chain + ".json");
      write_json_file(op.string(), ops::op_spec_to_json(c.design.op));
      op_of_chain[c.chain] = op.string();
      op_files.push_back(op.string());
    }
    op_names.push_back(c.chain);
  }
}

std::optional<CheckOutcome> source_check_of(const std::vector<gpu::CheckRecord>& checks, const std::string& candidate,
                                            const std::string& op) {
  std::optional<CheckOutcome> out;
  for (const auto& check : checks) {
    if (check.candidate != candidate || check.op != op) continue;
    if (out && !out->passed()) continue;  // the first check that did not pass decides
    CheckOutcome c;
    c.status = check.status == "passed" ? "passed" : check.status == "failed" ? "failed" : "error";
    c.against = "vendor operator";
    c.message = check.status == "unsupported" ? "the candidate declined its own op" : check.message;
    const Json& q = check.equivalence;
    if (q.is_object()) {
      c.max_abs_error = q.value("max_abs_error", 0.0);
      c.max_rel_error = q.value("max_rel_error", 0.0);
      c.worst_ratio = q.value("worst_ratio", 0.0);
      c.count = q.value("count", std::int64_t{0});
      c.failed = q.value("failed", std::int64_t{0});
    }
    out = c;
  }
  return out;
}

std::vector<std::vector<std::size_t>> group_by_repeats(const std::vector<Candidate>& batch) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<int, std::size_t> group_of;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto [it, fresh] = group_of.emplace(batch[i].repeats, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

std::vector<std::string> kernels_to_profile(const std::vector<Candidate>& batch) {
  std::set<std::string> names;
  for (const auto& c : batch) {
    if (!c.cuda_source.empty()) return {};
    names.insert(codegen::main_kernel_name(c.design));
  }
  return {names.begin(), names.end()};
}

std::vector<Evaluation> GpuEvaluator::evaluate(const std::vector<Candidate>& batch) {
  // One profile job takes one repeat count: a batch that mixes counts (confirmations of
  // candidates whose screening kept different numbers of profiles) is split into one job per
  // count, so that no candidate gets fewer profiles than it asked for.
  if (const auto groups = group_by_repeats(batch); groups.size() > 1) {
    std::vector<Evaluation> out(batch.size());
    for (const auto& members : groups) {
      std::vector<Candidate> part;
      for (const std::size_t i : members) part.push_back(batch[i]);
      const auto evals = evaluate(part);
      for (std::size_t j = 0; j < members.size(); ++j) out[members[j]] = evals[j];
    }
    return out;
  }
  const fs::path dir = fs::path(work_dir_) / ("round-" + std::to_string(++round_));
  std::vector<std::string> sources, op_files, op_names;
  stage(batch, dir.string(), sources, op_files, op_names);
  std::vector<Evaluation> out(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    out[i].key = batch[i].key;
    out[i].design_name = batch[i].cuda_source.empty() ? design::procedural_name(batch[i].design) : "";
    out[i].cuda_sha256 = sha256_file(sources[i]);
    out[i].generator = codegen::current_generator();  // wrote the Vortex side, and the CUDA side of a design
    out[i].source_check.status = "error";
    out[i].source_check.message = "not profiled";
  }
  // Builds and the sandbox first, one by one, so a candidate that fails is rejected alone.
  gpu::BuildOptions bo;
  bo.cache_dir = driver_.cache_dir;
  bo.extra_flags = driver_.nvcc_flags;
  // The builds run before the profile job (which then finds them in the cache): their wall time
  // is device-machine time too, shared over the batch.
  const auto build_start = std::chrono::steady_clock::now();
  const auto builds = gpu::build_candidates(sources, bo, driver_.jobs);
  const double build_share =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - build_start).count() / static_cast<double>(batch.size());
  for (auto& e : out) {
    e.build_seconds = build_share;
    e.device_seconds = build_share;
  }
  std::vector<std::string> admitted;
  std::vector<std::size_t> admitted_index;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    if (!builds[i].error.empty()) {
      out[i].source_check.message = "build failed: " + builds[i].error.substr(0, 600);
      continue;
    }
    const auto verdict = gpu::check_sandbox(gpu::inspect_elf(builds[i].shared_object));
    if (!verdict.ok()) {
      out[i].source_check.message = "sandbox: " + verdict.describe(sources[i]);
      continue;
    }
    admitted.push_back(sources[i]);
    admitted_index.push_back(i);
  }
  if (admitted.empty()) return out;
  gpu::ProfileRequest req;
  req.ops = op_files;
  req.candidates = admitted;
  for (const std::size_t i : admitted_index) req.candidate_ops.push_back({op_names[i]});  // each on its own op only
  req.out_dir = (dir / "profile").string();
  req.with_reference = false;
  if (!profile_every_kernel_) {
    std::vector<Candidate> admitted_batch;
    for (const std::size_t i : admitted_index) admitted_batch.push_back(batch[i]);
    req.only_kernels = kernels_to_profile(admitted_batch);
  }
  // Every candidate of a batch asks for the same number of profiles (screening, or its confirmation).
  req.repeat = batch.front().repeats > 0 ? batch.front().repeats : repeats_;
  gpu::ProfileOutcome po;
  try {
    po = gpu::profile_candidates(req, driver_);
  } catch (const WorkError& e) {
    // A candidate that brings the harness down (a fault, a hang) takes its batch with it: every
    // candidate of the batch is rejected with the reason, and the loop goes on.
    for (const std::size_t i : admitted_index) {
      out[i].source_check.message = std::string("the profile job failed: ") + e.what();
      if (out[i].source_check.message.size() > 600) out[i].source_check.message.resize(600);
    }
    return out;
  }
  const double share = po.total_seconds / static_cast<double>(admitted.size());
  // The op file stems are the chain names (gpu::job_ops); a candidate answers for its own op.
  for (std::size_t j = 0; j < admitted.size(); ++j) {
    const std::size_t i = admitted_index[j];
    Evaluation& e = out[i];
    const std::string cand = fs::path(sources[i]).stem().string();
    const std::string op = op_names[i];
    e.device_seconds += share;
    e.origin = po.result.device + ", " + req.out_dir;
    e.platform = po.result.platform;
    if (const auto decided = source_check_of(po.result.checks, cand, op)) e.source_check = *decided;
    for (const auto& l : po.mapping.launches) {
      if (l.launch.candidate != cand || l.launch.op != op) continue;
      e.profiles.push_back(l.primary().values);
      if (po.mapping.every_kernel) e.add_operator(l.op);
      if (l.primary().launch) e.launch_block_size = static_cast<int>(l.primary().launch->block_size);
    }
    e.set_mean();
    if (e.source_check.passed() && e.profiles.empty()) {
      e.source_check.status = "error";
      e.source_check.message = "passed its check but ncu profiled no launch of it";
    }
  }
  return out;
}

std::vector<std::pair<CheckOutcome, double>> GpuEvaluator::candidate_check(const std::vector<Candidate>& batch) {
  const fs::path dir = fs::path(work_dir_) / ("check-" + std::to_string(round_));
  std::vector<std::string> sources, op_files, op_names;
  stage(batch, dir.string(), sources, op_files, op_names);
  gpu::RunRequest req;
  req.ops = op_files;
  req.candidates = sources;
  for (const auto& op : op_names) req.candidate_ops.push_back({op});
  req.out_dir = (dir / "run").string();
  req.cpu_check = gpu::CpuCheck::off;
  req.write_tensors = true;
  std::vector<std::pair<CheckOutcome, double>> out;
  gpu::RunOutcome ro;
  try {
    ro = gpu::run_candidates(req, driver_);
  } catch (const WorkError& e) {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      CheckOutcome f;
      f.status = "error";
      f.message = std::string("the run job failed: ") + e.what();
      if (f.message.size() > 600) f.message.resize(600);
      out.push_back({f, 0.0});
    }
    return out;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::string cand = fs::path(sources[i]).stem().string();
    const gpu::CheckRecord* rec = nullptr;
    for (const auto& c : ro.result.checks) {
      if (c.candidate == cand && c.op == op_names[i]) rec = &c;
    }
    if (rec == nullptr || rec->status == "unsupported" || rec->status == "error") {
      CheckOutcome f;
      f.status = "error";
      f.message = "the CUDA candidate did not run on its op in run mode";
      out.push_back({f, 0.0});
      continue;
    }
    const fs::path tensors = fs::path(req.out_dir) / gpu::segment_name(cand, op_names[i]);
    // Keep what the check needs: the CUDA output, the inputs, the design and the seed.
    const fs::path keep = fs::path(checks_dir_) / batch[i].key;
    fs::create_directories(keep);
    for (const auto& t : fs::directory_iterator(tensors)) {
      if (t.path().stem() != "y_vendor") fs::copy_file(t.path(), keep / t.path().filename(), fs::copy_options::overwrite_existing);
    }
    design::write_design((keep / "design.json").string(), batch[i].design);
    // The CUDA source exactly as built and profiled: `suite lock` commits this file.
    fs::copy_file(sources[i], keep / "candidate.cu", fs::copy_options::overwrite_existing);
    if (!batch[i].vortex_kernel.empty()) {
      fs::copy_file(batch[i].vortex_kernel, keep / "kernel.cpp", fs::copy_options::overwrite_existing);
    }
    write_json_file((keep / "check.json").string(),
                    Json{{"key", batch[i].key}, {"chain", batch[i].chain}, {"revision", batch[i].revision}, {"seed", rec->seed}});
    if (!vortex_toolchain_present()) {
      CheckOutcome d;
      d.status = "deferred";
      d.against = "cuda-candidate output kept in " + keep.string();
      d.message = "no Vortex kernel toolchain (" + vxsim::host::default_tool_prefix() +
                  "gcc) on this machine: `vxsynth refine --check-deferred OUT` runs the check where it is";
      out.push_back({d, 0.0});
      continue;
    }
    const auto result = check_saved(keep.string(), dir.string());
    out.push_back(result);
  }
  return out;
}

}  // namespace vxsynth::refine
