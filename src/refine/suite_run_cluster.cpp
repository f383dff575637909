#include "refine/suite_run_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/process.h"
#include "refine/record.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

double now_epoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string this_host() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

// Modification time (seconds since the epoch) of a file, 0 when it does not exist.
double mtime_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
}

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : fallback;
}

std::string fixed(double v, int digits) {
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(digits) << v;
  return ss.str();
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string self_executable() { return fs::read_symlink("/proc/self/exe").string(); }

fs::path task_file(const fs::path& run, int index) { return run / "tasks" / ("worker-" + std::to_string(index) + ".json"); }

Json read_task(const fs::path& run, int index) {
  const fs::path f = task_file(run, index);
  if (!fs::is_regular_file(f)) return nullptr;
  const Json t = read_json_file(f.string());
  if (t.value("schema", "") != schema_id("suite-task", 1)) {
    throw InputError(f.string(), "schema", "expected \"" + schema_id("suite-task", 1) + "\"");
  }
  return t;
}

// Whether another process holds the write lock of a revision record (RecordFile takes one for
// as long as it writes).
bool record_in_use(const fs::path& record) {
  const int fd = ::open(record.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  const bool busy = ::fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  ::close(fd);
  return busy;
}

// "0-2,5,7-8" from sorted indices.
std::string index_list(const std::vector<int>& indices) {
  std::string out;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(indices[i]) + (j > i ? "-" + std::to_string(indices[j]) : "");
    i = j + 1;
  }
  return out;
}

// sbatch --parsable prints "ID" or "ID;CLUSTER".
std::string submit(const std::vector<std::string>& argv) {
  std::string out;
  const int rc = run_program(argv, &out);
  std::string id = out.substr(0, out.find_first_of(";\n"));
  id.erase(std::remove_if(id.begin(), id.end(), ::isspace), id.end());
  if (rc != 0 || id.empty() || !std::all_of(id.begin(), id.end(), ::isdigit)) {
    throw WorkError(render_command(argv) + " failed (exit " + std::to_string(rc) + "): " + out);
  }
  return id;
}

struct QueueState {
  bool known = false;                   // squeue answered
  std::map<int, std::string> by_index;  // array task index -> PENDING, RUNNING, ...
};

// What squeue says of the array job's tasks; unknown when squeue is missing or fails.
QueueState query_queue(const std::string& job) {
  QueueState q;
  if (job.empty()) return q;
  const std::string squeue = find_on_path("squeue");
  if (squeue.empty()) return q;
  std::string out;
  const int rc = run_program({squeue, "-h", "-r", "-j", job, "-o", "%K|%T"}, &out);
  if (rc != 0) {
    // A job that left the queue long ago is no longer known by id: nothing of it is queued.
    if (out.find("Invalid job id") != std::string::npos) q.known = true;
    return q;
  }
  q.known = true;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    try {
      q.by_index[std::stoi(line.substr(0, bar))] = line.substr(bar + 1);
    } catch (const std::exception&) {
    }
  }
  return q;
}

std::string query_job_state(const std::string& job) {
  const std::string squeue = find_on_path("squeue");
  if (job.empty() || squeue.empty()) return "";
  std::string out;
  if (run_program({squeue, "-h", "-j", job, "-o", "%T"}, &out) != 0) return out.find("Invalid job id") != std::string::npos ? "ended" : "";
  out.erase(std::remove_if(out.begin(), out.end(), ::isspace), out.end());
  return out.empty() ? "ended" : out;
}

void check_sbatch_value(const std::string& option, const std::string& value) {
  if (value.find_first_of(" \t\r\n") != std::string::npos) {
    throw InputError(option, value, "expected one word (it becomes an #SBATCH line)");
  }
}

}  // namespace

