// External generators: any program proposes revisions through files (docs/refine.md,
// "External generator protocol"). For each revision the loop writes a bundle folder and runs
// the command with VXSYNTH_BUNDLE and VXSYNTH_OUT set; the program writes exactly
// candidate.cu, kernel.cpp and note.json into VXSYNTH_OUT. The loop enforces the sandbox before
// anything runs: only those files, no vendor library, no file access, the ABI's entry point;
// after profiling, the launch must keep the fixed block size.
#pragma once

#include <string>
#include <vector>

#include "refine/strategy.h"

namespace vxsynth::refine {

inline constexpr const char* kBundleKind = "generator-bundle";
inline constexpr const char* kNoteKind = "revision-note";

struct ExternalOptions {
  std::string command;        // run through /bin/sh -c
  double timeout_seconds = 900;
};

class ExternalGenerator : public Strategy {
 public:
  explicit ExternalGenerator(ExternalOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "external"; }
  // One proposal per round. A revision whose outputs are already complete on disk (a resumed
  // run) is not generated again.
  std::vector<Proposal> propose(const ChainState& chain, int width, const AvailableFn& available) override;

 private:
  ExternalOptions options_;
};

// Source rules for generated code (empty = admitted): every forbidden construct found, with
// its line. `vortex` selects the Vortex kernel's rules.
std::vector<std::string> source_violations(const std::string& text, bool vortex);

}  // namespace vxsynth::refine
