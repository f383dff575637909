// Functional counters, collected on every run (cheap enough to be always on).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/json_io.h"

namespace vxsynth::vxsim {

struct Config;

// Instruction classes (the encoding table gives each instruction one).
enum class OpClass : uint8_t {
  kAlu,          // integer arithmetic, branches, jumps, lui/auipc
  kFpu,          // F extension arithmetic, compares, conversions, moves
  kLoad,         // lb..lw, flw
  kStore,        // sb..sw, fsw
  kAtomic,       // lr/sc/amo*
  kSfu,          // CSR access, fence, ecall/ebreak, vote, shfl
  kWarpControl,  // tmc, wspawn, split, join, bar, pred
  kTensor,       // wmma (one per WMMA instruction; its micro-ops are counted in tensor_uops)
  kCount
};
inline constexpr size_t kNumOpClasses = static_cast<size_t>(OpClass::kCount);
const char* op_class_name(OpClass c);  // "alu", "fpu", ...

struct Counters {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;  // sum of active lanes over issued instructions
  std::array<uint64_t, kNumOpClasses> warp_by_class{};
  std::array<uint64_t, kNumOpClasses> thread_by_class{};
  uint64_t global_bytes_read = 0;
  uint64_t global_bytes_written = 0;
  uint64_t local_bytes_read = 0;
  uint64_t local_bytes_written = 0;
  uint64_t global_memory_instructions = 0;  // warp memory instructions with >= 1 global lane
  uint64_t global_lines_touched = 0;        // sum over those of distinct 64-byte lines
  std::array<uint64_t, 33> global_lines_histogram{};  // [k]: global warp accesses touching k lines
  uint64_t local_memory_instructions = 0;
  uint64_t barrier_waits = 0;      // warps suspended at a barrier (each arrival that waited)
  uint64_t splits = 0;             // SPLIT executed
  uint64_t divergent_splits = 0;   // SPLIT that pushed the IPDOM stack
  uint64_t warps_spawned = 0;
  // Tensor unit (v2 SimX expands one WMMA at decode into m_steps * n_steps * k_steps micro-ops,
  // each taking an issue slot; vortex-isa.md §5.3).
  uint64_t tensor_uops = 0;
  uint64_t tensor_flops = 0;    // fp16/bf16 inputs: 2 per multiply-accumulate
  uint64_t tensor_int_ops = 0;  // int8/uint8/int4/uint4 inputs: 2 per multiply-accumulate

  // thread_instructions / (warp_instructions * threads per warp); 0 when nothing ran.
  double active_lane_fraction(uint32_t threads_per_warp) const;
  // global_lines_touched / global_memory_instructions (1.0 = perfectly coalesced
  // for accesses up to 64 bytes per warp).
  double lines_per_global_access() const;
  // Issue slots once every WMMA is expanded into its micro-ops (what v2 SimX issues):
  // warp_instructions - WMMA instructions + tensor_uops.
  uint64_t issue_slots() const;
  // Thread-instructions as SimX counts them (its MINSTRET, hence Vortex's "PERF: instrs="): a
  // WMMA, which runs with every lane active, counts its micro-ops times the lanes instead of
  // once per lane. Equals thread_instructions when no WMMA ran.
  uint64_t simx_thread_instructions(uint32_t threads_per_warp) const;
  // tensor_uops / issue_slots(): the tensor unit's share of the issued stream, an upper bound
  // on its utilisation (1.0 = a micro-op every slot); 0 when nothing ran.
  double tensor_issue_share() const;
  Counters& operator+=(const Counters& o);
  Counters& operator-=(const Counters& o);  // o must be an earlier snapshot of the same counters
};

// The work of one vx_spawn_threads call on one core: from its spawning WSPAWN (a non-zero
// start PC) to the return of its joining WSPAWN (start PC 0; vortex-rt's and Vortex's
// runtimes end every vx_spawn_threads with `vx_wspawn(1, 0)`), both included. Start-up code
// (.bss clearing, crt0) and main's serial code run outside every region.
struct SpawnRegion {
  uint32_t core = 0;
  uint32_t index = 0;   // the k-th region of this core in the run
  uint32_t warps = 0;   // warps the spawning WSPAWN asked for
  bool closed = true;   // false: the run ended (exit or fault) inside the region
  Counters counters;
};

// One set of counters as the "total" of counters_to_json shows it.
Json counters_json_one(const Counters& c, uint32_t threads_per_warp);

// {"schema": "vxsynth.vxsim-counters/1", "config": {...}, "total": {...}, "cores": [...]}.
Json counters_to_json(const Counters& total, const std::vector<Counters>& per_core, const Config& config);

}  // namespace vxsynth::vxsim
