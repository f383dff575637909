#include "vxsim/timing/vortex2.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <limits>
#include <queue>
#include <vector>

#include "common/error.h"
#include "vxsim/decode.h"

namespace vxsynth::vxsim::timing {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// Instructions buffered per warp ahead of the model (bounded memory; fewer round trips to the
// functional run loop when larger).
constexpr uint64_t kBuffer = 64;

enum Fu : uint8_t { kAlu, kFpu, kLsu, kSfu, kTcu, kNumFu };
enum class Lat : uint8_t { kAlu, kDiv, kFpNcp, kFpFma, kFpDiv, kFpSqrt, kFpCvt, kSfu, kTcu, kLsu };
enum class Special : uint8_t { kNone, kBar, kWspawn, kFence, kStore, kLoad, kAmo };

// What the pipeline needs to know of an instruction: its unit, latency, registers read and
// written (integer 0..31, FP 32..63; 0xFF none) and whether the warp waits for it to reach its
// unit before the next fetch (SimX's fetch_stall: branches, jumps, warp control, FP CSRs).
struct InsnTiming {
  Fu fu = kAlu;
  Lat lat = Lat::kAlu;
  Special special = Special::kNone;
  bool rd_int = false, rd_fp = false;
  bool rs1_int = false, rs2_int = false, rs1_fp = false, rs2_fp = false, rs3_fp = false;
  bool fetch_stall = false;
  bool csr = false;
  uint8_t flops = 0;        // FP32 FLOPs per lane (add/sub/mul 1, FMA family 2)
  uint8_t access_size = 0;  // bytes per lane of a load
};

std::vector<InsnTiming> build_insn_timing() {
  std::vector<InsnTiming> table(kNumInsns);
  const auto insns = insn_table();
  for (size_t i = 0; i < kNumInsns; ++i) {
    const InsnInfo& info = insns[i];
    InsnTiming t;
    switch (info.op_class) {
      case OpClass::kAlu: t.fu = kAlu; break;
      case OpClass::kFpu: t.fu = kFpu; t.lat = Lat::kFpFma; break;
      case OpClass::kLoad: t.fu = kLsu; t.lat = Lat::kLsu; t.special = Special::kLoad; break;
      case OpClass::kStore: t.fu = kLsu; t.lat = Lat::kLsu; t.special = Special::kStore; break;
      case OpClass::kAtomic: t.fu = kLsu; t.lat = Lat::kLsu; t.special = Special::kAmo; break;
      case OpClass::kSfu: t.fu = kSfu; t.lat = Lat::kSfu; break;
      case OpClass::kWarpControl: t.fu = kSfu; t.lat = Lat::kSfu; t.fetch_stall = true; break;
      case OpClass::kTensor: t.fu = kTcu; t.lat = Lat::kTcu; break;
      case OpClass::kCount: break;
    }
    switch (info.format) {
      case Format::R: t.rd_int = t.rs1_int = t.rs2_int = true; break;
      case Format::I:
      case Format::Shift: t.rd_int = t.rs1_int = true; break;
      case Format::U: t.rd_int = true; break;
      case Format::Jal: t.rd_int = true; t.fetch_stall = true; break;
      case Format::Jalr: t.rd_int = t.rs1_int = true; t.fetch_stall = true; break;
      case Format::B: t.rs1_int = t.rs2_int = true; t.fetch_stall = true; break;
      case Format::Load: t.rd_int = t.rs1_int = true; break;
      case Format::Store: t.rs1_int = t.rs2_int = true; break;
      case Format::Csr: t.rd_int = t.rs1_int = true; t.csr = true; break;
      case Format::CsrI: t.rd_int = true; t.csr = true; break;
      case Format::Lr: t.rd_int = t.rs1_int = true; break;
      case Format::Amo: t.rd_int = t.rs1_int = t.rs2_int = true; break;
      case Format::FLoad: t.rd_fp = true; t.rs1_int = true; break;
      case Format::FStore: t.rs1_int = true; t.rs2_fp = true; break;
      case Format::R4: t.rd_fp = t.rs1_fp = t.rs2_fp = t.rs3_fp = true; break;
      case Format::FR:
      case Format::FRnoRm: t.rd_fp = t.rs1_fp = t.rs2_fp = true; break;
      case Format::F1: t.rd_fp = t.rs1_fp = true; break;
      case Format::FtoX:
      case Format::FtoXnoRm: t.rd_int = true; t.rs1_fp = true; break;
      case Format::XtoF:
      case Format::XtoFnoRm: t.rd_fp = true; t.rs1_int = true; break;
      case Format::Fcmp: t.rd_int = true; t.rs1_fp = t.rs2_fp = true; break;
      case Format::VxRs1: t.rs1_int = true; break;
      case Format::VxRs1Rs2: t.rs1_int = t.rs2_int = true; break;
      case Format::VxRdRs1: t.rd_int = t.rs1_int = true; break;
      case Format::Wmma:
      case Format::Fence:
      case Format::None: break;
    }
    const std::string_view mn = info.mnemonic;
    if (mn == "div" || mn == "divu" || mn == "rem" || mn == "remu") t.lat = Lat::kDiv;
    if (mn == "fdiv.s") t.lat = Lat::kFpDiv;
    if (mn == "fsqrt.s") t.lat = Lat::kFpSqrt;
    if (info.format == Format::FtoX || info.format == Format::XtoF) t.lat = Lat::kFpCvt;
    if (info.format == Format::FRnoRm || info.format == Format::FtoXnoRm || info.format == Format::XtoFnoRm ||
        info.format == Format::Fcmp) {
      t.lat = Lat::kFpNcp;
    }
    if (mn == "fadd.s" || mn == "fsub.s" || mn == "fmul.s") t.flops = 1;
    if (info.format == Format::R4) t.flops = 2;
    if (mn == "lw" || mn == "flw" || mn == "lr.w") t.access_size = 4;
    if (mn == "lh" || mn == "lhu") t.access_size = 2;
    if (mn == "lb" || mn == "lbu") t.access_size = 1;
    // SimX's LSU treats every atomic but LR as a write (func_unit.cpp: is_write = amo_type !=
    // LR): it does not wait for the response. LR is a load.
    if (mn == "lr.w") t.special = Special::kLoad;
    if (mn == "bar") t.special = Special::kBar;
    if (mn == "wspawn") t.special = Special::kWspawn;
    if (mn == "fence") { t.fu = kLsu; t.lat = Lat::kLsu; t.special = Special::kFence; }
    // SimX runs ECALL/EBREAK/xRET and VOTE/SHFL on the ALU.
    if (mn == "ecall" || mn == "ebreak" || mn == "mret" || mn == "sret" || mn == "uret" || mn == "wfi") {
      t.fu = kAlu; t.lat = Lat::kAlu; t.fetch_stall = true;
    }
    if (mn.starts_with("vote") || mn.starts_with("shfl")) { t.fu = kAlu; t.lat = Lat::kAlu; }
    table[i] = t;
  }
  return table;
}

const std::vector<InsnTiming>& insn_timing() {
  static const std::vector<InsnTiming> table = build_insn_timing();
  return table;
}

struct Op {
  uint32_t pc = 0;
  uint32_t next_mask = 0;
  uint32_t arg0 = 0, arg1 = 0;
  uint32_t uops = 1;         // micro-ops still to schedule (a WMMA: m*n*k steps)
  uint16_t insn = 0;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t lanes = 0;
  uint8_t nblocks = 0;       // coalesced global requests (addresses in Warp::blocks)
  uint8_t lmem_cycles = 0;   // local-memory bank cycles (0: no local access)
  uint8_t lmem_lanes = 0;
  uint8_t opc_stalls = 0;    // register-file bank conflicts among the source registers
  bool fetch_stall = false;
  bool last_uop = true;
  bool posts_job = false;    // writes MSCRATCH (vx_spawn_threads posts its job there)
};

// A FIFO on a power-of-two ring that grows when full (the per-warp queues are short and hot:
// std::deque allocated and freed a block every few dozen instructions).
template <typename T>
class Ring {
 public:
  Ring() : buf_(8), mask_(7) {}
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void push_back(const T& v) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  // n values at once (an LSU instruction's blocks): one capacity check.
  void push_back_n(const T* v, size_t n) {
    while (size_ + n > buf_.size()) grow();
    for (size_t i = 0; i < n; ++i) buf_[(head_ + size_ + i) & mask_] = v[i];
    size_ += n;
  }
  void pop_front_n(T* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = buf_[(head_ + i) & mask_];
    head_ = (head_ + n) & mask_;
    size_ -= n;
  }

