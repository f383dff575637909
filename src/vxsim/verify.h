// The split/join verifier: a walk over a kernel binary's control flow that refuses code whose
// divergent regions the hardware cannot reconverge. A SPLIT pushes an IPDOM entry and the JOIN
// that pops it must be one instruction that every path from the SPLIT reaches exactly once:
// the lanes of the first subset wait at whichever JOIN they meet, the second subset runs from
// the SPLIT, and the warp continues after the JOIN that the second subset meets. Two JOINs for
// one SPLIT (an optimizer copied the join), a path that returns or jumps away with the region
// open, or a point reached with different open regions all mean lanes skip code silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vxsim/program.h"

namespace vxsynth::vxsim {

struct VerifyIssue {
  uint32_t pc = 0;
  std::string function;  // symbol containing pc, or "?" without a symbol table
  std::string source;    // "file.c:42" from the DWARF line table, or empty
  std::string message;
};

struct VerifyReport {
  std::string program;
  uint32_t functions = 0;  // code entry points walked
  uint32_t splits = 0;     // SPLIT / SPLIT.N instructions reached
  uint32_t joins = 0;      // JOIN instructions reached
  std::vector<VerifyIssue> issues;
  bool ok() const { return issues.empty(); }
  // One line per issue: "0x80000123 in body (kernel.cpp:42): ..."; or a one-line summary.
  std::string to_string() const;
};

// Walks every function (ELF symbols, the entry point and direct call targets). A path ends at
// a return, an indirect jump, a tail call, `tmc zero` or code that does not decode.
VerifyReport verify_split_join(const ProgramImage& image);
VerifyReport verify_split_join_file(const std::string& path);

}  // namespace vxsynth::vxsim
