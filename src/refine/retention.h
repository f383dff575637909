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

  bool retains(double d_parent, double d) const { return d_parent - d > margin; }
  Json to_json() const;
};

// "averaged" (D of the mean of 3 profiles, margin 0.005: the method's margin, made safe by
// averaging) or "single" (D of one profile, margin 0.013: 1.25 x the largest single-profile
// noise measured). InputError naming `origin` for another name.
RetentionRule retention_preset(const std::string& name, const std::string& origin = "--retention");

}  // namespace vxsynth::refine
