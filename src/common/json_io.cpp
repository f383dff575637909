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
    out << dump_json(j) << '\n';
    if (!out) throw InputError(path, "", "write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw InputError(path, "", "cannot rename temporary file into place");
}

std::string dump_json(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    unsigned min = 0;
    unsigned cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
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
