#include "common/vortex_machine.h"

#include <bit>

#include "common/error.h"

namespace vxsynth {

namespace {
std::optional<VortexMachine::Problem> out_of_range(const char* field, uint64_t value, uint64_t lo, uint64_t hi,
                                                   bool pow2) {
  if (value >= lo && value <= hi && (!pow2 || std::has_single_bit(value))) return std::nullopt;
  return VortexMachine::Problem{field, "expected " + std::string(pow2 ? "a power of two " : "an integer ") + "in " +
                                           std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                                           std::to_string(value)};
}
}  // namespace

std::optional<VortexMachine::Problem> VortexMachine::problem() const {
  if (auto p = out_of_range("cores", cores, 1, kMaxCores, false)) return p;
  if (auto p = out_of_range("warps", warps, 1, kMaxWarps, true)) return p;
  if (auto p = out_of_range("threads", threads, 1, kMaxThreads, true)) return p;
  return out_of_range("local_mem_bytes", local_mem_bytes, kMinLocalMem, kMaxLocalMem, true);
}

void VortexMachine::validate(const std::string& source) const {
  if (const auto p = problem()) throw InputError(source, p->field, p->what);
}

}  // namespace vxsynth
