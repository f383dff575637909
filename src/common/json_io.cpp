#include "common/json_io.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace vxsynth {

Json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return Json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, "", std::string("not valid JSON: ") + e.what());
  }
}

void write_json_file(const std::string& path, const Json& j) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "", "cannot write file");
    out << j.dump(2) << '\n';
    if (!out) throw InputError(path, "", "write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw InputError(path, "", "cannot rename temporary file into place");
}

std::string schema_id(const std::string& kind, int version) {
  return "vxsynth." + kind + "/" + std::to_string(version);
}

void require_schema(const Json& j, const std::string& kind, int version, const std::string& file) {
  const std::string want = schema_id(kind, version);
  if (!j.is_object()) throw InputError(file, "", "expected a JSON object with \"schema\": \"" + want + "\"");
  if (!j.contains("schema")) throw InputError(file, "schema", "missing (expected \"" + want + "\")");
  if (!j["schema"].is_string()) throw InputError(file, "schema", "must be a string (expected \"" + want + "\")");
  const std::string got = j["schema"].get<std::string>();
  if (got == want) return;
  const std::string prefix = "vxsynth." + kind + "/";
  if (got.rfind(prefix, 0) == 0)
    throw InputError(file, "schema", "version '" + got + "' is not supported by this build (it reads " + want + ")");
  throw InputError(file, "schema", "is '" + got + "', expected \"" + want + "\"");
}

}  // namespace vxsynth
