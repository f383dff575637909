// The retention rule: a revision is retained only when D falls by more than a margin. Which D
// (one profile, or the mean of R profiles) and which margin is configuration; every record
// carries the rule it was decided by. docs/refine.md derives the presets from the H200 noise
// measurement (docs/measurements/h200-gpu.md).
#pragma once

#include <string>

#include "common/json_io.h"

namespace vxsynth::refine {

struct RetentionRule {
  std::string name = "averaged";  // "averaged", "single", or "custom"
  int repeats = 3;                // profiles per candidate; D is computed from their mean
  double margin = 0.005;          // retained when D_parent - D > margin
  // Screening (0 = off): every candidate is profiled screen_repeats times first; only one whose
  // screening D falls below D_parent - margin + screen_band (a start always) gets the other
  // repeats - screen_repeats profiles and is decided on the mean of all. The rest are decided
  // on their screening profiles: with the band at the largest D between single profiles of one
  // kernel, none of them could have fallen by the margin on the mean.
  int screen_repeats = 0;
  double screen_band = 0;
  // At most this many candidates of one chain's round, those with the lowest screening D, are
  // profiled again (0: every one within the band). A round retains one candidate a chain, so the
  // rest would be profiled for nothing unless one of them overtook the best on the mean; on the
  // committed H200 runs that never cost a fall (docs/refine.md, bench/replay-confirm-best.py).
  int confirm_best = 0;
  // A screened round of at most this many candidates profiles them `repeats` times in one job
  // instead (0: never). A profile job is one ncu process
  // and costs about as much as five launches (docs/measurements/h200-suite.md, session 20), so the
  // late rounds of one or two candidates, which are mostly confirmed anyway, cost one process
  // instead of two; they are then decided on the mean, as a confirmed candidate is.
  int full_below = 0;

  bool retains(double d_parent, double d) const { return d_parent - d > margin; }
  bool screens() const { return screen_repeats > 0 && screen_repeats < repeats; }
  // True when a screening D is close enough to a fall to be profiled again.
  bool worth_confirming(double d_parent, double d_screen) const { return d_screen < d_parent - margin + screen_band; }
  Json to_json() const;
};

// "averaged" (D of the mean of 3 profiles, margin 0.005: the method's margin, made safe by
// averaging) or "single" (D of one profile, margin 0.013: 1.25 x the largest single-profile
// noise measured) or "screened" (averaged's decision, at about the cost of one profile for a
// candidate that is clearly worse: 1 screening profile, band 0.0102 = the largest single-profile
// D-to-D noise measured on the H200; of a chain's round, only the candidate with the lowest
// screening D is profiled again). InputError naming `origin` for another name.
RetentionRule retention_preset(const std::string& name, const std::string& origin = "--retention");

}  // namespace vxsynth::refine
