// One testbed for generated code: designs on small odd shapes, the CUDA side compiled with the
// local nvcc (several designs per translation unit), the Vortex side run on the embedded
// simulator and checked against the ops CPU reference.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/benchmark.h"
#include "codegen/emit.h"
#include "design/seed.h"
#include "common/process.h"

namespace vxsynth::codegen::testbed {

namespace fs = std::filesystem;

// This process's scratch root, removed at exit (set VXSYNTH_KEEP_SCRATCH=1 to keep it for a look).
inline fs::path scratch_root() {
  static const fs::path root = [] {
    const fs::path r = fs::temp_directory_path() / ("vxsynth-codegen-" + std::to_string(::getpid()));
    std::atexit([] {
      if (std::getenv("VXSYNTH_KEEP_SCRATCH") == nullptr) {
        std::error_code ec;
        fs::remove_all(fs::temp_directory_path() / ("vxsynth-codegen-" + std::to_string(::getpid())), ec);
      }
    });
    return r;
  }();
  return root;
}

inline fs::path scratch_dir(const std::string& name) {
  const fs::path dir = scratch_root() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline std::string find_nvcc() {
  if (const char* env = std::getenv("VXSYNTH_NVCC")) return env;
  for (const char* p : {"/usr/local/cuda/bin/nvcc", "/usr/bin/nvcc"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

// Compiles the CUDA side of all designs as one translation unit (each design in its own
// namespace with renamed entry points). Returns "" on success, else the compiler output.
inline std::string compile_cuda_batch(const std::vector<design::DesignPoint>& designs, const fs::path& dir,
                                      const std::string& nvcc) {
  std::ofstream unit(dir / "batch.cu");
  unit << "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <mma.h>\n"
          "#include \"vxsynth_candidate.h\"\n";
  for (std::size_t i = 0; i < designs.size(); ++i) {
    const std::string name = "design" + std::to_string(i) + ".cu";
    std::ofstream(dir / name) << emit_cuda(designs[i]);
    unit << "#define vxsynth_candidate_launch vxsynth_candidate_launch_" << i << "\n"
         << "#define vxsynth_candidate_workspace_bytes vxsynth_candidate_workspace_bytes_" << i << "\n"
         << "namespace design" << i << " {\n#include \"" << name << "\"\n}\n"
         << "#undef vxsynth_candidate_launch\n#undef vxsynth_candidate_workspace_bytes\n";
  }
  unit.close();
  std::string output;
  const int rc = run_program({nvcc, "-arch=sm_90", "-std=c++17", "-c", (dir / "batch.cu").string(), "-o",
                                           (dir / "batch.o").string(), "-I", VXSYNTH_CANDIDATE_ABI_DIR, "-I",
                                           dir.string()},
                                          &output);
  return rc == 0 ? std::string() : "nvcc failed (" + std::to_string(rc) + "):\n" + output;
}

// The text of one file of the design's Vortex benchmark ("kernel.cpp", "common.h", ...); "" when
// the benchmark has no such file.
inline std::string vortex_file(const design::DesignPoint& d, const std::string& name) {
  for (const auto& f : emit_vortex(d, {}))
    if (f.name == name) return f.text;
  return "";
}

// A generated source as one line: each line trimmed and joined to the last by one space, a
// comment's later lines without their "//". A test looks for a fragment of code in it whatever
// line breaks the generator's layout put inside the fragment.
inline std::string one_line(const std::string& text) {
  std::string out, line;
  bool last_comment = false;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    const auto begin = line.find_first_not_of(' ');
    if (begin == std::string::npos) continue;
    std::string t = line.substr(begin);
    const bool comment = t.rfind("//", 0) == 0;
    if (comment && last_comment) {
      const auto words = t.find_first_not_of("/ ");
      t = words == std::string::npos ? std::string() : t.substr(words);
    }
    out += (out.empty() ? "" : " ") + t;
    last_comment = comment;
  }
  return out;
}

}  // namespace vxsynth::codegen::testbed
