#include "vxsim/config.h"

#include <bit>
#include <string>

#include "common/error.h"

namespace vxsynth::vxsim {

namespace {
void check_range(const char* source, const char* field, uint64_t value, uint64_t lo, uint64_t hi, bool pow2) {
  if (value < lo || value > hi || (pow2 && !std::has_single_bit(value))) {
    throw InputError(source, field,
                     "expected " + std::string(pow2 ? "a power of two " : "an integer ") + "in " + std::to_string(lo) +
                         ".." + std::to_string(hi) + ", got " + std::to_string(value));
  }
}
}  // namespace

void Config::validate(const char* source) const {
  check_range(source, "cores", cores, 1, kMaxCores, false);
  check_range(source, "warps", warps, 1, kMaxWarps, true);
  check_range(source, "threads", threads, 1, kMaxThreads, true);
  check_range(source, "local_mem_size", local_mem_size, 1024, 65536, true);
}

}  // namespace vxsynth::vxsim