void begin_task_attempt(const std::string& run, const SuiteWorker& w, const std::string& log) {
  const fs::path file = task_file(run, w.index);
  fs::create_directories(file.parent_path());
  Json t = read_task(run, w.index);
  if (t.is_null()) {
    t = {{"schema", schema_id("suite-task", 1)}, {"index", w.index}, {"chains", w.chains}, {"attempts", Json::array()}};
  }
  for (auto& a : t["attempts"]) {
    if (a["ended"].is_null()) {
      // Killed without a word (SIGKILL, a lost node): its log's last write is when it stopped.
      a["interrupted"] = true;
      a["last_sign"] = mtime_of(fs::path(run) / a.value("log", ""));
    }
  }
  Json a{{"started", now_epoch()}, {"ended", nullptr}, {"exit", nullptr}, {"host", this_host()}, {"pid", ::getpid()},
         {"log", fs::path(log).filename().string()}};
  if (!env_or("SLURM_JOB_ID").empty()) {
    const std::string array = env_or("SLURM_ARRAY_JOB_ID"), task = env_or("SLURM_ARRAY_TASK_ID");
    a["slurm_job"] = array.empty() ? env_or("SLURM_JOB_ID") : array + "_" + task;
    a["slurm_job_id"] = env_or("SLURM_JOB_ID");
    a["slurm_restart_count"] = std::atoi(env_or("SLURM_RESTART_COUNT", "0").c_str());
  }
  t["attempts"].push_back(a);
  t["state"] = "running";
  write_json_file(file.string(), t);
}

void end_task_attempt(const std::string& run, int index, int exit_code) {
  Json t = read_task(run, index);
  if (t.is_null() || t["attempts"].empty()) return;
  Json& a = t["attempts"].back();
  a["ended"] = now_epoch();
  a["exit"] = exit_code;
  // 128 + signal: stopped from outside (a requeue, preemption, the time limit, Ctrl-C).
  t["state"] = exit_code == 0 ? "finished" : exit_code > 128 ? "interrupted" : "failed";
  write_json_file(task_file(run, index).string(), t);
}