 private:
  void grow() {
    std::vector<T> bigger(buf_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & mask_];
    buf_.swap(bigger);
    mask_ = buf_.size() - 1;
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t mask_;
  size_t head_ = 0, size_ = 0;
};

// Without -mpopcnt, std::popcount is a libgcc call; masks here are 32 bits.
inline uint32_t popc(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

// A set of at most 32 values (the lanes of a warp) on a 64-slot open-addressed table:
// O(1) per lane where a scan of the values seen so far was O(lanes).
struct SmallSet {
  uint64_t used = 0;
  uint32_t key[64];
  bool insert(uint32_t k) {  // true if k was not in the set
    uint32_t h = (k * 0x9E3779B1u) >> 26;
    for (;;) {
      if (((used >> h) & 1) == 0) {
        used |= uint64_t{1} << h;
        key[h] = k;
        return true;
      }
      if (key[h] == k) return false;
      h = (h + 1) & 63;
    }
  }
};

struct Warp {
  Ring<Op> fifo;                  // executed, not yet scheduled
  Ring<uint32_t> blocks;          // block addresses of memory ops not yet issued, in order
  Ring<Op> ibuf;
  bool active = false;            // scheduled side: has a thread mask
  bool alive = false;             // may still produce instructions
  bool suspended = false;         // waiting for decode, a branch at its unit, a barrier, a spawn
  uint64_t ready_at = 0;
  uint64_t barrier_since = 0;
  bool at_barrier = false;
  // The front instruction of ibuf: the cycle all its registers are free, and the unit whose
  // register blocks it, valid for cycles [blk_from, blk_until). A warp's register times change
  // only when it issues (which pops the front), so both hold until then (cached: issue looks
  // at every waiting warp every cycle).
  uint64_t front_ready = 0;
  uint64_t blk_from = 0, blk_until = 0;
  uint32_t blk_fu = 0;
  uint64_t reg_ready[64] = {};
  uint8_t reg_fu[64] = {};
};

struct FetchEntry {
  uint64_t arrive;
  uint32_t warp;
  Op op;
};

// Fetched instructions in arrival order (stable among equal arrivals). Popping the front
// moves a head index; erasing the vector's first element moved the rest every time.
struct FetchQueue {
  std::vector<FetchEntry> v;
  size_t head = 0;
  bool empty() const { return head == v.size(); }
  FetchEntry& front() { return v[head]; }
  const FetchEntry& front() const { return v[head]; }
  void pop_front() {
    if (++head == v.size()) {
      v.clear();
      head = 0;
    } else if (head >= 64) {
      v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
  }
  void insert(const FetchEntry& e) {
    // Arrivals come mostly in order: appending is where upper_bound would put it.
    if (empty() || v.back().arrive <= e.arrive) {
      v.push_back(e);
      return;
    }
    auto pos = std::upper_bound(v.begin() + static_cast<std::ptrdiff_t>(head), v.end(), e.arrive,
                                [](uint64_t a, const FetchEntry& x) { return a < x.arrive; });
    v.insert(pos, e);
  }
};

struct Event {
  uint64_t time;
  uint32_t kind;  // 0 barrier arrival, 1 spawn request
  uint32_t warp;
  uint32_t a, b;
  bool operator>(const Event& o) const { return time > o.time; }
};

}  // namespace

struct Vortex2Model::Impl {
  const TimingParams& p;
  Config config;
  const std::vector<InsnTiming>& info = insn_timing();
  MemoryModel* memory;
  std::unique_ptr<Cache> l2;
  std::vector<std::unique_ptr<Cache>> icaches, dcaches;

  struct Core {
    uint32_t id = 0;
    std::vector<Warp> warps;
    FetchQueue fetchq;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
    std::vector<uint32_t> rr;        // per issue slot: last granted warp index within the slot
    std::vector<uint64_t> fu_free;   // [fu * issue_width + block]
    uint64_t lmem_free = 0;
    uint64_t lmem_stalled_until = 0;  // count_wait's `until` for the local memory
    std::vector<uint64_t> lsu_pending;  // response cycles of the outstanding loads
    uint64_t last_load_done = 0;
    uint64_t last_complete = 0;
    uint32_t active_count = 0;
    uint32_t ibuf_mask = 0;   // warps with a decoded instruction buffered
    uint32_t sched_mask = 0;  // warps active and not suspended (schedule's candidates)
    bool spawn_pending = false;
    uint32_t spawn_count = 0;
    uint32_t spawn_pc = 0;
    bool region_open = false;        // a vx_spawn_threads region (TimingRegion) is running
    bool job_posted = false;         // MSCRATCH written since the last region (as vxsim::Core)
    TimingRegion region;
    std::vector<TimingRegion> regions;
    std::vector<uint32_t> barriers;
    uint32_t gbar_mask = 0;
    uint32_t gbar_id = 0;
    uint32_t gbar_count = 0;
    bool gbar_reported = false;
    bool done = false;
    uint64_t done_at = 0;
    bool pre_done = false;           // events/decode/issue of the current cycle ran
    bool activity = false;
    Cache* icache = nullptr;
    Cache* dcache = nullptr;
    uint32_t l1_extra = 0;  // each way through the socket's arbiter when the L1s are shared
    TimingCounters ctr;
  };
  std::vector<Core> cores;
  uint8_t reg_bank[32];  // register number mod gpr_banks (a table: a division per pair cost more)
  uint64_t now = 0;
  uint32_t next_core = 0;
  bool draining = false;
  bool finished = false;

  Impl(const TimingParams& params, const Config& cfg, MemoryModel* mem) : p(params), config(cfg), memory(mem) {
    MemLevel* below = memory;
    if (p.l2_enable) {
      l2 = std::make_unique<Cache>(p.l2_size, p.l2_ways, p.l2_line, p.l2_banks, p.l2_mshr, p.l2_latency, memory);
      below = l2.get();
    }
    const uint32_t sockets = (cfg.cores + p.socket_size - 1) / p.socket_size;
    for (uint32_t s = 0; s < sockets; ++s) {
      icaches.push_back(
          std::make_unique<Cache>(p.icache_size, p.icache_ways, p.icache_line, 1, p.icache_mshr, p.icache_latency, below));
      dcaches.push_back(std::make_unique<Cache>(p.dcache_size, p.dcache_ways, p.dcache_line, p.dcache_banks,
                                                p.dcache_mshr, p.dcache_latency, below));
    }
    for (uint32_t r = 0; r < 32; ++r) reg_bank[r] = static_cast<uint8_t>(r % p.gpr_banks);
    cores.resize(cfg.cores);
    for (uint32_t c = 0; c < cfg.cores; ++c) {
      Core& core = cores[c];
      core.id = c;
      core.warps.resize(cfg.warps);
      core.rr.assign(p.issue_width, 0);
      core.fu_free.assign(static_cast<size_t>(kNumFu) * p.issue_width, 0);
      core.barriers.assign(cfg.num_barriers(), 0);
      core.lsu_pending.assign(p.lsu_queue, 0);
      core.icache = icaches[c / p.socket_size].get();
      core.dcache = dcaches[c / p.socket_size].get();
      const uint32_t first = c / p.socket_size * p.socket_size;
      if (std::min(cfg.cores, first + p.socket_size) - first > 1) core.l1_extra = p.socket_latency;
      core.warps[0].active = core.warps[0].alive = true;
      core.active_count = 1;
      core.sched_mask = 1;
    }
  }

  // ---- input from the functional core ----

  void push(const ExecutedInstruction& r) {
    Core& core = cores[r.core];
    Warp& w = core.warps[r.warp];
    const InsnTiming& t = info[r.insn_id];
    Op op;
    op.pc = r.pc;
    op.next_mask = r.next_mask;
    op.arg0 = r.arg0;
    op.arg1 = r.arg1;
    op.uops = std::max<uint32_t>(1, r.uops);
    op.insn = r.insn_id;
    op.rd = r.rd;
    op.rs1 = r.rs1;
    op.rs2 = r.rs2;
    op.rs3 = r.rs3;
    op.lanes = static_cast<uint8_t>(popc(r.thread_mask));
    op.fetch_stall = t.fetch_stall || (t.csr && (r.word >> 20) <= 3);
    if (t.csr && (r.word >> 20) == 0x340) {
      const uint32_t funct3 = (r.word >> 12) & 7, src = (r.word >> 15) & 31;
      op.posts_job = funct3 == 1 || funct3 == 5 || src != 0;  // csrrw(i) always writes, the others with a source
    }
    {
      // SimX's operand collector: one extra cycle per pair of source registers in the same
      // bank (register number mod gpr_banks; x0 is free).
      uint32_t regs[3];
      uint32_t n = 0;
      if (t.rs1_int ? r.rs1 != 0 : t.rs1_fp) regs[n++] = r.rs1;
      if (t.rs2_int ? r.rs2 != 0 : t.rs2_fp) regs[n++] = r.rs2;
      if (t.rs3_fp) regs[n++] = r.rs3;
      uint32_t stalls = 0;
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = i + 1; j < n; ++j) stalls += reg_bank[regs[i]] == reg_bank[regs[j]];
      }
      op.opc_stalls = static_cast<uint8_t>(stalls);
    }
    core.ctr.fp_flops += static_cast<uint64_t>(t.flops) * op.lanes;
    if (r.is_memory && t.access_size != 0) {
      // Global load: bytes asked for and 32-byte sectors touched (the coalescing figure).
      SmallSet sectors;
      uint32_t ns = 0, lanes = 0;
      for (uint32_t m = r.thread_mask; m != 0; m &= m - 1) {
        const uint32_t a = r.addresses[std::countr_zero(m)];
        if (a >= kLocalMemBaseAddr) continue;
        ++lanes;
        ns += sectors.insert(a >> 5);
      }
      core.ctr.global_load_bytes += static_cast<uint64_t>(lanes) * t.access_size;
      core.ctr.global_load_sectors += ns;
    }
    if (r.is_memory) {
      uint32_t seen[32];  // distinct blocks in lane order (the order the LSU sends them)
      uint32_t nseen = 0;
      SmallSet blocks;
      uint32_t bank_words[32][32];  // per bank: distinct words (local memory)
      uint32_t bank_n[32];  // zeroed at the first local access (most accesses are global)
      bool any_local = false;
      uint32_t lmem_cycles = 0;
      const uint32_t block_mask = ~(p.lsu_block - 1);
      for (uint32_t m = r.thread_mask; m != 0; m &= m - 1) {
        const uint32_t a = r.addresses[std::countr_zero(m)];
        if (a >= kLocalMemBaseAddr) {
          if (!any_local) {
            std::fill(std::begin(bank_n), std::end(bank_n), 0u);
            any_local = true;
          }
          ++op.lmem_lanes;
          const uint32_t word = a >> 2;
          const uint32_t bank = word & (p.lmem_banks - 1) & 31;
          bool dup = false;
          for (uint32_t i = 0; i < bank_n[bank]; ++i) dup |= bank_words[bank][i] == word;
          if (!dup) {
            bank_words[bank][bank_n[bank]++] = word;
            lmem_cycles = std::max(lmem_cycles, bank_n[bank]);
          }
          continue;
        }
        const uint32_t b = a & block_mask;
        if (blocks.insert(b)) seen[nseen++] = b;
      }
      op.nblocks = static_cast<uint8_t>(nseen);
      op.lmem_cycles = static_cast<uint8_t>(lmem_cycles);
      w.blocks.push_back_n(seen, nseen);
    }
    w.fifo.push_back(op);
  }

