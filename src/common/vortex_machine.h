// The shape of one Vortex machine: what a design is written for (design.json "vortex",
// design::VortexConfig) and what the simulator runs (vxsim::Config). One struct so the defaults,
// the field names and the limits are written once. Defaults are Vortex's default machine
// (vortex-rt's VX_config.h); the limits are the simulator's (its lane and warp masks are 32 bits
// wide, local memory sits in the top 64 KiB of the address space).
#pragma once

#include <VX_config.h>

#include <cstdint>
#include <optional>
#include <string>

namespace vxsynth {

struct VortexMachine {
  static constexpr uint32_t kMaxCores = 64;
  static constexpr uint32_t kMaxWarps = 32;    // warps per core
  static constexpr uint32_t kMaxThreads = 32;  // threads per warp
  static constexpr uint32_t kMinLocalMem = 1024, kMaxLocalMem = 65536;

  uint32_t cores = NUM_CORES;                       // 1..64
  uint32_t warps = NUM_WARPS;                       // warps per core, a power of two, 1..32
  uint32_t threads = NUM_THREADS;                   // threads per warp, a power of two, 1..32
  uint32_t local_mem_bytes = 1u << LMEM_LOG_SIZE;   // per core, a power of two, 1 KiB..64 KiB

  bool operator==(const VortexMachine&) const = default;

  // The first field outside its range, and what was expected ("expected a power of two in
  // 1..32, got 48"); nullopt when the machine is one Vortex (and the simulator) can be.
  struct Problem {
    std::string field, what;
  };
  std::optional<Problem> problem() const;
  // InputError(source, field, what) for problem().
  void validate(const std::string& source) const;
};

}  // namespace vxsynth
