// What each benchmark of a suite cost to refine, over every committed run (docs/suite.md
// "Effort"): a lock records only the run it was locked from, but a chain is often restarted from
// an intermediate design or a hand-picked start across several runs and sessions.
#pragma once

#include <string>
#include <vector>

#include "common/json_io.h"
#include "refine/suite.h"

namespace vxsynth::refine {

inline constexpr const char* kEffortFile = "effort.json";

// Reads the chains of every run under `runs_dir` (RUN/worker-*/<chain>/revisions.jsonl, or
// RUN/<chain>/revisions.jsonl for a single `vxsynth refine` run). A chain belongs to the
// benchmark its folder is named after (or serves), else to the one its start design names
// (<chain>/designs/r0.json "reference"). Per benchmark: the runs and chains, the distinct designs
// tried (a design evaluated in several runs counts once), how many were retained, and the device
// seconds (each design's once). InputError naming the file on a bad record or design.
Json suite_effort(const SuitePlan& plan, const std::string& runs_dir);

// Writes SUITE/<bench>/effort.json for each locked benchmark; returns the benchmarks written.
std::vector<std::string> write_suite_effort(const SuitePlan& plan, const Json& effort);

}  // namespace vxsynth::refine