  // ---- the pipeline ----

  uint64_t latency(Lat l) const {
    switch (l) {
      case Lat::kAlu: return p.alu_latency;
      case Lat::kDiv: return p.div_latency;
      case Lat::kFpNcp: return p.fpu_ncp_latency;
      case Lat::kFpFma: return p.fpu_fma_latency;
      case Lat::kFpDiv: return p.fpu_div_latency;
      case Lat::kFpSqrt: return p.fpu_sqrt_latency;
      case Lat::kFpCvt: return p.fpu_cvt_latency;
      case Lat::kSfu: return p.sfu_latency;
      case Lat::kTcu: return p.tcu_latency;
      case Lat::kLsu: return p.lsu_latency;
    }
    return 1;
  }

  static void update_sched(Core& core, uint32_t wid) {
    const Warp& w = core.warps[wid];
    core.sched_mask = (core.sched_mask & ~(1u << wid)) | (static_cast<uint32_t>(w.active && !w.suspended) << wid);
  }

  static void resume(Core& core, uint32_t wid, uint64_t at) {
    Warp& w = core.warps[wid];
    w.suspended = false;
    w.ready_at = at;
    update_sched(core, wid);
  }

  void release_barrier(Core& core, uint32_t mask, uint64_t t) {
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t wid = static_cast<uint32_t>(std::countr_zero(m));
      Warp& w = core.warps[wid];
      w.at_barrier = false;
      core.ctr.barrier_stall_cycles += t - w.barrier_since;
      resume(core, wid, t);
    }
  }

