// Whether a locked benchmark's committed sources are what its design generates
// (docs/suite.md, "Regenerating a lock").
//
// A lock records the generator of each side (validation.json: cuda_generator, vortex_generator;
// absent = the unversioned generator). Each committed file is compared with what this build
// writes for design.json:
//   bytes    the same text;
//   code     the same tokens, laid out otherwise (comments and blanks aside);
//   differs  other code.
// The lock holds when every file is `bytes`, or, for a side locked by another generator than
// this one, `code`: this build writes the same program. Anything else is a problem naming the
// file and both generators; the remedy is a re-lock (or the locked generator's commit).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "codegen/generator.h"

namespace vxsynth::refine {

enum class Sameness { bytes, code, differs, missing };
std::string to_string(Sameness s);

// A committed file's text against a generated one (`name` decides how: C++ by its tokens, a
// build file by its words outside "#" comments).
Sameness compare_source(const std::string& name, const std::string& committed, const std::string& generated);

struct SourceSameness {
  std::string file;  // relative to the benchmark: cuda/candidate.cu, vortex/<name>
  Sameness same = Sameness::missing;
};

struct LockSources {
  codegen::GeneratorId cuda_generator, vortex_generator;
  std::vector<SourceSameness> files;
  std::vector<std::string> problems;  // empty: the lock holds
};

// InputError when design.json or validation.json cannot be read.
LockSources check_lock_sources(const std::filesystem::path& benchmark_dir);

}  // namespace vxsynth::refine
