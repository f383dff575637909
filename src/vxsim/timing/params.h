// Parameters of the Vortex 2.x timing model, each with a name that can be set on the command
// line (--timing-param NAME=VALUE), in a config file (NAME = VALUE lines) or from code.
// Defaults are those of Vortex 2.x's VX_config.h and of its SimX pipeline; a value of 0 in a
// "derived" parameter means "derive it from the machine shape as Vortex does" (see resolve()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vxsynth::vxsim {
struct Config;
}

namespace vxsynth::vxsim::timing {

// The timing model's revision, recorded in every timing JSON ("revision"): raised with every
// change that moves cycles on purpose, so files made by an earlier model (the suite's
// vortex-signature.json) can tell they are stale. 1: the model until 2026-12-01 (files
// without the field); 2: issue 15's wide-warp calibration (memory's pace per line and queue,
// AMOs as stores).
inline constexpr uint32_t kModelRevision = 2;

struct TimingParams {
  // Pipeline (SimX core: schedule -> fetch -> decode/ibuffer -> issue/scoreboard -> FU -> commit).
  uint32_t issue_width = 0;       // derived: ceil(warps / 16)
  uint32_t ibuf_size = 4;         // IBUF_SIZE, entries per warp
  uint32_t fetch_latency = 5;     // schedule to decode on an icache hit, cycles
  uint32_t issue_latency = 4;     // issue to functional-unit input (operand read, dispatch)
  uint32_t gpr_banks = 4;         // NUM_GPR_BANKS: same-bank source pairs cost a cycle each
  uint32_t commit_latency = 1;    // functional-unit output to scoreboard release
  uint32_t resume_latency = 1;    // a branch / warp-control instruction at its unit to the next schedule
  // Functional units: latencies in cycles (from the unit's input to its output).
  uint32_t alu_latency = 2;       // ALU, branches, MUL
  uint32_t div_latency = 34;      // DIV/REM: XLEN + 2
  uint32_t fpu_ncp_latency = 4;   // FNCP 2 + 2: compare, sign, class, min/max, moves
  uint32_t fpu_fma_latency = 6;   // LATENCY_FMA 4 + 2: add, sub, mul, fused multiply-add
  uint32_t fpu_div_latency = 18;  // LATENCY_FDIV 16 + 2 (SimX's FPU_DSP default)
  uint32_t fpu_sqrt_latency = 18; // LATENCY_FSQRT 16 + 2
  uint32_t fpu_cvt_latency = 7;   // LATENCY_FCVT 5 + 2
  uint32_t sfu_latency = 4;       // CSR, warp control (2 + 2)
  uint32_t tcu_latency = 6;       // one WMMA micro-op (2 + 4)
  uint32_t lsu_latency = 2;       // LSU input to the cache / local memory request
  uint32_t lsu_rsp_latency = 1;   // last response to the LSU output
  uint32_t lsu_queue = 0;         // derived: outstanding warp loads per LSU (LSUQ_IN_SIZE = 2)
  // L1 instruction cache (one per socket of up to 4 cores).
  uint32_t icache_size = 16384;
  uint32_t icache_ways = 4;
  uint32_t icache_line = 64;
  uint32_t icache_mshr = 16;
  uint32_t icache_latency = 2;    // pipeline latency of a hit
  // L1 data cache (one per socket; write-through, no write allocate).
  uint32_t dcache_size = 16384;
  uint32_t dcache_ways = 4;
  uint32_t dcache_line = 64;
  uint32_t dcache_banks = 0;      // derived: DCACHE_NUM_REQS (1 request per bank per cycle)
  uint32_t dcache_mshr = 16;
  uint32_t dcache_latency = 2;    // pipeline latency of a hit
  uint32_t lsu_block = 0;         // derived: coalescing block, LSU_LINE_SIZE = min(threads * 4, 64)
  uint32_t socket_size = 4;       // cores sharing one L1 instruction and data cache
  uint32_t socket_latency = 2;    // extra cycles each way to an L1 shared by several cores
  // Local memory: banks of 4-byte words, one access per bank per cycle.
  uint32_t lmem_banks = 0;        // derived: threads per warp (NUM_LSU_LANES)
  uint32_t lmem_latency = 2;
  // Optional L2 (Vortex 2.x: off unless L2_ENABLE), shared by all sockets.
  uint32_t l2_enable = 0;
  uint32_t l2_size = 1048576;
  uint32_t l2_ways = 8;
  uint32_t l2_line = 64;
  uint32_t l2_banks = 0;          // derived: min(sockets * memory ports, 16)
  uint32_t l2_mshr = 16;
  uint32_t l2_latency = 2;
  // Memory behind the caches (memory model "fixed": a latency, per-channel bandwidth, a bounded
  // queue per channel, optional DRAM banks with open rows; off by default: mem_dram_banks = 1).
  uint32_t mem_banks = 2;         // PLATFORM_MEMORY_NUM_BANKS, interleaved by line
  uint32_t mem_latency = 45;      // unloaded request to response, cycles (calibrated to SimX's HBM2)
  uint32_t mem_cycles_per_line = 9; // a channel's occupancy per 64-byte line (calibrated: SimX's
                                    // ~4.5-6 cycles per scattered line at 32 threads over 2 channels)
  uint32_t mem_line = 64;         // MEM_BLOCK_SIZE
  uint32_t mem_dram_banks = 1;    // DRAM banks per channel, each with one open row
  uint32_t mem_row_lines = 32;    // lines per DRAM row of a channel
  uint32_t mem_row_miss_cycles = 0; // precharge + activate before a request to a closed row
  uint32_t mem_queue = 16;        // requests waiting per channel before a requester waits (0: no limit)

  // Fills the derived (0) parameters from the machine shape; checks every value.
  void resolve(const Config& config);

  // Sets one parameter by name; InputError naming `source` and the parameter on an unknown
  // name or a bad value.
  void set(std::string_view name, uint64_t value, const std::string& source = "timing parameter");
  // "NAME=VALUE"
  void set_assignment(std::string_view assignment, const std::string& source = "--timing-param");
  // A file of "NAME = VALUE" lines ('#' starts a comment; blank lines ignored).
  void load_file(const std::string& path);
  uint64_t get(std::string_view name) const;

  struct Entry {
    const char* name;
    uint32_t TimingParams::*field;
    const char* what;
  };
  static const std::vector<Entry>& entries();
};

}  // namespace vxsynth::vxsim::timing