  void process_events(Core& core, uint64_t t) {
    while (!core.events.empty() && core.events.top().time <= t) {
      const Event e = core.events.top();
      core.events.pop();
      core.activity = true;
      Warp& w = core.warps[e.warp];
      if (e.kind == 0) {  // barrier arrival: id e.a, count e.b
        const bool global = (e.a >> 31) != 0;
        const uint32_t id = e.a & 0x7fffffff;
        w.at_barrier = true;
        w.barrier_since = t;
        if (global) {
          core.gbar_mask |= 1u << e.warp;
          core.gbar_id = id;
          core.gbar_count = e.b;
          maybe_release_global(t);
        } else {
          uint32_t& bar = core.barriers[id % core.barriers.size()];
          bar |= 1u << e.warp;
          if (popc(bar) >= e.b) {
            const uint32_t mask = bar;
            bar = 0;
            release_barrier(core, mask, t);
          }
        }
      } else {  // spawn request of e.a warps at PC e.b (0: the join ending a region)
        if (e.b != 0 && !core.region_open && core.job_posted) open_region(core, t);
        const uint32_t n = std::min(e.a, config.warps);
        if (n < 2 && core.active_count == 1) {
          resume(core, e.warp, t);
          if (e.b == 0 && core.region_open) close_region(core, t, true);
        } else {
          core.spawn_pending = true;
          core.spawn_count = n;
          core.spawn_pc = e.b;
        }
      }
    }
  }

  static void open_region(Core& core, uint64_t t) {
    core.region_open = true;
    core.region = TimingRegion{};
    core.region.core = core.id;
    core.region.index = static_cast<uint32_t>(core.regions.size());
    core.region.begin = t;
    core.region.instrs = core.ctr.instrs;
    core.region.warp_issues = core.ctr.warp_issues;
  }

  static void close_region(Core& core, uint64_t t, bool closed) {
    TimingRegion r = core.region;
    r.end = t;
    r.instrs = core.ctr.instrs - r.instrs;
    r.warp_issues = core.ctr.warp_issues - r.warp_issues;
    r.closed = closed;
    core.regions.push_back(r);
    core.region_open = false;
    core.job_posted = false;
  }

  void maybe_release_global(uint64_t t) {
    uint32_t reported = 0, count = 0;
    for (Core& c : cores) {
      // Vortex: a core reports once all its active warps wait at the global barrier.
      if (c.gbar_mask != 0 && popc(c.gbar_mask) >= c.active_count) {
        c.gbar_reported = true;
      }
      if (c.gbar_reported) {
        ++reported;
        count = c.gbar_count;
      }
    }
    if (reported == 0 || reported < count) return;
    for (Core& c : cores) {
      if (!c.gbar_reported) continue;
      const uint32_t mask = c.gbar_mask;
      c.gbar_mask = 0;
      c.gbar_reported = false;
      release_barrier(c, mask, t);
      c.activity = true;
    }
  }

  void decode(Core& core, uint64_t t) {
    if (core.fetchq.empty() || core.fetchq.front().arrive > t) return;
    FetchEntry& f = core.fetchq.front();
    Warp& w = core.warps[f.warp];
    if (w.ibuf.size() >= p.ibuf_size) {
      ++core.ctr.ibuf_stalls;
      return;
    }
    core.activity = true;
    if (!f.op.fetch_stall || !f.op.last_uop) resume(core, f.warp, t);
    w.ibuf.push_back(f.op);
    if (w.ibuf.size() == 1) new_front(core, f.warp);
    core.fetchq.pop_front();
  }

  // The first register (in SimX's order: sources, then destination) of an op that is still
  // pending at cycle t: its producer unit and the cycle it is ready; {kNumFu, 0} when none is.
  std::pair<uint32_t, uint64_t> blocking_reg(const Warp& w, const Op& op, uint64_t t) const {
    const InsnTiming& ti = info[op.insn];
    auto check = [&](uint32_t r) { return w.reg_ready[r] > t; };
    auto at = [&](uint32_t r) { return std::pair<uint32_t, uint64_t>{w.reg_fu[r], w.reg_ready[r]}; };
    if (ti.rs1_int && op.rs1 != 0 && check(op.rs1)) return at(op.rs1);
    if (ti.rs2_int && op.rs2 != 0 && check(op.rs2)) return at(op.rs2);
    if (ti.rs1_fp && check(32 + op.rs1)) return at(32 + op.rs1);
    if (ti.rs2_fp && check(32 + op.rs2)) return at(32 + op.rs2);
    if (ti.rs3_fp && check(32 + op.rs3)) return at(32 + op.rs3);
    if (ti.rd_int && op.rd != 0 && check(op.rd)) return at(op.rd);
    if (ti.rd_fp && check(32 + op.rd)) return at(32 + op.rd);
    return {kNumFu, 0};
  }

  // The unit whose register blocks warp w's front instruction at cycle t (kNumFu: none). As
  // cycles pass, registers only become ready, so the first pending one stays first until it
  // is ready itself.
  uint32_t blocking_fu(Warp& w, uint64_t t) const {
    if (w.front_ready <= t) return kNumFu;
    if (t < w.blk_from || t >= w.blk_until) {
      const auto [fu, until] = blocking_reg(w, w.ibuf.front(), t);
      w.blk_fu = fu;
      w.blk_from = t;
      w.blk_until = until;
    }
    return w.blk_fu;
  }

  uint64_t operands_ready_at(const Warp& w, const Op& op) const {
    const InsnTiming& ti = info[op.insn];
    uint64_t at = 0;
    if (ti.rs1_int && op.rs1 != 0) at = std::max(at, w.reg_ready[op.rs1]);
    if (ti.rs2_int && op.rs2 != 0) at = std::max(at, w.reg_ready[op.rs2]);
    if (ti.rs1_fp) at = std::max(at, w.reg_ready[32 + op.rs1]);
    if (ti.rs2_fp) at = std::max(at, w.reg_ready[32 + op.rs2]);
    if (ti.rs3_fp) at = std::max(at, w.reg_ready[32 + op.rs3]);
    if (ti.rd_int && op.rd != 0) at = std::max(at, w.reg_ready[op.rd]);
    if (ti.rd_fp) at = std::max(at, w.reg_ready[32 + op.rd]);
    return at;
  }

  // Warp wid's instruction buffer has a new front instruction (or none).
  void new_front(Core& core, uint32_t wid) {
    Warp& w = core.warps[wid];
    if (w.ibuf.empty()) {
      core.ibuf_mask &= ~(1u << wid);
      return;
    }
    core.ibuf_mask |= 1u << wid;
    w.front_ready = operands_ready_at(w, w.ibuf.front());
    w.blk_from = 1;
    w.blk_until = 0;
  }

  void count_scoreboard_stall(Core& core, uint32_t fu, uint64_t n) {
    switch (fu) {
      case kAlu: core.ctr.scrb_alu += n; break;
      case kFpu: core.ctr.scrb_fpu += n; break;
      case kLsu: core.ctr.scrb_lsu += n; break;
      case kSfu: core.ctr.scrb_sfu += n; break;
      case kNumFu: break;
      default: core.ctr.scrb_tcu += n; break;
    }
  }

