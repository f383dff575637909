// Internal: per-core state and the execution vocabulary shared by the instruction bodies.
// Not part of the public API (simulator.h).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "vxsim/config.h"
#include "vxsim/counters.h"
#include "vxsim/decode.h"
#include "vxsim/fault.h"
#include "vxsim/memory.h"

namespace vxsynth::vxsim {

class Core;
struct Warp;
struct Decoded;

// Active lanes of a mask: SWAR count, inline (std::popcount is a library call unless the
// build targets POPCNT, and this runs once per warp instruction).
inline uint32_t lane_count(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

using ExecFn = void (*)(Core&, Warp&, Decoded&);

// A decoded instruction, cached per PC (decode once).
struct Decoded {
  ExecFn exec = nullptr;
  uint32_t word = 0;
  int32_t imm = 0;
  InsnId id = InsnId::kCount;
  uint8_t rd = 0;    // as encoded
  uint8_t wd = 0;    // integer destination: rd, or 32 (a write sink) for x0
  uint8_t rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t rm = 0;
  OpClass op_class = OpClass::kAlu;
};

// Decodes the word at the warp's PC into the cache slot `d`, then executes it (the initial
// state of every cache slot, so the hot loop never checks "decoded yet?").
void exec_decode(Core& c, Warp& w, Decoded& d);
// Fills a descriptor from an instruction word (exec points at the wrapped body).
Decoded make_decoded(uint32_t word);

// Decoded instructions per 4 KiB code page, allocated when code there first runs.
class DecodeCache {
 public:
  static constexpr uint32_t kPageInsns = Memory::kPageSize / 4;
  DecodeCache();
  ~DecodeCache();
  DecodeCache(const DecodeCache&) = delete;
  DecodeCache& operator=(const DecodeCache&) = delete;
  Decoded& at(uint32_t pc) {
    Decoded* p = pages_[pc >> Memory::kPageBits];
    if (!p) [[unlikely]] p = make_page(pc >> Memory::kPageBits);
    return p[(pc >> 2) & (kPageInsns - 1)];
  }
  void invalidate(uint32_t addr, uint64_t size);
  void clear();

 private:
  Decoded* make_page(uint32_t page);
  Decoded** pages_ = nullptr;
  std::vector<uint32_t> live_;  // pages allocated, for clear()
};

// Internal trap: thrown by bodies and the memory path, turned into a FaultReport by the one
// catch site in Simulator::run.
struct Trap {
  FaultKind kind;
  std::string message;
  std::optional<uint32_t> address;
  std::optional<uint32_t> lane;
  std::optional<uint32_t> taken_mask;
  std::optional<uint32_t> not_taken_mask;
};

struct IpdomEntry {
  uint32_t orig_mask;
  uint32_t else_mask;  // the lanes that run second
  uint32_t pc;         // SPLIT's pc + 4, where the second pass starts
  bool fallthrough;    // second pass already started
};

enum class WarpWait : uint8_t { kNone, kBarrier, kGlobalBarrier, kSpawn };

// Plain warp state; registers lane-contiguous per register (x[reg][lane]).
struct Warp {
  uint32_t x[33][kMaxThreads];  // x[32]: write sink for rd = x0
  uint32_t f[32][kMaxThreads];  // FLEN = 32 (RV32F): single values, no boxing needed
  uint32_t pc = 0;
  uint32_t tmask = 0;
  uint32_t fflags = 0;
  uint32_t frm = 0;
  uint32_t id = 0;
  WarpWait wait = WarpWait::kNone;
  uint32_t ipdom_size = 0;
  IpdomEntry ipdom[kMaxThreads];
  uint32_t spawn_count = 0;  // pending WSPAWN
  uint32_t spawn_pc = 0;
  uint32_t lr_valid = 0;     // LR reservations, per lane
  uint32_t lr_addr[kMaxThreads];
};

class Simulator;

class Core {
 public:
  Core(Simulator& sim, Memory& mem, DecodeCache& dcache, uint8_t* io, uint32_t id);

  void reset(uint32_t startup_pc, uint32_t startup_arg);
  // Runs warp w for up to `budget` instructions or until it yields; returns the count.
  uint64_t run_warp(Warp& w, uint64_t budget);
  uint64_t run_warp_traced(Warp& w, uint64_t budget);
  // Pending WSPAWN whose caller is now the only active warp: spawn and resume. True if any.
  bool resolve_spawns();
  bool any_active() const { return active_warps != 0; }
  bool any_runnable() const;

  // ---- state ----
  Simulator& sim;
  Memory& mem;
  DecodeCache& dcache;
  uint8_t* io;               // the IO block [0, kUserBaseAddr) (MPM counters, exit code)
  bool* stop_requested = nullptr;  // set by ECALL / EBREAK
  uint32_t* live_reservations = nullptr;  // LR reservations held by any hart (all cores)
  const uint32_t id;
  const uint32_t nt;         // threads per warp
  const uint32_t nw;
  const uint32_t full_mask;  // (1 << nt) - 1
  std::vector<Warp> warps;
  uint32_t active_warps = 0;   // warps with a non-zero thread mask
  std::vector<uint32_t> barriers;  // per barrier id: arrived warps
  uint32_t global_barrier_warps = 0;  // warps waiting at the global barrier
  uint32_t global_barrier_id = 0;
  uint32_t global_barrier_count = 0;
  bool global_barrier_reported = false;
  uint32_t mscratch = 0;
  // A plain read of MSCRATCH (csr_read: csrrs rd, mscratch, x0) returned 0: a kernel looked
  // for its argument block and found none (`sim run` passes none).
  bool argument_read_as_null = false;
  std::vector<uint8_t> lmem;
  uint32_t lmem_size;
  Counters ctr;
  bool yield = false;     // set by bodies that change scheduling

  // vx_spawn_threads regions (SpawnRegion): the counters when the open one began.
  bool region_open = false;
  bool region_close_pending = false;  // a joining WSPAWN returned at once: close after it is counted
  // MSCRATCH written since the last region: vortex-rt's and Vortex's vx_spawn_threads post their
  // job there before spawning; crt0's boot spawn (TLS set-up on every warp) does not, so it
  // stays start-up work, outside every region.
  bool job_posted = false;
  uint32_t region_warps = 0;
  Counters region_start;
  std::vector<SpawnRegion> regions;
  void open_region(uint32_t asked_warps) {
    region_open = true;
    region_warps = asked_warps;
    region_start = ctr;  // before the spawning WSPAWN is counted: it belongs to the region
  }
  void close_region(bool closed) {
    SpawnRegion r;
    r.core = id;
    r.index = static_cast<uint32_t>(regions.size());
    r.warps = region_warps;
    r.closed = closed;
    r.counters = ctr;
    r.counters -= region_start;
    regions.push_back(r);
    region_open = false;
    region_close_pending = false;
    job_posted = false;
  }

  // Memory-instruction bookkeeping (distinct lines, per-lane addresses for the trace). The
  // distinct lines sit on a 64-slot open-addressed table (at most 32 lines): O(1) per lane,
  // where a scan of the lines seen so far cost O(lanes) per lane on scattered accesses.
  uint64_t line_used = 0;
  uint32_t line_key[64];
  uint32_t last_line = 0;
  uint32_t num_lines = 0;
  bool mem_global = false, mem_local = false;
  uint32_t lane_addr[kMaxThreads];

  // FP: the rounding mode in force for the current instruction (0..4).
  uint32_t cur_rm = 0;

  // ---- vocabulary used by the bodies ----
  uint32_t lane_last(const Warp& w, unsigned reg) const { return w.x[reg][31 - std::countl_zero(w.tmask)]; }
  uint32_t last_lane(const Warp& w) const { return 31 - std::countl_zero(w.tmask); }
  uint32_t hart_id(const Warp& w, uint32_t lane) const { return (id * nw + w.id) * nt + lane; }

  template <typename T>
  T load(uint32_t addr, uint32_t lane) {
    lane_addr[lane] = addr;
    if (addr & (sizeof(T) - 1)) [[unlikely]] misaligned(addr, lane, sizeof(T), "load");
    T v;
    if (addr >= kLocalMemBaseAddr) {
      local_access(addr, lane, sizeof(T));
      std::memcpy(&v, &lmem[addr - kLocalMemBaseAddr], sizeof(T));
      ctr.local_bytes_read += sizeof(T);
      return v;
    }
    track_global(addr);
    ctr.global_bytes_read += sizeof(T);
    const uint8_t* p = mem.fast_load_page(addr);
    if (p && addr >= kUserBaseAddr) [[likely]] {
      std::memcpy(&v, p + (addr & (Memory::kPageSize - 1)), sizeof(T));
      return v;
    }
    load_slow(addr, lane, &v, sizeof(T));
    return v;
  }

  template <typename T>
  void store(uint32_t addr, uint32_t lane, T v) {
    lane_addr[lane] = addr;
    if (addr & (sizeof(T) - 1)) [[unlikely]] misaligned(addr, lane, sizeof(T), "store");
    if (*live_reservations != 0) [[unlikely]] break_reservations(addr);
    if (addr >= kLocalMemBaseAddr) {
      local_access(addr, lane, sizeof(T));
      std::memcpy(&lmem[addr - kLocalMemBaseAddr], &v, sizeof(T));
      ctr.local_bytes_written += sizeof(T);
      return;
    }
    track_global(addr);
    ctr.global_bytes_written += sizeof(T);
    uint8_t* p = mem.fast_store_page(addr);
    if (p && addr >= kUserBaseAddr) [[likely]] {
      std::memcpy(p + (addr & (Memory::kPageSize - 1)), &v, sizeof(T));
      return;
    }
    store_slow(addr, lane, &v, sizeof(T));
  }

  void begin_mem() {
    num_lines = 0;
    line_used = 0;
    mem_global = mem_local = false;
  }
  void end_mem() {
    if (mem_global) {
      ++ctr.global_memory_instructions;
      ctr.global_lines_touched += num_lines;
      ++ctr.global_lines_histogram[num_lines];
    }
    if (mem_local) ++ctr.local_memory_instructions;
  }

  [[noreturn]] void misaligned(uint32_t addr, uint32_t lane, uint32_t size, const char* what);
  [[noreturn]] static void trap(FaultKind kind, std::string message);
  uint32_t read_csr(const Warp& w, uint32_t lane, uint32_t csr);
  void write_csr(Warp& w, uint32_t csr, uint32_t value);
  void exit_warp(Warp& w);
  void arrive_barrier(Warp& w, uint32_t bar_id, uint32_t count);
  void release_global_barrier();
  void stop_all();
  // LR/SC: a reservation is per hart; any store to the reserved word (by any hart, SC and
  // AMOs included) breaks it. Core-local addresses (local memory) are per core.
  void reserve(Warp& w, uint32_t lane, uint32_t addr);
  bool take_reservation(Warp& w, uint32_t lane, uint32_t addr);
  void break_reservations(uint32_t addr);
  void drop_reservations(Warp& w);

 private:
  void track_global(uint32_t addr) {
    mem_global = true;
    const uint32_t line = addr / kCacheLineSize;
    if (num_lines != 0 && line == last_line) return;  // the previous lane's line (coalesced)
    last_line = line;
    for (uint32_t h = (line * 0x9E3779B1u) >> 26;; h = (h + 1) & 63) {
      if (((line_used >> h) & 1) == 0) {
        line_used |= uint64_t{1} << h;
        line_key[h] = line;
        ++num_lines;
        return;
      }
      if (line_key[h] == line) return;
    }
  }
  void local_access(uint32_t addr, uint32_t lane, uint32_t size) {
    mem_local = true;
    if (addr - kLocalMemBaseAddr + size > lmem_size) [[unlikely]] local_out_of_range(addr, lane);
  }
  [[noreturn]] void local_out_of_range(uint32_t addr, uint32_t lane);
  void load_slow(uint32_t addr, uint32_t lane, void* dst, uint32_t size);
  void store_slow(uint32_t addr, uint32_t lane, const void* src, uint32_t size);
};

}  // namespace vxsynth::vxsim
