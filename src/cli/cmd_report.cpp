// vxsynth report SUITE_DIR -o DIR: the suite report (static HTML with SVG/PNG figures). The
// figures are matplotlib's, so the work is done by python/vxsynth/report.py under Debian's
// /usr/bin/python3 (with python3-matplotlib); this command finds the source tree's python/ folder,
// runs `python3 -m vxsynth.report` there and passes its output and exit code through.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/json_io.h"
#include "refine/suite.h"
#include "refine/suite_run.h"

extern char** environ;

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string suite, out;
  bool no_png = false;
};

// The interpreter: $VXSYNTH_PYTHON when set, else Debian's /usr/bin/python3 (the one whose
// python3-matplotlib scripts/install-deps installs; the `python3` first on PATH may lack it).
std::string interpreter() {
  const char* named = std::getenv("VXSYNTH_PYTHON");
  return named && *named ? named : "/usr/bin/python3";
}

// The source tree's python/ folder: $VXSYNTH_PYTHONPATH when set, else the one this binary
// was built from.
std::string python_dir() {
  const char* named = std::getenv("VXSYNTH_PYTHONPATH");
  return named && *named ? named : VXSYNTH_PYTHON_DIR;
}

int run_python(const std::vector<std::string>& args, const std::string& pythonpath) {
  std::string path = pythonpath;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  std::vector<std::string> env_strings{"PYTHONPATH=" + path, "MPLBACKEND=Agg"};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0 && std::strncmp(*e, "MPLBACKEND=", 11) != 0)
      env_strings.emplace_back(*e);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> owned = args;
  for (auto& s : owned) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  if (err != 0)
    throw InputError(args[0], "interpreter", std::string("cannot run it (") + std::strerror(err) +
                                                 "): install Debian's python3 and python3-matplotlib "
                                                 "(scripts/install-deps), or set VXSYNTH_PYTHON");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  std::cerr << "vxsynth report: " << args[0] << " ended by signal " << WTERMSIG(status) << "\n";
  return kExitWorkFailed;
}

const CommandRegistrar reg(
    "report", "the suite report: static HTML with figures (coverage, proxies per metric, chains, axis responses)",
    75, [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<ReportOptions>();
      sub.add_option("SUITE_DIR", o->suite, "a locked suite folder, e.g. suite/vx-robotics/h200")->required();
      sub.add_option("-o,--out", o->out, "output folder (index.html and figures/ are written there)")->required();
      sub.add_flag("--no-png", o->no_png, "write the figures as SVG only (PNG copies are written by default)");
      sub.footer(
          "Runs python/vxsynth/report.py with /usr/bin/python3 and matplotlib (VXSYNTH_PYTHON names another "
          "interpreter). docs/report.md says what each figure shows. Exit codes: 0 written, 2 bad input (the "
          "message names the file and field) or python3/matplotlib missing.");
      return [o]() -> int {
        const std::string py = interpreter();
        if (access(py.c_str(), X_OK) != 0)
          throw InputError(py, "interpreter",
                           "not an executable file: install Debian's python3 and python3-matplotlib "
                           "(scripts/install-deps), or set VXSYNTH_PYTHON");
        const std::string dir = python_dir();
        if (!fs::is_regular_file(fs::path(dir) / "vxsynth" / "report.py"))
          throw InputError(dir, "python folder",
                           "no vxsynth/report.py there (the source tree moved?): set VXSYNTH_PYTHONPATH to "
                           "the source tree's python/ folder");
        // The suite table's figures come from the one place `suite status` takes them.
        const auto plan = refine::plan_suite(o->suite, refine::kReferenceNoiseD);
        fs::create_directories(o->out);
        const std::string status = (fs::path(o->out) / "suite-status.json").string();
        write_json_file(status, refine::suite_status(plan));
        std::vector<std::string> args{py, "-m", "vxsynth.report", o->suite, "-o", o->out, "--status", status};
        if (o->no_png) args.emplace_back("--no-png");
        return run_python(args, dir);
      };
    });

}  // namespace
}  // namespace vxsynth::cli