  void issue(Core& core, uint64_t t) {
    if (core.ibuf_mask == 0) return;
    const uint32_t width = p.issue_width;
    const uint32_t per_slot = config.warps / width;
    for (uint32_t slot = 0; slot < width; ++slot) {
      // Warps of this slot with a buffered instruction, as bits i (warp i * width + slot).
      uint32_t m = 0;
      if (width == 1) {
        m = core.ibuf_mask;
      } else {
        for (uint32_t i = 0; i < per_slot; ++i) m |= ((core.ibuf_mask >> (i * width + slot)) & 1u) << i;
      }
      if (m == 0) continue;
      // Round-robin: from the one after the last granted, wrapping around to it.
      const uint32_t rr = core.rr[slot];
      const uint32_t upto_rr = rr + 1 >= 32 ? ~0u : (1u << (rr + 1)) - 1;
      const uint32_t order[2] = {m & ~upto_rr, m & upto_rr};
      uint32_t pick = per_slot;
      for (uint32_t part = 0; part < 2 && pick == per_slot; ++part) {
        for (uint32_t bits = order[part]; bits != 0; bits &= bits - 1) {
          const uint32_t i = static_cast<uint32_t>(std::countr_zero(bits));
          Warp& w = core.warps[i * width + slot];
          const uint32_t fu = blocking_fu(w, t);
          if (fu == kNumFu) {
            pick = i;
            break;
          }
          count_scoreboard_stall(core, fu, 1);
        }
      }
      if (pick == per_slot) {
        ++core.ctr.scrb_stalls;
        continue;
      }
      core.rr[slot] = pick;
      const uint32_t wid = pick * width + slot;
      Warp& w = core.warps[wid];
      const Op op = w.ibuf.front();
      w.ibuf.pop_front();
      execute(core, w, wid, slot, op, t);
      new_front(core, wid);
      core.activity = true;
    }
  }

  void execute(Core& core, Warp& w, uint32_t wid, uint32_t slot, const Op& op, uint64_t t) {
    const InsnTiming& ti = info[op.insn];
    const uint32_t block = (ti.fu == kLsu || ti.fu == kSfu) ? 0 : slot;
    uint64_t& free = core.fu_free[static_cast<size_t>(ti.fu) * p.issue_width + block];
    uint64_t start = std::max(t + p.issue_latency + op.opc_stalls, free);
    core.ctr.opc_stalls += op.opc_stalls;
    if (op.posts_job) core.job_posted = true;
    uint64_t complete = start + latency(ti.lat);
    uint64_t hold = start + 1;
    if (ti.fu == kLsu) complete = memory_access(core, w, op, ti, start, hold);  // may wait for a queue slot
    free = hold;
    core.ctr.instrs += op.lanes;
    ++core.ctr.warp_issues;
    if (ti.fu == kTcu) {
      ++core.ctr.tcu_uops;
      core.ctr.tcu_busy += 1;
    }
    if (ti.rd_int && op.rd != 0) {
      w.reg_ready[op.rd] = complete + p.commit_latency;
      w.reg_fu[op.rd] = ti.fu;
    }
    if (ti.rd_fp) {
      w.reg_ready[32 + op.rd] = complete + p.commit_latency;
      w.reg_fu[32 + op.rd] = ti.fu;
    }
    core.last_complete = std::max(core.last_complete, complete + p.commit_latency);
    if (op.fetch_stall && op.last_uop) {
      if (ti.special == Special::kBar && op.arg1 >= 2) {
        core.events.push(Event{start, 0, wid, op.arg0, op.arg1});
      } else if (ti.special == Special::kWspawn) {
        core.events.push(Event{start, 1, wid, op.arg0, op.arg1});
      } else if (w.active || op.next_mask != 0) {
        resume(core, wid, start + p.resume_latency);
      }
    }
  }

  // The cycle the instruction's result is ready; `hold`: the cycle the LSU can take its next
  // instruction (a store holds it until the data cache has taken its last request).
  uint64_t memory_access(Core& core, Warp& w, const Op& op, const InsnTiming& ti, uint64_t& start, uint64_t& hold) {
    hold = start + 1;
    if (ti.special == Special::kFence) return std::max(start, core.last_load_done) + 1;
    // Stores and AMOs (SimX: a write; the warp does not wait for the response).
    const bool write = ti.special == Special::kStore || ti.special == Special::kAmo;
    // SimX's LSU keeps at most lsu_queue loads outstanding; a further load (and everything
    // behind it in the LSU) waits for the oldest to return.
    uint64_t* slot = nullptr;
    if (!write) {
      slot = &core.lsu_pending[0];
      for (uint64_t& e : core.lsu_pending) {
        if (e < *slot) slot = &e;
      }
      if (*slot > start) {
        core.ctr.lsu_queue_stalls += *slot - start;
        start = *slot;
      }
    }
    const uint64_t req = start + p.lsu_latency;
    uint64_t done = req;
    if (write) {
      core.ctr.stores += op.lanes;
    } else {
      core.ctr.loads += op.lanes;
    }
    if (op.nblocks != 0) {
      ++core.ctr.global_mem_instrs;
      core.ctr.global_blocks += op.nblocks;
      uint32_t addrs[32];
      w.blocks.pop_front_n(addrs, op.nblocks);
      const uint64_t r = core.dcache->request_lines(req + core.l1_extra, addrs, op.nblocks, write) + core.l1_extra;
      done = std::max(done, r);
    }
    if (op.lmem_cycles != 0) {
      const uint64_t s = std::max(req, core.lmem_free);
      core.lmem_free = s + op.lmem_cycles;
      count_wait(req, s + op.lmem_cycles - 1, core.lmem_stalled_until, core.ctr.lmem_bank_stalls, core.ctr.lmem_bank_wait);
      if (write) {
        core.ctr.lmem_writes += op.lmem_lanes;
      } else {
        core.ctr.lmem_reads += op.lmem_lanes;
      }
      done = std::max(done, s + p.lmem_latency + op.lmem_cycles - 1);
    }
    if (write) {
      // Without stalls the cache takes a request at req + l1_extra + 1 (+ l1_extra back).
      const uint64_t unstalled = req + 2 * core.l1_extra + 1;
      if (done > unstalled) hold = start + 1 + (done - unstalled);
      return start + 1;
    }
    *slot = done;
    const uint64_t complete = done + p.lsu_rsp_latency;
    core.last_load_done = std::max(core.last_load_done, complete);
    core.ctr.load_latency += complete - start;
    ++core.ctr.load_instrs;
    return complete;
  }