SlurmSubmission submit_suite_slurm(const SuitePlan& plan, const SuiteRefineOptions& options, const SlurmOptions& slurm,
                                   std::ostream& progress) {
  if (options.out.empty()) throw InputError("--out", "", "required (the run folder, on the file system every node shares)");
  for (const auto& [opt, v] : std::vector<std::pair<std::string, std::string>>{
           {"--partition", slurm.partition}, {"--time", slurm.time}, {"--account", slurm.account}}) {
    check_sbatch_value(opt, v);
  }
  for (const auto& a : slurm.sbatch_args) {
    check_sbatch_value("--sbatch", a);
    if (a.rfind("--", 0) != 0) throw InputError("--sbatch", a, "expected an sbatch option (--name=value)");
  }
  if (slurm.signal_seconds < 0) throw InputError("--requeue-before", std::to_string(slurm.signal_seconds), "expected seconds >= 0");
  const std::string sbatch = find_on_path("sbatch");
  if (sbatch.empty()) throw WorkError("sbatch not found on PATH: --slurm submits through Slurm's client commands (Debian: slurm-client)");
  SuiteRefineOptions o = options;
  const fs::path run = fs::absolute(options.out).lexically_normal();
  // Both become #SBATCH lines (--output, --chdir), which end at the first blank.
  check_sbatch_value("--out", run.string());
  check_sbatch_value("the folder submitted from", fs::current_path().string());
  o.out = run.string();
  const fs::path run_file = run / kSuiteRunFile;

  // A resumed run: no two attempts of one chain at once.
  std::vector<int> unfinished;
  if (o.resume && fs::is_regular_file(run_file)) {
    const Json before = read_json_file(run_file.string());
    const Json& subs = before.contains("slurm") ? before["slurm"]["submissions"] : Json();
    if (subs.is_array() && !subs.empty()) {
      const QueueState q = query_queue(subs.back().value("array_job", ""));
      if (!q.by_index.empty()) {
        throw InputError(run_file.string(), "slurm", "array job " + subs.back().value("array_job", "") + " of this run still has " +
                                                         std::to_string(q.by_index.size()) +
                                                         " task(s) queued or running: wait for them or scancel it first");
      }
    }
  }
  std::vector<SuiteWorker> workers = prepare_suite_run(plan, o, true);
  Json j = read_json_file(run_file.string());
  j["cwd"] = fs::current_path().string();
  for (std::size_t i = 0; i < workers.size(); ++i) {
    // What the array task runs, fixed at submission (relative paths are from "cwd").
    j["workers"][i]["refine_argv"] = worker_refine_args(plan, o, workers[i]);
    const Json t = read_task(run, workers[i].index);
    if (!o.resume || t.is_null() || t.value("state", "") != "finished") unfinished.push_back(workers[i].index);
  }
  write_json_file(run_file.string(), j);

  SlurmSubmission s;
  const fs::path dir = run / "slurm";
  fs::create_directories(dir);
  const int gpus = slurm.gpus_per_task >= 0 ? slurm.gpus_per_task : (o.replay ? 0 : 1);
  const std::string self = o.self.empty() ? self_executable() : o.self;
  auto common_lines = [&](std::ostream& f, bool task) {
    f << "#SBATCH --chdir=" << fs::current_path().string() << "\n";
    f << "#SBATCH --ntasks=1\n";
    if (!slurm.partition.empty()) f << "#SBATCH --partition=" << slurm.partition << "\n";
    if (!slurm.account.empty()) f << "#SBATCH --account=" << slurm.account << "\n";
    if (task) {
      if (!slurm.time.empty()) f << "#SBATCH --time=" << slurm.time << "\n";
      if (gpus > 0) f << "#SBATCH --gpus-per-task=" << gpus << "\n";
      if (slurm.cpus_per_task > 0) f << "#SBATCH --cpus-per-task=" << slurm.cpus_per_task << "\n";
      for (const auto& a : slurm.sbatch_args) f << "#SBATCH " << a << "\n";
    }
  };
  s.script = (dir / "refine.sbatch").string();
  {
    std::ofstream f(s.script);
    f << "#!/bin/bash\n"
      << "# Written by `vxsynth suite refine --slurm` (docs/cluster.md): array task I refines chain I of\n"
      << "# " << run_file.string() << " (`vxsynth suite task`). To submit it again by hand:\n"
      << "#   sbatch --array=0-" << workers.size() - 1 << " " << s.script << "\n"
      << "#SBATCH --job-name=vxsynth-refine\n"
      << "#SBATCH --output=" << (dir / "task-%a.out").string() << "\n"
      << "#SBATCH --open-mode=append\n"
      << "#SBATCH --requeue\n";
    if (slurm.signal_seconds > 0) f << "#SBATCH --signal=B:USR1@" << slurm.signal_seconds << "\n";
    common_lines(f, true);
    f << "\n"
      << "# Shortly before the time limit Slurm sends USR1 to this script: put the task back in the\n"
      << "# queue. Slurm stops it; when it runs again, `suite task` resumes the chain from its records.\n"
      << "# (By ARRAY_TASK: an array's job id alone names every task of it, and the last task's\n"
      << "# SLURM_JOB_ID is that id.)\n"
      << "task=\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"\n"
      << "trap 'echo \"vxsynth: time limit near: requeueing ${task}\"; scontrol requeue \"${task}\"' USR1\n"
      << shell_quote(self) << " suite task " << shell_quote(run.string()) << " --index \"${SLURM_ARRAY_TASK_ID}\" &\n"
      << "child=$!\n"
      << "# `wait` returns early when a trapped signal arrives: wait until the task has ended.\n"
      << "while true; do\n"
      << "  wait \"$child\"; rc=$?\n"
      << "  kill -0 \"$child\" 2>/dev/null || break\n"
      << "done\n"
      << "exit \"$rc\"\n";
  }
  const std::string collect_script = (dir / "collect.sbatch").string();
  if (slurm.collect) {
    if (slurm.suite.empty()) throw InputError("SUITE", "", "the collect step needs the suite folder");
    std::ofstream f(collect_script);
    f << "#!/bin/bash\n"
      << "# Written by `vxsynth suite refine --slurm` (docs/cluster.md): after the array job, locks each\n"
      << "# finished chain's best checked pair into the suite folder and writes the suite table.\n"
      << "#SBATCH --job-name=vxsynth-collect\n"
      << "#SBATCH --output=" << (dir / "collect.out").string() << "\n"
      << "#SBATCH --open-mode=append\n";
    common_lines(f, false);
    f << "\n"
      << "exec " << shell_quote(self) << " suite collect " << shell_quote(fs::absolute(slurm.suite).lexically_normal().string())
      << " --run " << shell_quote(run.string()) << "\n";
  }
  if (unfinished.empty()) {
    progress << "every chain of " << run.string() << " has finished: nothing to submit (collect with `vxsynth suite collect "
             << slurm.suite << " --run " << run.string() << "`)\n";
    return s;
  }
  s.tasks = index_list(unfinished) + (slurm.max_running > 0 ? "%" + std::to_string(slurm.max_running) : "");
  // Each job id goes into suite-run.json as soon as Slurm gives it: status and --resume find the
  // array job even when submitting the collect job fails.
  auto record_submission = [&] {
    Json rj = read_json_file(run_file.string());
    Json sub{{"array_job", s.array_job}, {"tasks", s.tasks}, {"collect_job", s.collect_job}, {"at", now_epoch()}, {"script", s.script}};
    if (!rj.contains("slurm")) rj["slurm"] = {{"submissions", Json::array()}};
    auto& subs = rj["slurm"]["submissions"];
    if (!subs.empty() && subs.back().value("array_job", "") == s.array_job) {
      subs.back() = sub;
    } else {
      subs.push_back(sub);
    }
    write_json_file(run_file.string(), rj);
  };
  s.array_job = submit({sbatch, "--parsable", "--array=" + s.tasks, s.script});
  record_submission();
  progress << "submitted array job " << s.array_job << ": " << unfinished.size() << " task(s) (" << s.tasks
           << "), one chain each; script " << s.script << "\n";
  for (const auto& w : workers) {
    if (std::find(unfinished.begin(), unfinished.end(), w.index) == unfinished.end()) continue;
    progress << "  task " << w.index << ": " << w.chains.front() << "\n";
  }
  if (slurm.collect) {
    s.collect_job = submit({sbatch, "--parsable", "--dependency=afterany:" + s.array_job, "--kill-on-invalid-dep=yes", collect_script});
    record_submission();
    progress << "submitted collect job " << s.collect_job << " (runs when every task has ended)\n";
  }
  return s;
}

