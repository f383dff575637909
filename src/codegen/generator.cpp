#include "codegen/generator.h"

#include "common/error.h"
#include "common/json_io.h"

namespace vxsynth::codegen {

GeneratorId current_generator() {
  static const GeneratorId id{kGeneratorVersion,
#include "codegen/generator_commit.inc"
  };
  return {id.version, id.commit == "unknown" ? std::string() : id.commit};
}

Json generator_to_json(const GeneratorId& g) { return Json{{"version", g.version}, {"commit", g.commit}}; }

GeneratorId generator_from_json(const Json& record, const std::string& file) {
  if (!record.is_object() || !record.contains("generator") || record["generator"].is_null()) return {};
  const Json& g = record["generator"];
  if (!g.is_object() || !g.contains("version") || !g["version"].is_number_integer() || g["version"].get<long long>() < 0 ||
      g["version"].get<long long>() > 1000000 || (g.contains("commit") && !g["commit"].is_string())) {
    throw InputError(file, "generator", "expected {\"version\": an integer >= 0, \"commit\": a string}, found " + dump_json(g, -1));
  }
  return {g["version"].get<int>(), g.value("commit", "")};
}

std::string describe(const GeneratorId& g) {
  if (g.unversioned()) return "the unversioned generator (before version 1)";
  return "generator " + std::to_string(g.version) +
         (g.commit.empty() ? std::string(" (commit unknown)") : " (commit " + g.commit.substr(0, 12) + (g.commit.size() > 40 ? "-dirty" : "") + ")");
}

}  // namespace vxsynth::codegen
