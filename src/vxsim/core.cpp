// Core state outside the hot path: reset, CSRs, barriers, WSPAWN, IO and checked memory,
// the decoded-instruction cache.
#include "vxsim/core.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#include "vxsim/simulator.h"

namespace vxsynth::vxsim {

namespace {
std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// CSR addresses: Vortex's from vortex-rt's VX_types.h (shared with the kernels and the host
// runtime); the user-level cycle/instret aliases are the standard RISC-V numbers.
enum : uint32_t {
  kCsrFflags = VX_CSR_FFLAGS, kCsrFrm = VX_CSR_FRM, kCsrFcsr = VX_CSR_FCSR,
  kCsrMscratch = VX_CSR_MSCRATCH,
  kCsrThreadId = VX_CSR_THREAD_ID, kCsrWarpId = VX_CSR_WARP_ID, kCsrCoreId = VX_CSR_CORE_ID,
  kCsrActiveWarps = VX_CSR_ACTIVE_WARPS, kCsrActiveThreads = VX_CSR_ACTIVE_THREADS,
  kCsrNumThreads = VX_CSR_NUM_THREADS, kCsrNumWarps = VX_CSR_NUM_WARPS, kCsrNumCores = VX_CSR_NUM_CORES,
  kCsrLocalMemBase = VX_CSR_LOCAL_MEM_BASE,
  kCsrMvendorid = VX_CSR_MVENDORID, kCsrMarchid = VX_CSR_MARCHID, kCsrMimpid = VX_CSR_MIMPID, kCsrMhartid = VX_CSR_MHARTID,
  kCsrMcycle = VX_CSR_MCYCLE, kCsrMinstret = VX_CSR_MINSTRET, kCsrMcycleH = VX_CSR_MCYCLE_H, kCsrMinstretH = VX_CSR_MINSTRET_H,
  kCsrCycle = 0xC00, kCsrInstret = 0xC02, kCsrCycleH = 0xC80, kCsrInstretH = 0xC82,
};

bool reads_as_zero(uint32_t csr) {
  switch (csr) {
    case VX_CSR_MSTATUS: case VX_CSR_MISA: case VX_CSR_MEDELEG: case VX_CSR_MIDELEG: case VX_CSR_MIE: case VX_CSR_MTVEC:
    case VX_CSR_MEPC: case VX_CSR_MCAUSE: case VX_CSR_MNSTATUS: case VX_CSR_PMPCFG0: case VX_CSR_PMPADDR0: case VX_CSR_SATP:
    case kCsrMvendorid: case kCsrMarchid: case kCsrMimpid:
      return true;
    default:
      // MPM counters 3..31 (low and high halves): functional mode has no timing events.
      return (csr >= VX_CSR_MPM_USER && csr <= VX_CSR_MPM_BASE + 31) ||
             (csr >= VX_CSR_MPM_USER_H && csr <= VX_CSR_MPM_BASE_H + 31);
  }
}
}  // namespace

// ---- DecodeCache ----
DecodeCache::DecodeCache() {
  pages_ = static_cast<Decoded**>(std::calloc(Memory::kNumPages, sizeof(Decoded*)));
  if (!pages_) throw std::bad_alloc();
}
DecodeCache::~DecodeCache() {
  clear();
  std::free(pages_);
}
Decoded* DecodeCache::make_page(uint32_t page) {
  auto* p = new Decoded[kPageInsns];
  for (uint32_t i = 0; i < kPageInsns; ++i) p[i].exec = &exec_decode;
  pages_[page] = p;
  live_.push_back(page);
  return p;
}
void DecodeCache::invalidate(uint32_t addr, uint64_t size) {
  if (size == 0) return;
  const uint64_t first = addr >> Memory::kPageBits, last = (addr + size - 1) >> Memory::kPageBits;
  for (size_t i = 0; i < live_.size();) {
    if (live_[i] >= first && live_[i] <= last) {
      delete[] pages_[live_[i]];
      pages_[live_[i]] = nullptr;
      live_[i] = live_.back();
      live_.pop_back();
    } else {
      ++i;
    }
  }
}
void DecodeCache::clear() {
  for (uint32_t p : live_) {
    delete[] pages_[p];
    pages_[p] = nullptr;
  }
  live_.clear();
}

// ---- Core ----
Core::Core(Simulator& s, Memory& m, DecodeCache& dc, uint8_t* io_block, uint32_t core_id)
    : sim(s),
      mem(m),
      dcache(dc),
      io(io_block),
      id(core_id),
      nt(s.config().threads),
      nw(s.config().warps),
      full_mask(nt == 32 ? 0xffffffffu : (1u << nt) - 1),
      warps(nw),
      barriers(s.config().num_barriers()),
      lmem(s.config().local_mem_bytes),
      lmem_size(s.config().local_mem_bytes) {}

void Core::reset(uint32_t startup_pc, uint32_t startup_arg) {
  *live_reservations = 0;  // every core is reset together
  for (uint32_t i = 0; i < nw; ++i) {
    std::memset(static_cast<void*>(&warps[i]), 0, sizeof(Warp));
    warps[i].id = i;
  }
  warps[0].pc = startup_pc;
  warps[0].tmask = 1;
  active_warps = 1;
  std::fill(barriers.begin(), barriers.end(), 0u);
  global_barrier_warps = 0;
  global_barrier_id = global_barrier_count = 0;
  global_barrier_reported = false;
  mscratch = startup_arg;
  argument_read_as_null = false;
  std::fill(lmem.begin(), lmem.end(), uint8_t{0});
  ctr = Counters{};
  yield = false;
  region_open = region_close_pending = job_posted = false;
  region_warps = 0;
  regions.clear();
}

bool Core::any_runnable() const {
  for (const Warp& w : warps) {
    if (w.tmask != 0 && w.wait == WarpWait::kNone) return true;
  }
  return false;
}

bool Core::resolve_spawns() {
  for (Warp& w : warps) {
    if (w.wait != WarpWait::kSpawn || active_warps != (1u << w.id)) continue;
    for (uint32_t i = 0; i < w.spawn_count; ++i) {
      if (i == w.id) continue;
      Warp& s = warps[i];
      s.pc = w.spawn_pc;
      s.tmask = 1;
      s.wait = WarpWait::kNone;
      s.ipdom_size = 0;
      drop_reservations(s);
      active_warps |= 1u << i;
      ++ctr.warps_spawned;
    }
    w.wait = WarpWait::kNone;
    if (w.spawn_pc == 0 && region_open) close_region(true);  // the join returns: the region's warps are done
    return true;
  }
  return false;
}

void Core::trap(FaultKind kind, std::string message) { throw Trap{kind, std::move(message), {}, {}, {}, {}}; }

void Core::misaligned(uint32_t addr, uint32_t lane, uint32_t size, const char* what) {
  throw Trap{FaultKind::kMisalignedAccess,
             std::string("misaligned ") + what + " of " + std::to_string(size) + " bytes at " + hex(addr), addr, lane, {}, {}};
}

void Core::local_out_of_range(uint32_t addr, uint32_t lane) {
  throw Trap{FaultKind::kUnmappedAccess,
             "access beyond local memory: [" + hex(kLocalMemBaseAddr) + ", " + hex(kLocalMemBaseAddr + lmem_size) +
                 ") is mapped (local_mem_bytes " + std::to_string(lmem_size) + ")",
             addr, lane, {}, {}};
}

void Core::load_slow(uint32_t addr, uint32_t lane, void* dst, uint32_t size) {
  if (addr < kUserBaseAddr) {
    if (addr >= kIoBaseAddr && addr < kIoBaseAddr + kIoConsoleSize) {
      throw Trap{FaultKind::kConsoleMisuse, "load from the IO console (it accepts byte stores only)", addr, lane, {}, {}};
    }
    if (addr >= kIoMpmAddr && addr + size <= sim.io_end()) {
      std::memcpy(dst, io + addr, size);
      return;
    }
    throw Trap{FaultKind::kUnmappedAccess, "load from an unmapped address (null page / IO hole below 0x10000)", addr, lane, {}, {}};
  }
  if (!mem.kernel_load(addr, dst, size)) {
    throw Trap{FaultKind::kAclViolation, "load from a host buffer the kernel may not read (ACL)", addr, lane, {}, {}};
  }
}

void Core::store_slow(uint32_t addr, uint32_t lane, const void* src, uint32_t size) {
  if (addr < kUserBaseAddr) {
    if (addr >= kIoBaseAddr && addr < kIoBaseAddr + kIoConsoleSize) {
      if (size != 1) {
        throw Trap{FaultKind::kConsoleMisuse,
                   "console store of " + std::to_string(size) + " bytes (only byte stores are allowed)", addr, lane, {}, {}};
      }
      sim.console_put(id, addr - kIoBaseAddr, *static_cast<const uint8_t*>(src));
      return;
    }
    if (addr >= kIoMpmAddr && addr + size <= sim.io_end()) {
      std::memcpy(io + addr, src, size);
      if (addr < kIoExitCodeAddr + 4 && addr + size > kIoExitCodeAddr) sim.note_exit_store();
      return;
    }
    throw Trap{FaultKind::kUnmappedAccess, "store to an unmapped address (null page / IO hole below 0x10000)", addr, lane, {}, {}};
  }
  if (!mem.kernel_store(addr, src, size)) {
    throw Trap{FaultKind::kAclViolation, "store into a host buffer the kernel may not write (read-only ACL)", addr, lane, {}, {}};
  }
}

uint32_t Core::read_csr(const Warp& w, uint32_t lane, uint32_t csr) {
  switch (csr) {
    case kCsrFflags: return w.fflags;
    case kCsrFrm: return w.frm;
    case kCsrFcsr: return (w.frm << 5) | w.fflags;
    case kCsrMscratch: return mscratch;
    case kCsrThreadId: return lane;
    case kCsrWarpId: return w.id;
    case kCsrCoreId: return id;
    case kCsrActiveWarps: return active_warps;
    case kCsrActiveThreads: return w.tmask;
    case kCsrNumThreads: return nt;
    case kCsrNumWarps: return nw;
    case kCsrNumCores: return sim.config().cores;
    case kCsrLocalMemBase: return kLocalMemBaseAddr;
    case kCsrMhartid: return hart_id(w, lane);
    // Functional mode has no clock: mcycle counts this core's issued warp-instructions.
    case kCsrMcycle: case kCsrCycle: return static_cast<uint32_t>(ctr.warp_instructions);
    case kCsrMcycleH: case kCsrCycleH: return static_cast<uint32_t>(ctr.warp_instructions >> 32);
    // Vortex 2.x: minstret counts thread-instructions, a WMMA as its micro-ops (as SimX).
    case kCsrMinstret: case kCsrInstret: return static_cast<uint32_t>(ctr.simx_thread_instructions(nt));
    case kCsrMinstretH: case kCsrInstretH: return static_cast<uint32_t>(ctr.simx_thread_instructions(nt) >> 32);
    default:
      if (reads_as_zero(csr)) return 0;
      trap(FaultKind::kInvalidCsr, "read of unknown CSR " + hex(csr));
  }
}

void Core::write_csr(Warp& w, uint32_t csr, uint32_t value) {
  switch (csr) {
    case kCsrFflags: w.fflags = value & 0x1f; return;
    case kCsrFrm: w.frm = value & 7; return;
    case kCsrFcsr: w.fflags = value & 0x1f; w.frm = (value >> 5) & 7; return;
    case kCsrMscratch:
      mscratch = value;
      job_posted = true;  // vx_spawn_threads posts its job here before spawning
      return;
    default:
      break;
  }
  if ((csr >> 10) == 3) trap(FaultKind::kInvalidCsr, "write to read-only CSR " + hex(csr));
  // Writable machine CSRs without an effect here (mstatus, mtvec, satp, counters, ...).
  if (reads_as_zero(csr) || (csr >= VX_CSR_MPM_BASE && csr <= VX_CSR_MPM_BASE_H + 31)) return;
  trap(FaultKind::kInvalidCsr, "write to unknown CSR " + hex(csr));
}

void Core::reserve(Warp& w, uint32_t lane, uint32_t addr) {
  if (!(w.lr_valid >> lane & 1)) ++*live_reservations;
  w.lr_valid |= 1u << lane;
  w.lr_addr[lane] = addr;
}

bool Core::take_reservation(Warp& w, uint32_t lane, uint32_t addr) {
  if (!(w.lr_valid >> lane & 1)) return false;
  w.lr_valid &= ~(1u << lane);
  --*live_reservations;
  return w.lr_addr[lane] == addr;
}

void Core::break_reservations(uint32_t addr) {
  const uint32_t word = addr & ~3u;
  const bool local = addr >= kLocalMemBaseAddr;
  for (auto& core : sim.cores_) {
    if (local && core.get() != this) continue;
    for (Warp& w : core->warps) {
      for (uint32_t m = w.lr_valid; m != 0; m &= m - 1) {
        const uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
        if ((w.lr_addr[lane] & ~3u) == word) {
          w.lr_valid &= ~(1u << lane);
          --*live_reservations;
        }
      }
    }
  }
}

void Core::drop_reservations(Warp& w) {
  *live_reservations -= static_cast<uint32_t>(std::popcount(w.lr_valid));
  w.lr_valid = 0;
}

void Core::exit_warp(Warp& w) {
  drop_reservations(w);
  w.tmask = 0;
  w.wait = WarpWait::kNone;
  active_warps &= ~(1u << w.id);
  yield = true;
}

void Core::arrive_barrier(Warp& w, uint32_t bar_id, uint32_t count) {
  const bool global = bar_id & 0x80000000u;
  const uint32_t index = bar_id & 0x7fffffffu;
  if (index >= barriers.size()) {
    trap(FaultKind::kBarrierOutOfRange, "barrier id " + std::to_string(index) + " out of range (this config has " +
                                            std::to_string(barriers.size()) + " barriers = max(1, warps/2))");
  }
  yield = true;
  ++ctr.barrier_waits;
  if (global) {
    if (global_barrier_warps != 0 && (global_barrier_id != index || global_barrier_count != count)) {
      trap(FaultKind::kBarrierOutOfRange, "global barrier " + std::to_string(index) + " used while global barrier " +
                                              std::to_string(global_barrier_id) + " is pending on this core");
    }
    global_barrier_id = index;
    global_barrier_count = count;
    global_barrier_warps |= 1u << w.id;
    w.wait = WarpWait::kGlobalBarrier;
    return;
  }
  uint32_t& arrived = barriers[index];
  arrived |= 1u << w.id;
  if (static_cast<uint32_t>(std::popcount(arrived)) >= count) {
    for (uint32_t m = arrived; m != 0; m &= m - 1) warps[std::countr_zero(m)].wait = WarpWait::kNone;
    arrived = 0;
    --ctr.barrier_waits;  // the last arrival does not wait
    return;
  }
  w.wait = WarpWait::kBarrier;
}

void Core::release_global_barrier() {
  for (uint32_t m = global_barrier_warps; m != 0; m &= m - 1) warps[std::countr_zero(m)].wait = WarpWait::kNone;
  global_barrier_warps = 0;
  global_barrier_reported = false;
}

void Core::stop_all() {
  *stop_requested = true;
  yield = true;
}

}  // namespace vxsynth::vxsim
