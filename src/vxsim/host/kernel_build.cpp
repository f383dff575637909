#include "vxsim/host/kernel_build.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/error.h"
#include "vxsim/host/kernel_flags.h"
#include "vxsim/host/host_flags.h"
#include "vxsim/host/vxbin.h"
#include "vxsim/simulator.h"
#include "vxsim/verify.h"


namespace vxsynth::vxsim::host {

namespace fs = std::filesystem;

namespace {

// The flags are vortex-rt/cmake/VortexFlags.cmake's (kernel_flags.h is generated from it).
using namespace kernel_flags;

enum class Language { kC, kCxx, kAsm };

Language language_of(const fs::path& source) {
  const std::string ext = source.extension().string();
  if (ext == ".c") return Language::kC;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C") return Language::kCxx;
  if (ext == ".S" || ext == ".s") return Language::kAsm;
  throw InputError(source.string(), "", "unknown source type '" + ext + "' (expected .c, .cpp, .cc, .cxx, .S or .s)");
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& arg : argv) {
    if (!text.empty()) text += ' ';
    const bool quote = arg.find_first_of(" \t\"'$") != std::string::npos;
    text += quote ? "'" + arg + "'" : arg;
  }
  return text;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

class TempDir {
 public:
  explicit TempDir(const fs::path& near) {
    std::random_device random;
    for (int attempt = 0; attempt < 16; ++attempt) {
      fs::path candidate = near / (".vxsim-cc-" + std::to_string(random()));
      std::error_code ec;
      if (fs::create_directory(candidate, ec)) {
        path_ = candidate;
        return;
      }
    }
    throw WorkError("cannot create a temporary folder in " + near.string());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// `relative` under the prefix of an installed vxsynth (cmake --install) when this program is
// one and the file is there, else "".
std::string installed_file(const fs::path& relative) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::string prefix = installed_prefix_of(self.string());
  if (prefix.empty()) return "";
  const fs::path path = fs::path(prefix) / relative;
  return fs::is_regular_file(path, ec) ? path.string() : "";
}

}  // namespace

std::string default_runtime_dir() {
  if (const char* env = std::getenv("VXSYNTH_VORTEX_RT"); env != nullptr && *env != '\0') return env;
  // An installed vxsynth carries vortex-rt in <prefix>/share/vxsynth/vortex-rt.
  const std::string installed = installed_file("share/vxsynth/vortex-rt/include/vx_spawn.h");
  if (!installed.empty()) return fs::path(installed).parent_path().parent_path().string();
  return VXSYNTH_VORTEX_RT_DIR;
}

std::string default_tool_prefix() {
  if (const char* env = std::getenv("VXSYNTH_RISCV_PREFIX"); env != nullptr && *env != '\0') return env;
  return "riscv64-unknown-elf-";
}

std::string default_kernel_compiler() {
  if (const char* env = std::getenv("VXSYNTH_KERNEL_COMPILER"); env != nullptr && *env != '\0') return env;
  return "clang";
}

std::string default_divergence_plugin() {
  if (const char* env = std::getenv("VXSYNTH_VORTEX_PLUGIN"); env != nullptr && *env != '\0') return env;
  // An installed vxsynth carries the plugin in <prefix>/lib/vxsynth.
  const std::string installed = installed_file("lib/vxsynth/VortexDivergence.so");
  return installed.empty() ? std::string(kDivergencePlugin) : installed;
}

std::string annotate_disassembly(const std::string& objdump_text) {
  std::istringstream in(objdump_text);
  std::string out;
  std::string line;
  while (std::getline(in, line)) {
    // "80000010:\t0005000b          \t.4byte\t0x5000b"
    const size_t directive = line.find(".4byte\t0x");
    const size_t colon = line.find(':');
    if (directive != std::string::npos && colon != std::string::npos && colon < directive) {
      const uint32_t pc = static_cast<uint32_t>(std::strtoul(line.substr(0, colon).c_str(), nullptr, 16));
      const uint32_t word = static_cast<uint32_t>(std::strtoul(line.c_str() + directive + 7, nullptr, 16));
      const std::string text = Simulator::disassemble(word, pc);
      if (!text.empty()) line = line.substr(0, directive) + text;
    }
    out += line;
    out += '\n';
  }
  return out;
}

KernelBuildResult build_kernel(const KernelBuildOptions& options) {
  if (options.sources.empty()) throw InputError("sim cc", "SRC", "expected at least one kernel source file");
  const fs::path output = options.output;
  if (output.empty() || output.extension() != ".vxbin") {
    throw InputError("sim cc", "-o", "expected an output file name ending in .vxbin, got '" + options.output + "'");
  }
  static const std::vector<std::string> kLevels = {"0", "1", "2", "3", "s", "g"};
  if (std::find(kLevels.begin(), kLevels.end(), options.optimization) == kLevels.end()) {
    throw InputError("sim cc", "-O", "expected 0, 1, 2, 3, s or g, got '" + options.optimization + "'");
  }
  for (const std::string& source : options.sources) {
    if (!fs::is_regular_file(source)) throw InputError(source, "", "kernel source not found");
    language_of(source);
  }
  const fs::path runtime = options.runtime_dir.empty() ? fs::path(default_runtime_dir()) : fs::path(options.runtime_dir);
  const fs::path runtime_include = runtime / "include";
  const fs::path runtime_src = runtime / "src";
  const fs::path linker_script = runtime / "link32.ld";
  if (!fs::is_regular_file(runtime_include / "vx_spawn.h") || !fs::is_regular_file(linker_script)) {
    throw InputError(runtime.string(), "", "not a vortex-rt folder (expected include/vx_spawn.h and link32.ld); "
                                           "set --runtime or VXSYNTH_VORTEX_RT");
  }
  std::vector<fs::path> runtime_sources;
  for (const auto& entry : fs::directory_iterator(runtime_src)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".c" || ext == ".S") runtime_sources.push_back(entry.path());
  }
  std::sort(runtime_sources.begin(), runtime_sources.end());

