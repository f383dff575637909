#include "refine/retention.h"

#include "common/error.h"

namespace vxsynth::refine {

Json RetentionRule::to_json() const {
  Json j{{"rule", name}, {"repeats", repeats}, {"margin", margin}};
  if (screens()) {
    j["screen"] = {{"repeats", screen_repeats}, {"band", screen_band}};
    if (confirm_best > 0) j["screen"]["confirm_best"] = confirm_best;
    if (full_below > 0) j["screen"]["full_below"] = full_below;
  }
  return j;
}

RetentionRule retention_preset(const std::string& name, const std::string& origin) {
  if (name == "averaged") return RetentionRule{"averaged", 3, 0.005};
  if (name == "single") return RetentionRule{"single", 1, 0.013};
  if (name == "screened") return RetentionRule{"screened", 3, 0.005, 1, 0.0102, 1, 2};
  throw InputError(origin, name, "unknown retention rule (averaged: mean of 3 profiles, margin 0.005; single: one "
                                 "profile, margin 0.013; screened: averaged, with the profiles after the first only "
                                 "for the candidate of a chain's round with the lowest first profile, when within 0.0102 of a fall, and every profile at once in a round of at most 2 candidates; or give --margin and --repeats)");
}

}  // namespace vxsynth::refine