  // Returns false when the warp to schedule has no buffered instruction yet (the functional
  // core must run it first).
  bool schedule(Core& core, uint64_t t) {
    if (core.spawn_pending && core.active_count == 1) {
      for (uint32_t i = 1; i < core.spawn_count; ++i) {
        Warp& s = core.warps[i];
        if (!s.active) {
          s.active = s.alive = true;
          ++core.active_count;
          resume(core, i, t);
        }
      }
      core.spawn_pending = false;
      for (uint32_t wid = 0; wid < config.warps; ++wid) {
        const Warp& w = core.warps[wid];
        if (w.active && w.suspended && !w.at_barrier) {
          resume(core, wid, t);  // the caller (SimX resumes warp 0)
          break;
        }
      }
      if (core.spawn_pc == 0 && core.region_open) close_region(core, t, true);
      core.activity = true;
    }
    for (uint32_t m = core.sched_mask; m != 0; m &= m - 1) {
      const uint32_t wid = static_cast<uint32_t>(std::countr_zero(m));
      Warp& w = core.warps[wid];
      if (w.ready_at > t) continue;
      if (w.fifo.empty()) {
        if (w.alive && !draining) return false;
        // Draining: the functional run is over and this warp produced nothing more.
        w.active = w.alive = false;
        update_sched(core, wid);
        --core.active_count;
        core.activity = true;
        return true;
      }
      Op op = w.fifo.front();
      if (op.uops > 1) {
        --w.fifo.front().uops;
        op.uops = 1;
        op.last_uop = false;
      } else {
        w.fifo.pop_front();
      }
      if (op.last_uop && op.next_mask == 0) {
        w.active = w.alive = false;
        --core.active_count;
      }
      w.suspended = true;
      update_sched(core, wid);
      const uint64_t resp = core.icache->request(t + 1 + core.l1_extra, op.pc, false);
      const uint64_t arrive = resp + p.fetch_latency + core.l1_extra;
      ++core.ctr.ifetches;
      core.ctr.ifetch_latency += arrive - t;
      core.fetchq.insert(FetchEntry{arrive, wid, op});
      core.activity = true;
      return true;
    }
    ++core.ctr.sched_idle;
    if (core.active_count != 0) ++core.ctr.sched_stalls;
    return true;
  }

  bool core_done(const Core& core, uint64_t t) const {
    if (core.active_count != 0 || !core.fetchq.empty() || !core.events.empty() || core.spawn_pending) return false;
    if (core.ibuf_mask != 0) return false;
    return t >= core.last_complete;
  }

  // The earliest cycle after t at which something can happen on this core (kNever: nothing).
  uint64_t next_time(const Core& core, uint64_t t) const {
    uint64_t next = kNever;
    if (!core.events.empty()) next = std::min(next, core.events.top().time);
    if (!core.fetchq.empty()) {
      // Decode is in order: a front entry that has arrived but whose warp's instruction buffer
      // is full waits for that warp to issue, which the warp's own term below covers (without
      // this, a memory-bound kernel stepped every cycle of every load's latency).
      const FetchEntry& f = core.fetchq.front();
      const bool blocked = f.arrive <= t && core.warps[f.warp].ibuf.size() >= p.ibuf_size;
      if (!blocked) next = std::min(next, std::max(f.arrive, t + 1));
    }
    for (uint32_t m = core.ibuf_mask; m != 0; m &= m - 1) {
      next = std::min(next, std::max(core.warps[std::countr_zero(m)].front_ready, t + 1));
    }
    for (uint32_t m = core.sched_mask; m != 0; m &= m - 1) {
      next = std::min(next, std::max(core.warps[std::countr_zero(m)].ready_at, t + 1));
    }
    if (core.active_count == 0 && core.fetchq.empty() && core.events.empty() && !core.done) {
      next = std::min(next, std::max(core.last_complete, t + 1));
    }
    return next;
  }

  // Runs cycles until a warp needs an instruction the functional core has not produced yet,
  // or every core is done, or nothing can happen any more. True if anything advanced.
  bool advance() {
    if (finished) return false;
    bool progressed = false;
    for (;;) {
      bool any_activity = false;
      for (uint32_t c = next_core; c < cores.size(); ++c) {
        Core& core = cores[c];
        if (core.done) continue;
        if (!core.pre_done) {
          core.activity = false;
          core.ctr.active_warp_cycles += core.active_count;
          process_events(core, now);
          decode(core, now);
          issue(core, now);
          core.pre_done = true;
        }
        if (!schedule(core, now)) {
          next_core = c;
          return progressed || core.activity;
        }
        core.pre_done = false;
        any_activity |= core.activity;
        if (core_done(core, now)) {
          core.done = true;
          core.done_at = now;
        }
      }
      next_core = 0;
      progressed |= any_activity;
      bool all_done = true;
      for (const Core& core : cores) all_done &= core.done;
      if (all_done) {
        finished = true;
        return true;
      }
      // Skip cycles in which nothing can change.
      uint64_t next = now + 1;
      if (!any_activity) {
        next = kNever;
        for (const Core& core : cores) {
          if (!core.done) next = std::min(next, next_time(core, now));
        }
        if (next == kNever) return progressed;  // stuck: only a fault or a deadlock ends like this
        for (Core& core : cores) {
          if (core.done) continue;
          const uint64_t skipped = next - now - 1;
          uint32_t slots_waiting = 0;  // issue slots with a buffered instruction (issue() counts one stall each)
          for (uint32_t m = core.ibuf_mask; m != 0; m &= m - 1) {
            const uint32_t wid = static_cast<uint32_t>(std::countr_zero(m));
            slots_waiting |= 1u << (wid % p.issue_width);
            // As issue() counts them each cycle: the unit producing each waiting warp's blocking register.
            count_scoreboard_stall(core, blocking_fu(core.warps[wid], now + 1), skipped);
          }
          core.ctr.scrb_stalls += skipped * static_cast<uint64_t>(popc(slots_waiting));
          if (!core.fetchq.empty() && core.fetchq.front().arrive <= now) core.ctr.ibuf_stalls += skipped;
          core.ctr.sched_idle += skipped;
          core.ctr.active_warp_cycles += skipped * core.active_count;
          if (core.active_count != 0) core.ctr.sched_stalls += skipped;
        }
      }
      now = next;
    }
  }

  void finish(TimingSummary& s) {
    uint64_t end = 0;
    for (const Core& core : cores) end = std::max({end, core.done ? core.done_at : now, core.last_complete});
    s = TimingSummary{};
    s.cycles = end;
    for (Core& core : cores) {
      if (core.region_open) close_region(core, end, false);
      s.regions.insert(s.regions.end(), core.regions.begin(), core.regions.end());
    }
    std::stable_sort(s.regions.begin(), s.regions.end(),
                     [](const TimingRegion& a, const TimingRegion& b) { return a.index < b.index; });
    for (Core& core : cores) {
      core.ctr.cycles = end;
      s.cores.push_back(core.ctr);
      s.total += core.ctr;
    }
    s.total.cycles = end;
    for (const auto& c : icaches) s.icache += c->stats();
    for (const auto& c : dcaches) s.dcache += c->stats();
    if (l2) s.l2 = l2->stats();
    s.l2_enabled = l2 != nullptr;
    s.memory = memory->stats();
    s.memory_banks = memory->banks();
    s.memory_row_model = p.mem_row_miss_cycles != 0;
  }
};