  const std::string prefix = options.tool_prefix.empty() ? default_tool_prefix() : options.tool_prefix;
  const std::string gcc = prefix + "gcc";
  const std::string compiler = options.compiler.empty() ? default_kernel_compiler() : options.compiler;
  const bool clang = compiler == "clang";
  if (!clang && compiler != "gcc") {
    throw InputError("sim cc", "--compiler", "expected clang or gcc, got '" + compiler + "'");
  }
  const std::string cc = clang ? std::string("clang-") + kClangVersion : gcc;
  const std::string cxx = clang ? std::string("clang++-") + kClangVersion : prefix + "g++";
  const std::string plugin = default_divergence_plugin();
  if (clang && !fs::is_regular_file(plugin)) {
    throw WorkError("the vortex-divergence plugin is missing: " + plugin +
                    " (build vxsynth, or set VXSYNTH_VORTEX_PLUGIN; --compiler gcc builds without it)");
  }

  fs::path out_dir = output.parent_path();
  if (out_dir.empty()) out_dir = ".";
  {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir)) {
      throw InputError("sim cc", "-o", "cannot create the output folder " + out_dir.string() +
                                           (ec ? ": " + ec.message() : std::string(" (a file has that name)")));
    }
  }
  TempDir temp(out_dir);

  KernelBuildResult result;
  result.vxbin = output.string();
  result.elf = fs::path(output).replace_extension(".elf").string();
  result.dump = fs::path(output).replace_extension(".dump").string();
  result.bin = fs::path(output).replace_extension(".bin").string();

  auto run_step = [&](const std::vector<std::string>& argv, const std::string& what) {
    if (options.verbose) std::fprintf(stderr, "%s\n", join_command(argv).c_str());
    result.commands.push_back(argv);
    std::string diagnostics;
    int status = 0;
    try {
      status = run_program(argv, &diagnostics);
    } catch (const WorkError& error) {
      throw WorkError(std::string(error.what()) +
                      " (install Debian's gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf: scripts/install-deps)");
    }
    if (status != 0) {
      throw WorkError(what + " failed (exit " + std::to_string(status) + "):\n" + join_command(argv) + "\n" + diagnostics);
    }
    if (diagnostics.empty()) return;  // warnings
    if (options.warnings != nullptr) {
      *options.warnings += diagnostics;
    } else {
      std::fputs(diagnostics.c_str(), stderr);
    }
  };

  std::vector<std::string> objects;
  auto compile = [&](const fs::path& source, bool is_runtime) {
    const Language language = language_of(source);
    // Assembly goes through GNU as in both modes: clang 14's integrated assembler writes the
    // line table of a .S with fixed address steps that linker relaxation (a call shrunk to
    // jal) then invalidates, so source lines, the verifier's and the PC profile's, would name
    // the wrong file (vx_start.S for main's loop). GCC's keeps them relocatable.
    const bool gnu = !clang || language == Language::kAsm;
    std::vector<std::string> argv = {language == Language::kAsm ? gcc : language == Language::kCxx ? cxx : cc};
    append(argv, kArch);
    // The runtime always builds as the CMake library does (-O3); -O applies to the kernel.
    argv.push_back(is_runtime ? std::string("-O3") : "-O" + options.optimization);
    append(argv, kCommon);
    // The C++ device library wraps picolibc's <math.h>: its folder comes first.
    if (language == Language::kCxx) argv.push_back("-isystem" + (runtime / "cxx").string());
    append(argv, gnu ? kGcc : kClang);
    if (!gnu) argv.push_back("-fpass-plugin=" + plugin);
    if (language == Language::kCxx) append(argv, kCxx);
    argv.push_back("-I" + runtime_include.string());
    argv.push_back("-I" + (runtime / "extra").string());
    if (is_runtime) {
      argv.push_back("-I" + runtime_src.string());
    } else {
      for (const std::string& dir : options.include_dirs) argv.push_back("-I" + dir);
      for (const std::string& define : options.defines) argv.push_back("-D" + define);
      append(argv, options.extra_flags);
    }
    const fs::path object = temp.path() / (std::to_string(objects.size()) + "_" + source.filename().string() + ".o");
    argv.insert(argv.end(), {"-c", source.string(), "-o", object.string()});
    run_step(argv, "compiling " + source.string());
    objects.push_back(object.string());
  };
  for (const std::string& source : options.sources) compile(source, false);
  for (const fs::path& source : runtime_sources) compile(source, true);

  std::vector<std::string> link = {gcc};
  append(link, kLink);
  link.insert(link.end(), {"-T", linker_script.string()});
  append(link, objects);
  link.insert(link.end(), {"-lm", "-o", result.elf});
  run_step(link, "linking " + result.elf);

  std::vector<std::string> objdump = {prefix + "objdump", "-d", result.elf};
  if (options.verbose) std::fprintf(stderr, "%s > %s\n", join_command(objdump).c_str(), result.dump.c_str());
  result.commands.push_back(objdump);
  std::string listing;
  if (run_program(objdump, &listing) != 0) throw WorkError("disassembling " + result.elf + " failed:\n" + listing);
  std::ofstream dump(result.dump, std::ios::trunc);
  dump << annotate_disassembly(listing);
  if (!dump) throw WorkError("cannot write " + result.dump);
  if (options.verify) {
    const VerifyReport report = verify_split_join_file(result.elf);
    if (!report.ok()) {
      std::error_code ec;
      fs::remove(result.vxbin, ec);  // never leave a stale image that looks like this build
      fs::remove(result.bin, ec);
      throw WorkError(report.to_string() + "\n(the ELF and its disassembly are kept: " + result.elf + ", " + result.dump +
                      "; `vxsynth sim verify` checks a kernel built elsewhere)");
    }
  }
  write_images_from_elf(result.elf, result.vxbin, result.bin);
  return result;
}

}  // namespace vxsynth::vxsim::host
