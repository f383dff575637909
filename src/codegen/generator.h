// Which generator made a source. A generated source is a function of (design, generator): the
// version names the generator's output, the commit the code that made it, so a profiled source
// regenerates byte for byte from its design with that commit checked out.
//
// The version changes whenever any generated text changes (a layout change included);
// Golden.GeneratedSourcesAreByteIdenticalToTheCommittedHashes refuses new output under an old
// version. Version 0 is the unversioned generator: records made before versions existed, whose
// sources a machine's clang-format may have re-laid (docs/design-space.md, "Generator version").
#pragma once

#include <string>

#include "common/json_fwd.h"

namespace vxsynth::codegen {

inline constexpr int kGeneratorVersion = 2;

struct GeneratorId {
  int version = 0;
  std::string commit;  // the last commit of the generator's sources ("-dirty": changed since; "" unknown)

  bool unversioned() const { return version == 0; }
  bool operator==(const GeneratorId&) const = default;
};

// This build's generator.
GeneratorId current_generator();

// {"version": N, "commit": "..."}.
Json generator_to_json(const GeneratorId& g);
// A record's "generator" field: absent or null is version 0; anything else must be an object
// with an integer version >= 0 and a string commit (InputError naming file and field).
GeneratorId generator_from_json(const Json& record, const std::string& file);

// "generator 1 (commit 0123abcd4567)", "the unversioned generator (before version 1)".
std::string describe(const GeneratorId& g);

}  // namespace vxsynth::codegen
