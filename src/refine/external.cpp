#include "refine/external.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "codegen/benchmark.h"
#include "common/error.h"
#include "common/process.h"
#include "common/text_file.h"
#include "design/validity.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& allowed_outputs() {
  static const std::vector<std::string> files = {"candidate.cu", "kernel.cpp", "note.json"};
  return files;
}

Json sandbox_rules() {
  return Json::array({"write only candidate.cu, kernel.cpp and note.json into VXSYNTH_OUT",
                      "candidate.cu implements the candidate ABI (vxsynth_candidate_launch) for the op in the bundle",
                      "keep the fixed properties: engine class, data types, block size (the launch is checked), shape",
                      "no vendor library: no cuBLAS, cuBLASLt, cuDNN, CUTLASS",
                      "no file access, library loading or processes (fopen, open, ifstream, mmap, dlopen, system, popen, exec*)",
                      "kernel.cpp is the Vortex kernel for the design's benchmark (its common.h and main.cpp are given)",
                      "no cached outputs: the candidate computes the op from its inputs"});
}

}  // namespace

std::vector<std::string> source_violations(const std::string& text, bool vortex) {
  struct Rule {
    const char* pattern;
    const char* what;
  };
  static const Rule rules[] = {
      {R"(\bcublas\w*|\bcublasLt\w*)", "calls the vendor library cuBLAS"},
      {R"(\bcudnn\w*)", "calls the vendor library cuDNN"},
      {R"(\bcutlass\b)", "uses CUTLASS (vendor kernels)"},
      {R"(\b(fopen|freopen|fread|fscanf|open|openat|creat|mmap)\s*\(|\b(ifstream|ofstream|fstream|filebuf)\b|#\s*include\s*<fstream>)",
       "accesses files"},
      {R"(\b(dlopen|dlsym|system|popen|fork|execv|execve|execvp|execl|execlp|posix_spawn)\s*\()",
       "loads libraries or starts processes"},
      {R"(\bgetenv\s*\()", "reads the environment"},
  };
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    for (const auto& r : rules) {
      if (std::regex_search(line, std::regex(r.pattern))) {
        out.push_back(std::string(vortex ? "kernel.cpp" : "candidate.cu") + " line " + std::to_string(number) + " " +
                      r.what + ": " + line.substr(0, 120));
      }
    }
  }
  if (!vortex && text.find("vxsynth_candidate_launch") == std::string::npos) {
    out.push_back("candidate.cu does not define vxsynth_candidate_launch (the candidate ABI)");
  }
  return out;
}