int run_suite_task(const std::string& run_dir, int index, std::ostream& progress, double wait_seconds) {
  const fs::path run = fs::absolute(run_dir).lexically_normal();
  const std::string file = (run / kSuiteRunFile).string();
  const auto workers = read_suite_workers(run.string());
  const Json j = read_json_file(file);
  const auto it = std::find_if(workers.begin(), workers.end(), [&](const SuiteWorker& w) { return w.index == index; });
  if (it == workers.end()) {
    throw InputError(file, "workers", "no worker " + std::to_string(index) + " (the run has " + std::to_string(workers.size()) + ")");
  }
  const SuiteWorker& w = *it;
  const Json& wj = j["workers"][static_cast<std::size_t>(it - workers.begin())];
  if (!wj.contains("refine_argv") || !wj["refine_argv"].is_array()) {
    throw InputError(file, "workers[" + std::to_string(index) + "].refine_argv",
                     "missing: the run was not submitted with --slurm (continue it with `vxsynth suite refine --resume`)");
  }
  std::vector<std::string> argv = {self_executable()};
  for (const auto& a : wj["refine_argv"]) {
    if (!a.is_string()) throw InputError(file, "workers[" + std::to_string(index) + "].refine_argv", "expected strings");
    argv.push_back(a.get<std::string>());
  }
  if (j.contains("cwd")) {
    std::error_code ec;
    fs::current_path(j["cwd"].get<std::string>(), ec);
    if (ec) throw InputError(file, "cwd", j["cwd"].get<std::string>() + ": " + ec.message() + " (the folder the run was submitted from)");
  }
  // An earlier attempt of this task may still be ending (Slurm kills a requeued task with
  // SIGTERM, then SIGKILL after KillWait): wait until no record of the worker is being written.
  const auto waited_since = std::chrono::steady_clock::now();
  for (const auto& chain : w.chains) {
    const fs::path record = fs::path(w.dir) / chain / "revisions.jsonl";
    while (record_in_use(record)) {
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - waited_since).count() > wait_seconds) {
        throw WorkError(record.string() + " is still being written by another process after " + fixed(wait_seconds, 0) +
                        " s: an earlier attempt of task " + std::to_string(index) + " has not ended");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  const bool resume = fs::exists(w.dir);
  if (resume) argv.push_back("--resume");
  const std::string log = next_worker_log(run.string(), index);
  begin_task_attempt(run.string(), w, log);
  const Json t = read_task(run, index);
  progress << "task " << index << " (" << w.chains.front() << (w.chains.size() > 1 ? ", ..." : "") << "): attempt "
           << t["attempts"].size() << " on " << this_host() << (resume ? ", resuming its records" : "") << "; log " << log
           << std::endl;
  ProcessOptions po;
  po.stdout_path = log;
  po.stderr_path = log;
  // Its own process group with SIGTERM and SIGINT forwarded (a timeout of a century): Slurm's
  // stop signal reaches `vxsynth refine` even where only this process is signalled.
  po.timeout_seconds = 100.0 * 365 * 24 * 3600;
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_process(argv, po);
  end_task_attempt(run.string(), index, r.exit_code);
  progress << "task " << index << ": exit " << r.exit_code << " after "
           << fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 1) << " s" << std::endl;
  return r.exit_code;
}

