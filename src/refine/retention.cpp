#include "refine/retention.h"

#include "common/error.h"

namespace vxsynth::refine {

Json RetentionRule::to_json() const { return Json{{"rule", name}, {"repeats", repeats}, {"margin", margin}}; }

RetentionRule retention_preset(const std::string& name, const std::string& origin) {
  if (name == "averaged") return RetentionRule{"averaged", 3, 0.005};
  if (name == "single") return RetentionRule{"single", 1, 0.013};
  throw InputError(origin, name, "unknown retention rule (averaged: mean of 3 profiles, margin 0.005; single: one "
                                 "profile, margin 0.013; or give --margin and --repeats)");
}

}  // namespace vxsynth::refine