std::vector<Proposal> ExternalGenerator::propose(const ChainState& chain, int width, const AvailableFn&) {
  if (width <= 0) return {};
  const int revision = chain.next_revision;
  const fs::path rdir = fs::path(chain.dir) / "generator" / ("r" + std::to_string(revision));
  const fs::path bundle = rdir / "bundle", outdir = rdir / "out";
  Proposal p;
  p.kind = "external";
  p.design = chain.current;

  if (!fs::is_regular_file(outdir / "note.json") || !fs::is_regular_file(rdir / "done")) {
    // The bundle: reference context, signature, distances, sandbox, axes, history, and the
    // retained pair to start from.
    fs::remove_all(rdir);
    fs::create_directories(bundle);
    fs::create_directories(outdir);
    codegen::BenchmarkOptions bo;
    bo.write_data = false;
    const auto files = codegen::write_benchmark(chain.current, (bundle / "current").string(), bo);
    Json dist = Json::object(), ref = Json::object(), cur = Json::object();
    for (const auto& m : signature::metric_table()) {
      const auto i = signature::index_of(m.id);
      const std::string key(m.key);
      dist[key] = chain.current_distances[i] ? Json(*chain.current_distances[i]) : Json(nullptr);
      ref[key] = chain.reference[i] ? Json(*chain.reference[i]) : Json(nullptr);
      cur[key] = chain.current_signature[i] ? Json(*chain.current_signature[i]) : Json(nullptr);
    }
    Json history = Json::array();
    for (const auto& r : chain.records) history.push_back(r.to_json());
    Json axes = Json::object();
    const Json design_json = design::design_to_json(chain.current);
    for (const auto& a : design::axis_names()) {
      if (design_json["axes"].contains(a)) axes[a] = design_json["axes"][a];  // Hopper axes only on Hopper designs
    }
    Json b{{"schema", schema_id(kBundleKind, 1)},
           {"chain", chain.name},
           {"revision", revision},
           {"parent", chain.current_revision},
           {"reference", chain.reference_context},
           {"reference_signature", ref},
           {"current", {{"design", design_json},
                        {"signature", cur},
                        {"distances", dist},
                        {"d", chain.current_d},
                        {"cuda", "current/cuda/candidate.cu"},
                        {"vortex", "current/vortex/"}}},
           {"axes", axes},
           {"sandbox", sandbox_rules()},
           {"fixed", {{"block_size", chain.current.fixed.block_size},
                      {"engine_class", design::to_string(chain.current.fixed.engine)},
                      {"precision", ops::to_string(chain.current.fixed.precision)}}},
           {"outputs", {{"cuda", "candidate.cu"}, {"vortex", "kernel.cpp"}, {"note", "note.json"}}},
           {"history", history}};
    write_json_file((bundle / "bundle.json").string(), b);
    (void)files;
    const std::string cmd = "cd '" + outdir.string() + "' && VXSYNTH_BUNDLE='" + bundle.string() + "' VXSYNTH_OUT='" +
                            outdir.string() + "' " + options_.command;
    std::string output;
    const int rc = run_program({"timeout", std::to_string(static_cast<int>(options_.timeout_seconds)), "/bin/sh", "-c", cmd},
                               &output);
    std::ofstream(rdir / "generator.log") << output;
    if (rc != 0) {
      p.rejected = "the generator exited " + std::to_string(rc) + " (log: " + (rdir / "generator.log").string() + ")";
      std::ofstream(rdir / "done") << "exit " << rc << "\n";
      return {p};
    }
    std::ofstream(rdir / "done") << "exit 0\n";
  }

  // The sandbox: only the named files.
  std::vector<std::string> problems;
  for (const auto& entry : fs::directory_iterator(outdir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(allowed_outputs().begin(), allowed_outputs().end(), name) == allowed_outputs().end()) {
      problems.push_back("wrote " + name + ", which is not one of candidate.cu, kernel.cpp, note.json");
    }
  }
  for (const auto& name : allowed_outputs()) {
    if (!fs::is_regular_file(outdir / name)) problems.push_back("did not write " + name);
  }
  Json note;
  if (fs::is_regular_file(outdir / "note.json")) {
    try {
      note = read_json_file((outdir / "note.json").string());
      require_schema(note, kNoteKind, 1, (outdir / "note.json").string());
    } catch (const InputError& e) {
      problems.push_back(e.what());
      note = Json();
    }
  }
  p.note = note;
  if (note.is_object()) {
    const std::string file = (outdir / "note.json").string();
    try {
      if (note.contains("moves") && note["moves"].is_array()) {
        for (std::size_t i = 0; i < note["moves"].size(); ++i) {
          p.moves.push_back(design::move_from_json(note["moves"][i], file, "moves[" + std::to_string(i) + "]"));
        }
      }
      if (note.contains("targets") && note["targets"].is_array()) {
        for (const auto& t : note["targets"]) {
          if (t.is_string()) p.targets.push_back(t.get<std::string>());
        }
      }
      p.why = note.value("why", std::string());
      p.same_operator = note.value("same_operator", std::string());
      if (p.why.empty()) problems.push_back("note.json has no \"why\" (the metric it targets and why)");
      if (p.same_operator.empty()) problems.push_back("note.json has no \"same_operator\"");
    } catch (const InputError& e) {
      problems.push_back(e.what());
    }
  }
  std::string cuda, vortex;
  if (fs::is_regular_file(outdir / "candidate.cu")) {
    cuda = read_text_file((outdir / "candidate.cu").string());
    for (auto& v : source_violations(cuda, false)) problems.push_back(v);
  }
  if (fs::is_regular_file(outdir / "kernel.cpp")) {
    vortex = read_text_file((outdir / "kernel.cpp").string());
    for (auto& v : source_violations(vortex, true)) problems.push_back(v);
  }
  if (!problems.empty()) {
    std::string text = "sandbox: ";
    for (std::size_t i = 0; i < problems.size(); ++i) text += (i ? "; " : "") + problems[i];
    p.rejected = text;
    return {p};
  }
  p.cuda_source = (outdir / "candidate.cu").string();
  p.vortex_kernel = (outdir / "kernel.cpp").string();
  // A note may name the design its sources implement; when the generator's candidate.cu is
  // exactly that design's generated source, the candidate is that design (same evaluation key),
  // and a kernel.cpp equal to the generated one is the design's own.
  if (note.contains("design") && note["design"].is_object()) {
    try {
      const design::DesignPoint d = design::design_from_json(note["design"], (outdir / "note.json").string() + " (design)");
      design::require_valid(d, (outdir / "note.json").string());
      if (design_key(d) != design_key(chain.current) && d.op.kind == chain.current.op.kind &&
          d.fixed.block_size == chain.current.fixed.block_size && d.fixed.engine == chain.current.fixed.engine &&
          d.fixed.precision == chain.current.fixed.precision) {
        codegen::BenchmarkOptions bo;
        bo.write_data = false;
        const auto files = codegen::write_benchmark(d, (rdir / "declared").string(), bo);
        if (read_text_file(files.cuda_source) == cuda) {
          p.design = d;
          p.cuda_source.clear();
          if (read_text_file((fs::path(files.vortex_dir) / "kernel.cpp").string()) == vortex) p.vortex_kernel.clear();
        }
      }
    } catch (const InputError& e) {
      p.rejected = std::string("note.json design: ") + e.what();
    }
  }
  return {p};
}

}  // namespace vxsynth::refine
