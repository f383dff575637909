#include "refine/lock_sources.h"

#include <sstream>

#include "codegen/emit.h"
#include "codegen/layout.h"
#include "common/json_io.h"
#include "common/text_file.h"
#include "design/design_point.h"
#include "ops/equivalence.h"

namespace vxsynth::refine {
namespace fs = std::filesystem;

namespace {

bool is_cxx(const std::string& name) {
  const std::string ext = fs::path(name).extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".h";
}

// A build file's words, its "#" comment lines dropped.
std::string build_file_words(const std::string& text) {
  std::istringstream in(text);
  std::string out, line, word;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    if (!(words >> word) || word[0] == '#') continue;
    out += word;
    while (words >> word) out += " " + word;
    out += "\n";
  }
  return out;
}

}  // namespace

Sameness compare_source(const std::string& name, const std::string& committed, const std::string& generated) {
  if (committed == generated) return Sameness::bytes;
  const bool same = is_cxx(name) ? codegen::code_tokens(committed) == codegen::code_tokens(generated)
                                 : build_file_words(committed) == build_file_words(generated);
  return same ? Sameness::code : Sameness::differs;
}

std::string to_string(Sameness s) {
  switch (s) {
    case Sameness::bytes: return "bytes";
    case Sameness::code: return "code";
    case Sameness::differs: return "differs";
    case Sameness::missing: return "missing";
  }
  return "?";
}

LockSources check_lock_sources(const fs::path& dir) {
  const std::string validation_file = (dir / "validation.json").string();
  const Json val = read_json_file(validation_file);
  LockSources out;
  auto side = [&](const char* field) {
    Json holder = Json::object();
    if (val.contains(field)) holder["generator"] = val[field];
    return codegen::generator_from_json(holder, validation_file + " (" + field + ")");
  };
  out.cuda_generator = side("cuda_generator");
  out.vortex_generator = side("vortex_generator");
  const design::DesignPoint d = design::read_design((dir / "design.json").string());
  const codegen::GeneratorId now = codegen::current_generator();

  std::vector<std::pair<std::string, std::string>> generated = {{"cuda/candidate.cu", codegen::emit_cuda(d)}};
  // As the lock writes them (codegen::write_benchmark: the candidate check's tolerance).
  const ops::Tolerance tol = ops::tolerance_for(d.op, ops::Check::candidate);
  const codegen::VortexCheck check{tol.atol, tol.rtol, 1};
  for (const auto& f : codegen::emit_vortex(d, check)) generated.emplace_back("vortex/" + f.name, f.text);

  for (const auto& [name, text] : generated) {
    SourceSameness s{name, Sameness::missing};
    const bool cuda = name.rfind("cuda/", 0) == 0;
    const codegen::GeneratorId& locked = cuda ? out.cuda_generator : out.vortex_generator;
    if (!fs::is_regular_file(dir / name)) {
      out.problems.push_back((dir / name).string() + ": missing (the lock writes every generated file)");
    } else {
      s.same = compare_source(name, read_text_file((dir / name).string()), text);
      if (s.same == Sameness::differs) {
        out.problems.push_back((dir / name).string() + ": " + codegen::describe(now) + " writes other code for " +
                               (dir / "design.json").string() + " than " + codegen::describe(locked) +
                               ", which made the lock: re-lock it (docs/suite.md, \"Regenerating a lock\")");
      } else if (s.same == Sameness::code && locked.version == now.version) {
        out.problems.push_back((dir / name).string() + ": laid out otherwise than " + codegen::describe(now) +
                               " writes it, though the lock says that generator made it");
      }
    }
    out.files.push_back(s);
  }
  return out;
}

}  // namespace vxsynth::refine
