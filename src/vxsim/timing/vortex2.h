// A cycle-level timing model of a Vortex 2.x core complex (SimX's pipeline) behind the
// functional simulator's instruction-consumer seam. The functional core executes; this model
// replays each warp's executed instructions through schedule -> fetch (icache) -> decode
// (instruction buffer) -> issue (scoreboard, round-robin per issue slot) -> functional units
// (ALU/FPU/LSU/SFU/TCU) -> commit, with L1 caches per socket, local-memory banks, an optional
// L2 and a pluggable memory model. It paces the functional run (InstructionConsumer::wants)
// so that at most a few dozen instructions per warp are buffered.
//
//   timing::Vortex2Model model(params);          // params: TimingParams (named, overridable)
//   sim.set_instruction_consumer(&model);
//   sim.run();
//   model.cycles(); model.core_counters(); model.to_json(); model.print_perf(std::cout);
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <ostream>
#include <vector>

#include "common/json_io.h"
#include "vxsim/config.h"
#include "vxsim/timing/cache.h"
#include "vxsim/timing/memory_model.h"
#include "vxsim/timing/params.h"
#include "vxsim/trace.h"

namespace vxsynth::vxsim::timing {

// Per core, with SimX's names where SimX has the counter.
struct TimingCounters {
  uint64_t cycles = 0;
  uint64_t instrs = 0;          // thread-instructions as SimX counts them (a WMMA: micro-ops x lanes)
  uint64_t warp_issues = 0;     // issued warp micro-instructions
  uint64_t sched_idle = 0;      // cycles no warp was active and ready to schedule
  uint64_t sched_stalls = 0;    // cycles active warps were all waiting (fetch, branch, barrier)
  uint64_t ibuf_stalls = 0;     // cycles decode waited for a full instruction buffer
  uint64_t scrb_stalls = 0;     // cycles with buffered instructions but none ready to issue
  uint64_t opc_stalls = 0;     // operand-collector register-bank conflict cycles
  uint64_t lsu_queue_stalls = 0;  // cycles loads waited for a free LSU queue entry
  uint64_t scrb_alu = 0, scrb_fpu = 0, scrb_lsu = 0, scrb_sfu = 0, scrb_tcu = 0;  // by producer unit
  uint64_t ifetches = 0;
  uint64_t ifetch_latency = 0;  // summed schedule-to-decode cycles
  uint64_t loads = 0;           // lane accesses (SimX's loads=), global and local
  uint64_t stores = 0;          // lane accesses
  uint64_t load_latency = 0;    // summed LSU-input-to-response cycles of load instructions
  uint64_t load_instrs = 0;     // warp load instructions (for the average)
  uint64_t lmem_reads = 0, lmem_writes = 0;
  uint64_t lmem_bank_stalls = 0;  // cycles with a local-memory access waiting or serialised by bank conflicts (<= cycles)
  uint64_t lmem_bank_wait = 0;    // the same cycles summed over accesses
  uint64_t global_mem_instrs = 0;   // warp instructions with a global access
  uint64_t global_blocks = 0;       // coalesced requests they sent to the data cache
  uint64_t tcu_uops = 0;
  uint64_t tcu_busy = 0;        // cycles of tensor-unit latency covered by micro-ops
  uint64_t barrier_stall_cycles = 0;  // warp-cycles spent waiting at barriers
  uint64_t active_warp_cycles = 0;    // active warps summed over cycles (occupancy)
  uint64_t global_load_bytes = 0;     // bytes global loads asked for (lanes x size)
  uint64_t global_load_sectors = 0;   // distinct 32-byte sectors per warp global load, summed
  uint64_t fp_flops = 0;              // FP32 FLOPs: add/sub/mul 1, fused multiply-add 2, per lane
  TimingCounters& operator+=(const TimingCounters& o);
  double ipc() const { return cycles == 0 ? 0.0 : static_cast<double>(instrs) / static_cast<double>(cycles); }
};

// One vx_spawn_threads region on one core (vxsim::SpawnRegion): from the cycle its spawning
// WSPAWN reached the SFU to the cycle its joining WSPAWN released the caller.
struct TimingRegion {
  uint32_t core = 0;
  uint32_t index = 0;
  uint64_t begin = 0, end = 0;
  uint64_t instrs = 0;       // SimX's thread-instructions issued in between
  uint64_t warp_issues = 0;
  bool closed = true;
};

struct TimingSummary {
  uint64_t cycles = 0;  // the whole run (the slowest core)
  TimingCounters total;
  std::vector<TimingCounters> cores;
  CacheStats icache, dcache, l2;  // summed over sockets
  MemoryStats memory;
  uint32_t memory_banks = 0;
  bool memory_row_model = false;  // mem_row_miss_cycles != 0: row misses are modelled and counted
  bool l2_enabled = false;
  std::vector<TimingRegion> regions;  // by index, then core (cycles of each run start at 0)
  TimingSummary& operator+=(const TimingSummary& o);  // sums runs (cycles add up)
};

class Vortex2Model : public InstructionConsumer {
 public:
  // `memory`: the memory model (null: make_memory_model("fixed", params)).
  explicit Vortex2Model(const TimingParams& params, std::unique_ptr<MemoryModel> memory = nullptr);
  ~Vortex2Model() override;

  void on_run_begin(const Config& config) override;
  void on_instruction(const ExecutedInstruction& r) override;
  uint64_t wants(uint32_t core, uint32_t warp) override;
  bool on_round_end() override;
  void on_run_end(bool completed) override;

  // Of the last run.
  uint64_t cycles() const { return summary_.cycles; }
  const TimingSummary& summary() const { return summary_; }
  const TimingParams& params() const { return resolved_; }

 private:
  struct Impl;
  TimingParams params_;
  TimingParams resolved_;
  std::unique_ptr<MemoryModel> memory_;
  std::unique_ptr<Impl> impl_;
  TimingSummary summary_;
};

// {"model": "vortex2", "cycles", "ipc", "total": {...}, "cores": [...], "icache", "dcache",
//  "l2", "memory": {...}, "params": {...}}
Json timing_to_json(const TimingSummary& s, const TimingParams& params, const Config& config);

// SimX's PERF lines (per core when there are several, then the totals): instrs/cycles/IPC,
// scheduler, ibuffer and scoreboard stalls, ifetches, loads, stores and their latencies,
// caches, local memory, memory, tensor unit.
void print_timing_perf(std::ostream& out, const TimingSummary& s, uint32_t threads);

}  // namespace vxsynth::vxsim::timing