Json suite_run_status(const std::string& run_dir) {
  const fs::path run = run_dir;
  const std::string file = (run / kSuiteRunFile).string();
  if (!fs::is_regular_file(file)) throw InputError(file, "", "no such file: not a `vxsynth suite refine` run folder");
  const auto workers = read_suite_workers(run.string());
  const Json j = read_json_file(file);
  const std::string scheduler = j.value("scheduler", "local");
  std::string array_job, collect_job;
  if (j.contains("slurm") && j["slurm"].contains("submissions") && !j["slurm"]["submissions"].empty()) {
    array_job = j["slurm"]["submissions"].back().value("array_job", "");
    collect_job = j["slurm"]["submissions"].back().value("collect_job", "");
  }
  const QueueState queue = scheduler == "slurm" ? query_queue(array_job) : QueueState{};
  const double now = now_epoch();
  const std::string host = this_host();
  Json rows = Json::array();
  std::map<std::string, int> counts;
  for (const auto& w : workers) {
    const Json t = read_task(run, w.index);
    const auto q = queue.by_index.find(w.index);
    // The queue's word for the task, in ours: waiting to start (again), running, or nothing
    // to say (not queued, squeue unknown, or a passing state such as COMPLETING).
    const std::string raw = q == queue.by_index.end() ? "" : q->second;
    std::string queued;
    if (raw == "PENDING" || raw.rfind("REQUEUE", 0) == 0 || raw == "SUSPENDED") queued = "waiting";
    if (raw == "RUNNING" || raw == "CONFIGURING") queued = "running";
    std::string state;
    bool alive = false;  // the last attempt on file is running now
    const std::string recorded = t.is_null() ? "" : t.value("state", "");
    const Json last = t.is_null() || t["attempts"].empty() ? Json() : t["attempts"].back();
    if (queued == "running") {
      state = "running";
      alive = recorded == "running";  // else a new attempt is starting
    } else if (queued == "waiting") {
      state = recorded.empty() ? "pending" : "requeued";
    } else if (recorded.empty()) {
      state = "not started";
    } else if (recorded == "running") {
      if (queue.known && raw.empty()) {
        state = "interrupted";  // gone from the queue without a word (SIGKILL, a lost node)
      } else if (last.value("host", "") == host && ::kill(last.value("pid", 0), 0) != 0 && errno == ESRCH) {
        state = "interrupted";  // its process on this machine is gone
      } else {
        state = "running";
        alive = true;
      }
    } else if (recorded == "interrupted") {
      state = "interrupted";
    } else if (recorded == "finished") {
      state = "done";
    } else {
      state = "failed";
    }
    // Elapsed: the attempts' run times (an attempt killed without a word counts until its
    // log's last write).
    double elapsed = 0;
    int attempts = 0;
    if (!t.is_null()) {
      for (std::size_t i = 0; i < t["attempts"].size(); ++i) {
        const Json& a = t["attempts"][i];
        ++attempts;
        const double started = a.value("started", 0.0);
        double ended = a["ended"].is_number() ? a["ended"].get<double>() : 0;
        if (ended == 0) {
          const bool current = i + 1 == t["attempts"].size() && alive;
          ended = current ? now : a.contains("last_sign") ? a["last_sign"].get<double>() : mtime_of(run / a.value("log", ""));
        }
        elapsed += std::max(0.0, ended - started);
      }
    }
    for (const auto& chain : w.chains) {
      const auto lines = read_records((fs::path(w.dir) / chain / "revisions.jsonl").string());
      Json row{{"chain", chain},  {"task", w.index},        {"state", state},         {"attempts", attempts},
               {"elapsed_seconds", elapsed}, {"revisions", std::max<int>(0, static_cast<int>(lines.size()) - 1)},
               {"retained", 0}, {"start_d", nullptr}, {"best_d", nullptr}, {"best_revision", nullptr}, {"last_record", nullptr}};
      if (!last.is_null() && last.contains("exit") && last["exit"].is_number()) row["exit"] = last["exit"];
      if (!last.is_null() && last.contains("slurm_job")) row["slurm_job"] = last["slurm_job"];
      int retained = 0;
      for (const auto& l : lines) {
        const std::string decision = l.value("decision", "");
        if (decision == "retained") ++retained;
        if ((decision == "start" || decision == "retained") && l["d"].is_number()) {
          if (row["best_d"].is_null() || l["d"].get<double>() < row["best_d"].get<double>()) {
            row["best_d"] = l["d"];
            row["best_revision"] = l["revision"];
          }
        }
      }
      if (!lines.empty()) {
        row["start_d"] = lines.front()["d"];
        row["last_record"] = lines.back().value("at", "");
      }
      row["retained"] = retained;
      ++counts[state];
      rows.push_back(row);
    }
  }
  Json status{{"schema", schema_id("suite-run-status", 1)},
              {"run", run.string()},
              {"scheduler", scheduler},
              {"rows", rows},
              {"states", counts},
              {"queue_known", queue.known}};
  if (!array_job.empty()) status["array_job"] = array_job;
  if (!collect_job.empty()) {
    status["collect_job"] = collect_job;
    const std::string cs = query_job_state(collect_job);
    if (!cs.empty()) status["collect_job_state"] = cs;
  }
  if (fs::is_regular_file(run / "collect.json")) status["collected"] = read_json_file((run / "collect.json").string());
  return status;
}