TimingCounters& TimingCounters::operator+=(const TimingCounters& o) {
  cycles += o.cycles;
  instrs += o.instrs;
  warp_issues += o.warp_issues;
  sched_idle += o.sched_idle;
  sched_stalls += o.sched_stalls;
  ibuf_stalls += o.ibuf_stalls;
  scrb_stalls += o.scrb_stalls;
  scrb_alu += o.scrb_alu;
  scrb_fpu += o.scrb_fpu;
  scrb_lsu += o.scrb_lsu;
  scrb_sfu += o.scrb_sfu;
  scrb_tcu += o.scrb_tcu;
  ifetches += o.ifetches;
  ifetch_latency += o.ifetch_latency;
  loads += o.loads;
  stores += o.stores;
  load_latency += o.load_latency;
  load_instrs += o.load_instrs;
  lmem_reads += o.lmem_reads;
  lmem_writes += o.lmem_writes;
  lmem_bank_stalls += o.lmem_bank_stalls;
  lmem_bank_wait += o.lmem_bank_wait;
  global_mem_instrs += o.global_mem_instrs;
  global_blocks += o.global_blocks;
  tcu_uops += o.tcu_uops;
  tcu_busy += o.tcu_busy;
  barrier_stall_cycles += o.barrier_stall_cycles;
  opc_stalls += o.opc_stalls;
  lsu_queue_stalls += o.lsu_queue_stalls;
  active_warp_cycles += o.active_warp_cycles;
  global_load_bytes += o.global_load_bytes;
  global_load_sectors += o.global_load_sectors;
  fp_flops += o.fp_flops;
  return *this;
}

TimingSummary& TimingSummary::operator+=(const TimingSummary& o) {
  cycles += o.cycles;
  total += o.total;
  if (cores.size() < o.cores.size()) cores.resize(o.cores.size());
  for (size_t i = 0; i < o.cores.size(); ++i) cores[i] += o.cores[i];
  icache += o.icache;
  dcache += o.dcache;
  l2 += o.l2;
  memory.reads += o.memory.reads;
  memory.writes += o.memory.writes;
  memory.bytes_read += o.memory.bytes_read;
  memory.bytes_written += o.memory.bytes_written;
  memory.read_latency += o.memory.read_latency;
  memory.bank_stalls += o.memory.bank_stalls;
  memory.busy_cycles += o.memory.busy_cycles;
  memory.row_misses += o.memory.row_misses;
  memory.queue_stalls += o.memory.queue_stalls;
  memory_banks = std::max(memory_banks, o.memory_banks);
  memory_row_model = memory_row_model || o.memory_row_model;
  l2_enabled |= o.l2_enabled;
  regions.insert(regions.end(), o.regions.begin(), o.regions.end());
  return *this;
}

Vortex2Model::Vortex2Model(const TimingParams& params, std::unique_ptr<MemoryModel> memory)
    : params_(params), memory_(std::move(memory)) {}

Vortex2Model::~Vortex2Model() = default;

void Vortex2Model::on_run_begin(const Config& config) {
  resolved_ = params_;
  resolved_.resolve(config);
  if (!memory_) memory_ = make_memory_model("fixed", resolved_);
  memory_->reset();
  impl_ = std::make_unique<Impl>(resolved_, config, memory_.get());
  summary_ = TimingSummary{};
}

void Vortex2Model::on_instruction(const ExecutedInstruction& r) { impl_->push(r); }

uint64_t Vortex2Model::wants(uint32_t core, uint32_t warp) {
  const size_t have = impl_->cores[core].warps[warp].fifo.size();
  return have >= kBuffer ? 0 : kBuffer - have;
}

bool Vortex2Model::on_round_end() { return impl_->advance(); }

void Vortex2Model::on_run_end(bool /*completed*/) {
  impl_->draining = true;
  if (!impl_->finished) impl_->advance();
  impl_->finish(summary_);
}

// ---------------------------------------------------------------------------------------

namespace {

double ratio(uint64_t a, uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }
int percent(uint64_t a, uint64_t b) { return b == 0 ? 0 : static_cast<int>(100.0 * static_cast<double>(a) / b + 0.5); }

Json core_json(const TimingCounters& c) {
  return Json{{"cycles", c.cycles},
              {"instrs", c.instrs},
              {"ipc", c.ipc()},
              {"warp_issues", c.warp_issues},
              {"sched_idle", c.sched_idle},
              {"sched_stalls", c.sched_stalls},
              {"ibuffer_stalls", c.ibuf_stalls},
              {"scoreboard_stalls", c.scrb_stalls},
              {"operands_stalls", c.opc_stalls},
              {"lsu_queue_stalls", c.lsu_queue_stalls},
              {"scoreboard_by_unit",
               {{"alu", c.scrb_alu}, {"fpu", c.scrb_fpu}, {"lsu", c.scrb_lsu}, {"sfu", c.scrb_sfu}, {"tcu", c.scrb_tcu}}},
              {"ifetches", c.ifetches},
              {"ifetch_latency_avg", ratio(c.ifetch_latency, c.ifetches)},
              {"loads", c.loads},
              {"stores", c.stores},
              {"load_latency_avg", ratio(c.load_latency, c.load_instrs)},
              {"global_memory_instructions", c.global_mem_instrs},
              {"global_requests", c.global_blocks},
              {"lmem",
               {{"reads", c.lmem_reads}, {"writes", c.lmem_writes}, {"bank_stalls", c.lmem_bank_stalls},
                {"bank_wait", c.lmem_bank_wait}}},
              {"tensor", {{"uops", c.tcu_uops}, {"busy_cycles", c.tcu_busy}}},
              {"barrier_stall_cycles", c.barrier_stall_cycles},
              {"active_warp_cycles", c.active_warp_cycles},
              {"global_load_bytes", c.global_load_bytes},
              {"global_load_sectors", c.global_load_sectors},
              {"fp_flops", c.fp_flops}};
}

Json cache_json(const CacheStats& c) {
  return Json{{"reads", c.reads},
              {"writes", c.writes},
              {"read_misses", c.read_misses},
              {"write_misses", c.write_misses},
              {"read_hit_rate", c.reads == 0 ? Json(nullptr) : Json(1.0 - ratio(c.read_misses, c.reads))},
              {"bank_stalls", c.bank_stalls},
              {"bank_wait", c.bank_wait},
              {"mshr_stalls", c.mshr_stalls},
              {"mshr_wait", c.mshr_wait},
              {"banks", c.banks}};
}

}  // namespace

