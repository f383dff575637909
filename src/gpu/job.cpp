#include "gpu/job.h"

#include <algorithm>
#include <set>

#include "common/error.h"

namespace vxsynth::gpu {
namespace {

std::string mode_key(JobMode m) { return m == JobMode::run ? "run" : "profile"; }
std::string cpu_check_key(CpuCheck c) {
  switch (c) {
    case CpuCheck::automatic: return "auto";
    case CpuCheck::on: return "on";
    case CpuCheck::off: return "off";
  }
  return "auto";
}

}  // namespace

std::string segment_name(const std::string& candidate, const std::string& op) {
  return candidate + "@" + op;
}

Json Job::to_json() const {
  Json j;
  j["schema"] = schema_id("gpu-job", 1);
  j["mode"] = mode_key(mode);
  j["out_dir"] = out_dir;
  j["seed"] = seed;
  j["repeat"] = repeat;
  j["with_reference"] = with_reference;
  j["write_tensors"] = write_tensors;
  j["cpu_check"] = cpu_check_key(cpu_check);
  j["cpu_check_max_flops"] = cpu_check_max_flops;
  j["record_kernels"] = record_kernels;
  j["candidate_timeout_seconds"] = candidate_timeout_seconds;
  j["candidate_cpu_seconds"] = candidate_cpu_seconds;
  j["ops"] = Json::array();
  for (const auto& op : ops) j["ops"].push_back({{"name", op.name}, {"path", op.path}});
  j["candidates"] = Json::array();
  for (const auto& c : candidates) {
    Json cj{{"name", c.name}, {"source", c.source}, {"object", c.object}};
    if (!c.ops.empty()) cj["ops"] = c.ops;
    j["candidates"].push_back(cj);
  }
  return j;
}

Job Job::from_json(const Json& j, const std::string& file) {
  require_schema(j, "gpu-job", 1, file);
  Job job;
  const auto mode = get_field<std::string>(j, "mode", file);
  if (mode == "run") job.mode = JobMode::run;
  else if (mode == "profile") job.mode = JobMode::profile;
  else throw InputError(file, "mode", "expected \"run\" or \"profile\", got \"" + mode + "\"");
  job.out_dir = get_field<std::string>(j, "out_dir", file);
  job.seed = get_field<std::uint64_t>(j, "seed", file);
  job.repeat = get_field<int>(j, "repeat", file);
  if (job.repeat < 1) throw InputError(file, "repeat", "must be at least 1");
  job.with_reference = get_field<bool>(j, "with_reference", file);
  job.write_tensors = get_field<bool>(j, "write_tensors", file);
  const auto cpu = get_field<std::string>(j, "cpu_check", file);
  if (cpu == "auto") job.cpu_check = CpuCheck::automatic;
  else if (cpu == "on") job.cpu_check = CpuCheck::on;
  else if (cpu == "off") job.cpu_check = CpuCheck::off;
  else throw InputError(file, "cpu_check", "expected auto, on or off");
  job.cpu_check_max_flops = get_field<double>(j, "cpu_check_max_flops", file);
  job.record_kernels = j.value("record_kernels", true);
  job.candidate_timeout_seconds = j.value("candidate_timeout_seconds", 120.0);
  job.candidate_cpu_seconds = j.value("candidate_cpu_seconds", 3600.0);
  if (job.candidate_timeout_seconds <= 0) throw InputError(file, "candidate_timeout_seconds", "must be positive");
  for (const auto& op : get_field<Json>(j, "ops", file)) {
    job.ops.push_back({get_field<std::string>(op, "name", file), get_field<std::string>(op, "path", file)});
  }
  std::set<std::string> op_names;
  for (const auto& op : job.ops) op_names.insert(op.name);
  for (const auto& c : get_field<Json>(j, "candidates", file)) {
    JobCandidate cand{get_field<std::string>(c, "name", file), get_field<std::string>(c, "source", file),
                      get_field<std::string>(c, "object", file), {}};
    if (c.contains("ops")) {
      cand.ops = get_field<std::vector<std::string>>(c, "ops", file);
      for (const auto& name : cand.ops) {
        if (!op_names.count(name)) {
          throw InputError(file, "candidates." + cand.name + ".ops", "\"" + name + "\" is not the name of an op of the job");
        }
      }
    }
    job.candidates.push_back(std::move(cand));
  }
  if (job.ops.empty()) throw InputError(file, "ops", "no op to run");
  return job;
}

bool JobCandidate::runs_on(const std::string& op) const {
  return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end();
}

Job read_job(const std::string& path) { return Job::from_json(read_json_file(path), path); }
void write_job(const std::string& path, const Job& job) { write_json_file(path, job.to_json()); }

Json JobResult::to_json() const {
  Json j;
  j["schema"] = schema_id("gpu-result", 1);
  j["device"] = device;
  if (platform.known()) j["platform"] = signature::platform_to_json(platform);
  j["checks"] = Json::array();
  for (const auto& c : checks) {
    Json cj{{"op", c.op}, {"candidate", c.candidate}, {"status", c.status}, {"message", c.message},
            {"seed", c.seed}, {"launch_ms", c.launch_ms}};
    if (!c.equivalence.is_null()) cj["equivalence"] = c.equivalence;
    if (!c.vendor_vs_cpu.is_null()) cj["vendor_vs_cpu"] = c.vendor_vs_cpu;
    if (c.profiled) cj["profiled"] = true;
    j["checks"].push_back(cj);
  }
  j["vendors"] = Json::array();
  for (const auto& v : vendors) {
    j["vendors"].push_back({{"op", v.op}, {"library", v.library}, {"math", v.math}, {"kernels", v.kernels},
                            {"kernels_note", v.kernels_note}, {"details", v.details}});
  }
  j["launches"] = Json::array();
  for (const auto& l : launches) {
    j["launches"].push_back({{"segment", l.segment}, {"op", l.op}, {"candidate", l.candidate},
                             {"repeat", l.repeat}, {"stream_id", l.stream_id}, {"seed", l.seed}, {"pid", l.pid}});
  }
  if (!phase_seconds.empty()) j["phase_seconds"] = phase_seconds;
  return j;
}

JobResult JobResult::from_json(const Json& j, const std::string& file) {
  require_schema(j, "gpu-result", 1, file);
  JobResult r;
  r.device = get_field<std::string>(j, "device", file);
  r.platform = j.contains("platform") ? signature::platform_from_json(j["platform"], file, "platform")
                                      : signature::platform_from_origin(r.device);
  for (const auto& c : get_field<Json>(j, "checks", file)) {
    CheckRecord rec;
    rec.op = get_field<std::string>(c, "op", file);
    rec.candidate = get_field<std::string>(c, "candidate", file);
    rec.status = get_field<std::string>(c, "status", file);
    rec.message = get_field<std::string>(c, "message", file);
    rec.seed = get_field<std::uint64_t>(c, "seed", file);
    rec.launch_ms = get_field<double>(c, "launch_ms", file);
    if (c.contains("equivalence")) rec.equivalence = c["equivalence"];
    if (c.contains("vendor_vs_cpu")) rec.vendor_vs_cpu = c["vendor_vs_cpu"];
    rec.profiled = c.value("profiled", false);
    r.checks.push_back(std::move(rec));
  }
  for (const auto& v : get_field<Json>(j, "vendors", file)) {
    VendorRecord rec;
    rec.op = get_field<std::string>(v, "op", file);
    rec.library = get_field<std::string>(v, "library", file);
    rec.math = get_field<std::string>(v, "math", file);
    rec.kernels = get_field<std::vector<std::string>>(v, "kernels", file);
    rec.kernels_note = get_field<std::string>(v, "kernels_note", file);
    rec.details = v.value("details", Json());
    r.vendors.push_back(std::move(rec));
  }
  for (const auto& l : get_field<Json>(j, "launches", file)) {
    r.launches.push_back({get_field<std::string>(l, "segment", file), get_field<std::string>(l, "op", file),
                          get_field<std::string>(l, "candidate", file), get_field<int>(l, "repeat", file),
                          get_field<std::uint64_t>(l, "stream_id", file), get_field<std::uint64_t>(l, "seed", file),
                          l.value("pid", std::int64_t{0})});
  }
  if (j.contains("phase_seconds")) r.phase_seconds = get_field<std::map<std::string, double>>(j, "phase_seconds", file);
  return r;
}

JobResult read_job_result(const std::string& path) { return JobResult::from_json(read_json_file(path), path); }

}  // namespace vxsynth::gpu
