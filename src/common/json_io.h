// JSON files with a "schema": "vxsynth.<kind>/<version>" field (see docs/file-formats.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/json_fwd.h"

namespace vxsynth {

// Reads and parses a JSON file; InputError names the file and the parse position.
Json read_json_file(const std::string& path);

// Writes `j` pretty-printed (2 spaces) with a trailing newline, via a temporary file
// renamed into place so a reader never sees half a file.
void write_json_file(const std::string& path, const Json& j);

// j.dump(indent) that never throws on text that is not UTF-8 (invalid bytes become U+FFFD).
std::string dump_json(const Json& j, int indent = 2);

// True when `s` is well-formed UTF-8.
bool is_valid_utf8(std::string_view s);

// "vxsynth.<kind>/<version>" for this kind and version.
std::string schema_id(const std::string& kind, int version);

// Checks j["schema"] == "vxsynth.<kind>/<version>"; otherwise InputError naming the file,
// what was found and what this build reads.
void require_schema(const Json& j, const std::string& kind, int version, const std::string& file);

// Typed access to a required field, with an InputError naming file and field.
template <typename T>
T get_field(const Json& j, const std::string& key, const std::string& file);

}  // namespace vxsynth

#include "common/json_io_inl.h"