Json timing_to_json(const TimingSummary& s, const TimingParams& params, const Config& config) {
  Json j;
  j["model"] = "vortex2";
  j["revision"] = kModelRevision;
  j["cycles"] = s.cycles;
  j["instrs"] = s.total.instrs;
  j["ipc"] = ratio(s.total.instrs, s.cycles);
  Json total = core_json(s.total);
  total["cycles"] = s.cycles;
  total["ipc"] = ratio(s.total.instrs, s.cycles);
  j["total"] = total;
  Json cores = Json::array();
  for (const auto& c : s.cores) cores.push_back(core_json(c));
  j["cores"] = cores;
  j["icache"] = cache_json(s.icache);
  j["dcache"] = cache_json(s.dcache);
  j["l2"] = s.l2_enabled ? cache_json(s.l2) : Json(nullptr);
  const uint64_t bytes = s.memory.bytes_read + s.memory.bytes_written;
  j["memory"] = {{"reads", s.memory.reads},
                 {"writes", s.memory.writes},
                 {"bytes_read", s.memory.bytes_read},
                 {"bytes_written", s.memory.bytes_written},
                 {"bytes_per_cycle", ratio(bytes, s.cycles)},
                 {"latency_avg", ratio(s.memory.read_latency, s.memory.reads)},
                 {"bank_stalls", s.memory.bank_stalls},
                 {"bank_wait", s.memory.bank_wait},
                 {"row_misses", s.memory.row_misses},
                 {"queue_stalls", s.memory.queue_stalls},
                 {"queue_wait", s.memory.queue_wait},
                 {"bank_utilization", s.cycles == 0 || s.memory_banks == 0
                                          ? 0.0
                                          : ratio(s.memory.busy_cycles, s.cycles * s.memory_banks)}};
  Json p = Json::object();
  for (const auto& e : TimingParams::entries()) p[e.name] = params.*(e.field);
  j["params"] = p;
  j["machine"] = {{"cores", config.cores}, {"warps", config.warps}, {"threads", config.threads}};
  return j;
}

void print_timing_perf(std::ostream& out, const TimingSummary& s, uint32_t threads) {
  (void)threads;
  char line[256];
  auto emit = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out << line;
  };
  const auto& t = s.total;
  const uint64_t cyc = std::max<uint64_t>(1, s.cycles) * std::max<size_t>(1, s.cores.size());
  // Definitions and bounds: docs/vxsim-timing.md, "Counters and output". Cycle counts are per
  // unit (percent of cycles x units); "wait" sums are over requests.
  emit("PERF: scheduler idle=%" PRIu64 " (%d%%)\n", t.sched_idle, percent(t.sched_idle, cyc));
  emit("PERF: scheduler stalls=%" PRIu64 " (%d%%, the idle cycles with active warps)\n", t.sched_stalls,
       percent(t.sched_stalls, cyc));
  emit("PERF: ibuffer stalls=%" PRIu64 " (%d%%)\n", t.ibuf_stalls, percent(t.ibuf_stalls, cyc));
  const uint64_t scrb = t.scrb_alu + t.scrb_fpu + t.scrb_lsu + t.scrb_sfu + t.scrb_tcu;
  emit("PERF: scoreboard stalls=%" PRIu64 " (%d%%) (alu=%d%%, fpu=%d%%, lsu=%d%%, sfu=%d%%, tcu=%d%%)\n",
       t.scrb_stalls, percent(t.scrb_stalls, cyc), percent(t.scrb_alu, scrb), percent(t.scrb_fpu, scrb),
       percent(t.scrb_lsu, scrb), percent(t.scrb_sfu, scrb), percent(t.scrb_tcu, scrb));
  emit("PERF: operands stalls=%" PRIu64 " (%d%%)\n", t.opc_stalls, percent(t.opc_stalls, cyc));
  emit("PERF: ifetches=%" PRIu64 "\n", t.ifetches);
  emit("PERF: loads=%" PRIu64 " (lane accesses)\n", t.loads);
  emit("PERF: stores=%" PRIu64 " (lane accesses)\n", t.stores);
  emit("PERF: ifetch latency=%d cycles\n", static_cast<int>(ratio(t.ifetch_latency, t.ifetches)));
  emit("PERF: load latency=%d cycles\n", static_cast<int>(ratio(t.load_latency, t.load_instrs)));
  emit("PERF: lmem reads=%" PRIu64 ", writes=%" PRIu64 ", bank stalls=%" PRIu64 " (%d%%)\n", t.lmem_reads, t.lmem_writes,
       t.lmem_bank_stalls, percent(t.lmem_bank_stalls, cyc));
  emit("PERF: icache reads=%" PRIu64 ", read misses=%" PRIu64 " (hit ratio=%d%%)\n", s.icache.reads,
       s.icache.read_misses, 100 - percent(s.icache.read_misses, s.icache.reads));
  const uint64_t run = std::max<uint64_t>(1, s.cycles);
  emit("PERF: dcache reads=%" PRIu64 ", writes=%" PRIu64 ", read misses=%" PRIu64 " (hit ratio=%d%%), write misses=%" PRIu64
       ", bank stalls=%" PRIu64 " (%d%% of bank-cycles, %.1f cycles waited per request), mshr stalls=%" PRIu64 " (%d%%)\n",
       s.dcache.reads, s.dcache.writes, s.dcache.read_misses, 100 - percent(s.dcache.read_misses, s.dcache.reads),
       s.dcache.write_misses, s.dcache.bank_stalls, percent(s.dcache.bank_stalls, run * std::max<uint32_t>(1, s.dcache.banks)),
       ratio(s.dcache.bank_wait, s.dcache.reads + s.dcache.writes), s.dcache.mshr_stalls,
       percent(s.dcache.mshr_stalls, run * std::max<uint32_t>(1, s.dcache.caches)));
  if (s.l2_enabled) {
    emit("PERF: l2cache reads=%" PRIu64 ", writes=%" PRIu64 ", read misses=%" PRIu64 " (hit ratio=%d%%)\n", s.l2.reads,
         s.l2.writes, s.l2.read_misses, 100 - percent(s.l2.read_misses, s.l2.reads));
  }
  emit("PERF: memory requests=%" PRIu64 " (reads=%" PRIu64 ", writes=%" PRIu64 "), bytes=%" PRIu64 "\n",
       s.memory.reads + s.memory.writes, s.memory.reads, s.memory.writes, s.memory.bytes_read + s.memory.bytes_written);
  const uint64_t channel_cycles = run * std::max<uint32_t>(1, s.memory_banks);
  char rows[64];
  if (s.memory_row_model) {
    std::snprintf(rows, sizeof rows, "%" PRIu64, s.memory.row_misses);
  } else {
    std::snprintf(rows, sizeof rows, "n/a (row model off)");
  }
  emit("PERF: memory latency=%d cycles, bank stalls=%" PRIu64 " (%d%% of channel-cycles, %.1f cycles waited per request)"
       ", row misses=%s, queue stalls=%" PRIu64 " (%d%%)\n",
       static_cast<int>(ratio(s.memory.read_latency, s.memory.reads)), s.memory.bank_stalls,
       percent(s.memory.bank_stalls, channel_cycles), ratio(s.memory.bank_wait, s.memory.reads + s.memory.writes), rows,
       s.memory.queue_stalls, percent(s.memory.queue_stalls, channel_cycles));
  if (t.tcu_uops != 0) emit("PERF: tcu uops=%" PRIu64 " (%d%% of issues)\n", t.tcu_uops, percent(t.tcu_uops, t.warp_issues));
  if (s.cores.size() > 1) {
    for (size_t c = 0; c < s.cores.size(); ++c) {
      emit("PERF: core%zu: instrs=%" PRIu64 ", cycles=%" PRIu64 ", IPC=%f\n", c, s.cores[c].instrs, s.cycles,
           ratio(s.cores[c].instrs, s.cycles));
    }
  }
  emit("PERF: instrs=%" PRIu64 ", cycles=%" PRIu64 ", IPC=%f\n", t.instrs, s.cycles, ratio(t.instrs, s.cycles));
}

}  // namespace vxsynth::vxsim::timing