std::string format_suite_run_status(const Json& s) {
  std::ostringstream out;
  out << "run " << s["run"].get<std::string>();
  if (s["scheduler"] == "slurm") {
    out << " (Slurm";
    if (s.contains("array_job")) out << ", array job " << s["array_job"].get<std::string>();
    if (s.contains("collect_job")) {
      out << ", collect job " << s["collect_job"].get<std::string>();
      if (s.contains("collect_job_state")) out << " " << s["collect_job_state"].get<std::string>();
    }
    if (!s["queue_known"].get<bool>()) out << "; squeue did not answer: states from the run folder alone";
    out << ")";
  }
  out << "\n";
  out << std::left << std::setw(27) << "chain" << std::right << std::setw(5) << "task" << "  " << std::left << std::setw(13) << "state"
      << std::right << std::setw(6) << "tries" << std::setw(6) << "revs" << std::setw(6) << "kept" << std::setw(9) << "start D"
      << std::setw(9) << "best D" << std::setw(6) << "at" << std::setw(10) << "elapsed" << "  last record\n";
  for (const auto& r : s["rows"]) {
    std::string state = r["state"].get<std::string>();
    if (state == "failed" && r.contains("exit")) state += " (" + std::to_string(r["exit"].get<int>()) + ")";
    out << std::left << std::setw(27) << r["chain"].get<std::string>() << std::right << std::setw(5) << r["task"].get<int>() << "  "
        << std::left << std::setw(13) << state << std::right << std::setw(6) << r["attempts"].get<int>() << std::setw(6)
        << r["revisions"].get<int>() << std::setw(6) << r["retained"].get<int>() << std::setw(9)
        << (r["start_d"].is_number() ? fixed(r["start_d"].get<double>(), 4) : "-") << std::setw(9)
        << (r["best_d"].is_number() ? fixed(r["best_d"].get<double>(), 4) : "-") << std::setw(6)
        << (r["best_revision"].is_number() ? "r" + std::to_string(r["best_revision"].get<int>()) : "-") << std::setw(8)
        << fixed(r["elapsed_seconds"].get<double>(), 0) << " s  "
        << (r["last_record"].is_string() ? r["last_record"].get<std::string>() : "-") << "\n";
  }
  out << "\n" << s["rows"].size() << " chain(s):";
  bool first = true;
  for (const auto& [state, n] : s["states"].items()) {
    out << (first ? " " : ", ") << n.get<int>() << " " << state;
    first = false;
  }
  out << "\n";
  if (s.contains("collected")) {
    const Json& c = s["collected"];
    out << "collected: " << c.value("locked", Json::array()).size() << " locked into " << c.value("suite", "") << "\n";
  }
  out << "columns: tries = attempts of the chain's task (a requeue or preemption adds one); revs = revisions after the start; "
         "kept = retained; best D = the lowest D of the start and retained revisions (at = which); elapsed = the attempts' "
         "run time; last record = the time stamp of the record's last line\n";
  return out.str();
}

}  // namespace vxsynth::refine
