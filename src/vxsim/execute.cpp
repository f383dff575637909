// The executor: helpers of the body vocabulary, the wrappers that run a body over a warp
// (one per shape in encoding.h), the dispatch table and the per-warp hot loop.
#include <bit>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "vxsim/core.h"
#include "vxsim/simulator.h"
#include "vxsim/tensor.h"
#include "vxsim/trace.h"

namespace vxsynth::vxsim {

namespace {

// ---- FP helpers (RISC-V F semantics on top of the host's IEEE arithmetic) ----
constexpr uint32_t kRmm = 4;
constexpr uint32_t kFlagNV = 16, kFlagDZ = 8, kFlagOF = 4, kFlagUF = 2, kFlagNX = 1;
constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

inline bool is_nan_bits(uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0; }
inline bool is_snan_bits(uint32_t b) { return is_nan_bits(b) && (b & 0x00400000u) == 0; }
inline uint32_t canonical_bits(float v) { return std::isnan(v) ? kCanonicalNaN : std::bit_cast<uint32_t>(v); }

// Round a double (the exact or once-rounded result) to float, ties away from zero.
uint32_t round_rmm(Warp& w, double v) {
  if (std::isnan(v)) return kCanonicalNaN;
  const float f = static_cast<float>(v);  // host mode is round-to-nearest-even here
  if (std::isinf(v) || static_cast<double>(f) == v) return std::bit_cast<uint32_t>(f);
  w.fflags |= kFlagNX;
  if (std::isinf(f)) {
    w.fflags |= kFlagOF;
    return std::bit_cast<uint32_t>(f);
  }
  const float other = std::nextafter(f, static_cast<double>(f) < v ? INFINITY : -INFINITY);
  float r = f;
  if (v == (static_cast<double>(f) + static_cast<double>(other)) / 2) r = std::fabs(f) > std::fabs(other) ? f : other;
  if (std::isinf(r)) w.fflags |= kFlagOF;
  if (std::fabs(v) < FLT_MIN) w.fflags |= kFlagUF;
  return std::bit_cast<uint32_t>(r);
}

inline bool fma_inf_times_zero(float a, float b) {
  return (std::isinf(a) && b == 0.0f) || (a == 0.0f && std::isinf(b));
}

uint32_t fp_min_max(Warp& w, uint32_t a, uint32_t b, bool want_max) {
  if (is_snan_bits(a) || is_snan_bits(b)) w.fflags |= kFlagNV;
  const bool an = is_nan_bits(a), bn = is_nan_bits(b);
  if (an && bn) return kCanonicalNaN;
  if (an) return b;
  if (bn) return a;
  const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
  if (fa == fb) return want_max ? (a & b) : (a | b);  // +0 vs -0: sign bit decides
  return want_max ? (fa > fb ? a : b) : (fa < fb ? a : b);
}

enum class FpCompare { kEq, kLt, kLe };
uint32_t fp_compare(Warp& w, uint32_t a, uint32_t b, FpCompare kind) {
  if (is_nan_bits(a) || is_nan_bits(b)) {
    if (kind != FpCompare::kEq || is_snan_bits(a) || is_snan_bits(b)) w.fflags |= kFlagNV;
    return 0;
  }
  const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
  switch (kind) {
    case FpCompare::kEq: return fa == fb;
    case FpCompare::kLt: return fa < fb;
    case FpCompare::kLe: return fa <= fb;
  }
  return 0;
}

uint32_t fp_class(uint32_t b) {
  const bool neg = b >> 31;
  const uint32_t exp = (b >> 23) & 0xff, man = b & 0x7fffff;
  if (exp == 0xff) {
    if (man == 0) return neg ? 1u << 0 : 1u << 7;
    return (man & 0x400000) ? 1u << 9 : 1u << 8;
  }
  if (exp == 0) {
    if (man == 0) return neg ? 1u << 3 : 1u << 4;
    return neg ? 1u << 2 : 1u << 5;
  }
  return neg ? 1u << 1 : 1u << 6;
}

// fcvt.w[u].s: rounding under the instruction's mode, saturation and flags by hand.
uint32_t fp_to_int(Core& c, Warp& w, float f, bool is_signed) {
  if (std::isnan(f)) {
    w.fflags |= kFlagNV;
    return is_signed ? static_cast<uint32_t>(INT32_MAX) : UINT32_MAX;
  }
  const double v = f;
  const double r = c.cur_rm == kRmm ? std::round(v) : std::nearbyint(v);  // host mode set by the wrapper
  if (is_signed) {
    if (r < -2147483648.0) return w.fflags |= kFlagNV, static_cast<uint32_t>(INT32_MIN);
    if (r > 2147483647.0) return w.fflags |= kFlagNV, static_cast<uint32_t>(INT32_MAX);
  } else {
    if (r < 0.0) return w.fflags |= kFlagNV, 0u;
    if (r > 4294967295.0) return w.fflags |= kFlagNV, UINT32_MAX;
  }
  if (r != v) w.fflags |= kFlagNX;
  return is_signed ? static_cast<uint32_t>(static_cast<int32_t>(r)) : static_cast<uint32_t>(r);
}

[[maybe_unused]] uint32_t host_to_fflags(int host) {
  uint32_t f = 0;
  if (host & FE_INVALID) f |= kFlagNV;
  if (host & FE_DIVBYZERO) f |= kFlagDZ;
  if (host & FE_OVERFLOW) f |= kFlagOF;
  if (host & FE_UNDERFLOW) f |= kFlagUF;
  if (host & FE_INEXACT) f |= kFlagNX;
  return f;
}

[[maybe_unused]] constexpr int kHostRounding[5] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD, FE_TONEAREST /* RMM by hand */};

// The host FP environment the F bodies run in. On x86 the arithmetic is SSE, so the sticky
// flags live in MXCSR and are read and cleared directly (<cfenv>'s feclearexcept also saves
// and reloads the whole x87 environment, which cost half the simulator's time on FP-heavy
// kernels). Elsewhere <cfenv> is used throughout.
struct HostFpEnv {
#if defined(__SSE__)
  // MXCSR exception bits for each RISC-V flag: NX->PE 0x20, UF->UE 0x10, OF->OE 0x08,
  // DZ->ZE 0x04, NV->IE 0x01 (DE, denormal operand, has no RISC-V counterpart).
  static constexpr uint32_t mxcsr_bits(uint32_t fflags) {
    return ((fflags & kFlagNX) ? 0x20u : 0u) | ((fflags & kFlagUF) ? 0x10u : 0u) | ((fflags & kFlagOF) ? 0x08u : 0u) |
           ((fflags & kFlagDZ) ? 0x04u : 0u) | ((fflags & kFlagNV) ? 0x01u : 0u);
  }
  // Host flags are sticky and shared by all warps. A stale host flag only matters if the
  // warp does not have that flag yet, so only those are cleared: writing MXCSR serialises
  // the pipeline, and an FP loop that keeps raising NX then never writes it.
  static void begin(uint32_t rm, bool clear_flags, const Warp& w) {
    if (kHostRounding[rm] != FE_TONEAREST) std::fesetround(kHostRounding[rm]);
    if (clear_flags) {
      const uint32_t csr = _mm_getcsr();
      const uint32_t stale = csr & mxcsr_bits(kFlagNV | kFlagDZ | kFlagOF | kFlagUF | kFlagNX) & ~mxcsr_bits(w.fflags);
      if (stale != 0) _mm_setcsr(csr & ~stale);
    }
  }
  static uint32_t end(uint32_t rm, bool read_flags) {
    const uint32_t csr = _mm_getcsr();
    if (kHostRounding[rm] != FE_TONEAREST) std::fesetround(FE_TONEAREST);
    if (!read_flags) return 0;
    uint32_t f = 0;
    if (csr & 0x01) f |= kFlagNV;
    if (csr & 0x04) f |= kFlagDZ;
    if (csr & 0x08) f |= kFlagOF;
    if (csr & 0x10) f |= kFlagUF;
    if (csr & 0x20) f |= kFlagNX;
    return f;
  }
#else
  static void begin(uint32_t rm, bool clear_flags, const Warp&) {
    if (kHostRounding[rm] != FE_TONEAREST) std::fesetround(kHostRounding[rm]);
    if (clear_flags) std::feclearexcept(FE_ALL_EXCEPT);
  }
  static uint32_t end(uint32_t rm, bool read_flags) {
    const uint32_t f = read_flags ? host_to_fflags(std::fetestexcept(FE_ALL_EXCEPT)) : 0;
    if (kHostRounding[rm] != FE_TONEAREST) std::fesetround(FE_TONEAREST);
    return f;
  }
#endif
};

}  // namespace

// ---- warp-wise helpers used by several Vortex bodies ----
#include "vxsim/insns/vocabulary.h"

namespace {

uint32_t split_warp(Core& c, Warp& w, const Decoded& d, bool negate) {
  uint32_t then_mask = 0;
  FOR_EACH_ACTIVE_LANE(t) then_mask |= ((RS1 & 1u) ^ (negate ? 1u : 0u)) << t;
  const uint32_t else_mask = w.tmask & ~then_mask;
  const uint32_t depth = w.ipdom_size;
  FOR_EACH_ACTIVE_LANE(t) WRITE_RD(depth);
  ++c.ctr.splits;
  if (then_mask != 0 && else_mask != 0) {
    if (w.ipdom_size >= c.nt - 1 || w.ipdom_size >= kMaxThreads) {
      TRAP(kIpdomOverflow, "IPDOM stack is full (capacity threads - 1 = " + std::to_string(c.nt - 1) + ")");
    }
    const bool then_first = std::popcount(then_mask) >= std::popcount(else_mask);
    w.ipdom[w.ipdom_size++] = {w.tmask, then_first ? else_mask : then_mask, NEXT_PC, false};
    w.tmask = then_first ? then_mask : else_mask;
    ++c.ctr.divergent_splits;
    c.yield = true;
  }
  return NEXT_PC;
}

enum class ShuffleKind { kUp, kDown, kBfly, kIdx };
uint32_t shuffle_warp(Core& c, Warp& w, const Decoded& d, ShuffleKind kind) {
  const uint32_t bc = LANE_LAST(d.rs2);
  const int32_t b = bc & 0x3f, cl = (bc >> 6) & 0x3f, mask = (bc >> 12) & 0x3f;
  uint32_t values[kMaxThreads];
  for (uint32_t t = 0; t < c.nt; ++t) values[t] = RS1;
  FOR_EACH_ACTIVE_LANE(t) {
    const int32_t lane = static_cast<int32_t>(t);
    const int32_t max_lane = (lane & mask) | (cl & ~mask);
    const int32_t min_lane = lane & mask;
    int32_t src = lane;
    bool valid = false;
    switch (kind) {
      case ShuffleKind::kUp: src = lane - b; valid = src >= min_lane; break;
      case ShuffleKind::kDown: src = lane + b; valid = src <= max_lane; break;
      case ShuffleKind::kBfly: src = lane ^ b; valid = src <= max_lane; break;
      case ShuffleKind::kIdx: src = min_lane | (b & ~mask); valid = src <= max_lane; break;
    }
    const bool in_range = src >= 0 && src < static_cast<int32_t>(c.nt);
    WRITE_RD(valid && in_range ? values[src] : values[t]);
  }
  return NEXT_PC;
}

#include "vxsim/insns/all.h"

// ---- wrappers: one per shape ----
using LaneFn = void (*)(Core&, Warp&, const Decoded&, uint32_t);
using BranchFn = bool (*)(Core&, Warp&, const Decoded&, uint32_t);
using WarpFn = uint32_t (*)(Core&, Warp&, const Decoded&);

template <LaneFn F>
inline void for_active_lanes(Core& c, Warp& w, const Decoded& d) {
  const uint32_t m = w.tmask;
  if (m == c.full_mask) {
    for (uint32_t t = 0, n = c.nt; t < n; ++t) F(c, w, d, t);
  } else {
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) F(c, w, d, static_cast<uint32_t>(std::countr_zero(mm)));
  }
}

template <LaneFn F>
void exec_lane(Core& c, Warp& w, Decoded& d) {
  for_active_lanes<F>(c, w, d);
  w.pc += 4;
}

template <LaneFn F>
void exec_mem(Core& c, Warp& w, Decoded& d) {
  c.begin_mem();
  for_active_lanes<F>(c, w, d);
  c.end_mem();
  w.pc += 4;
}

// FP: set the rounding mode (static, or frm when rm = DYN), and with kHostFlags collect the
// host's IEEE flags into fflags; otherwise the body sets flags itself.
template <LaneFn F, bool kHostFlags>
void exec_fp(Core& c, Warp& w, Decoded& d) {
  const uint32_t rm = d.rm == 7 ? w.frm : d.rm;
  if (rm > kRmm) {
    Core::trap(FaultKind::kIllegalInstruction,
               "invalid rounding mode " + std::to_string(rm) + (d.rm == 7 ? " in frm" : " in the instruction"));
  }
  c.cur_rm = rm;
  HostFpEnv::begin(rm, kHostFlags, w);
  for_active_lanes<F>(c, w, d);
  w.fflags |= HostFpEnv::end(rm, kHostFlags);
  w.pc += 4;
}

// Branches: every active lane evaluates the condition; lanes must agree (as SimX 2.x, since
// stock GCC emits no SPLIT/JOIN around data-dependent branches).
template <BranchFn F>
void exec_branch(Core& c, Warp& w, Decoded& d) {
  uint32_t taken = 0;
  const uint32_t m = w.tmask;
  for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
    const uint32_t t = static_cast<uint32_t>(std::countr_zero(mm));
    if (F(c, w, d, t)) taken |= 1u << t;
  }
  if (taken == 0) {
    w.pc += 4;
  } else if (taken == m) {
    const uint32_t target = w.pc + static_cast<uint32_t>(d.imm);
    if (target & 3) Core::trap(FaultKind::kMisalignedFetch, "branch target is not 4-byte aligned");
    w.pc = target;
  } else {
    throw Trap{FaultKind::kDivergentBranch, "divergent branch: the active lanes disagree (wrap it in SPLIT/JOIN)",
               std::nullopt, std::nullopt, taken, m & ~taken};
  }
}

template <WarpFn F>
void exec_warp(Core& c, Warp& w, Decoded& d) {
  w.pc = F(c, w, d);
}

void exec_unsupported(Core&, Warp&, Decoded& d) {
  const InsnInfo& info = insn_table()[static_cast<size_t>(d.id)];
  Core::trap(FaultKind::kUnsupportedInstruction,
             std::string(info.mnemonic) + " (extension " + extension_name(info.extension) + ") is not executed by vxsim" +
                 " (Vortex 2.x is the target)");
}

void exec_illegal(Core&, Warp&, Decoded& d) {
  Core::trap(FaultKind::kIllegalInstruction, d.word == 0xbaadf00du ? "illegal instruction: fetch from never-written memory"
                                                                   : "illegal instruction");
}

#define VXSIM_WRAP_Lane(id) &exec_lane<lane_##id>
#define VXSIM_WRAP_Mem(id) &exec_mem<lane_##id>
#define VXSIM_WRAP_Fp(id) &exec_fp<lane_##id, true>
#define VXSIM_WRAP_FpRm(id) &exec_fp<lane_##id, false>
#define VXSIM_WRAP_Branch(id) &exec_branch<branch_##id>
#define VXSIM_WRAP_Warp(id) &exec_warp<warp_##id>
#define VXSIM_WRAP_Unsupported(id) &exec_unsupported

constexpr ExecFn kDispatch[] = {
#define VXSIM_DISPATCH(id, mn, match, mask, ext, cls, shape, fmt) VXSIM_WRAP_##shape(id),
    VXSIM_ALL_INSNS(VXSIM_DISPATCH)
#undef VXSIM_DISPATCH
};
static_assert(std::size(kDispatch) == kNumInsns);

// Formats whose rd is an integer register (x0 writes go to the sink x[32]).
bool writes_xreg(Format f) {
  switch (f) {
    case Format::R: case Format::I: case Format::Shift: case Format::U: case Format::Jal: case Format::Jalr:
    case Format::Load: case Format::Csr: case Format::CsrI: case Format::Lr: case Format::Amo: case Format::FtoX:
    case Format::FtoXnoRm: case Format::Fcmp: case Format::VxRdRs1:
      return true;
    default:
      return false;
  }
}

}  // namespace

Decoded make_decoded(uint32_t word) {
  Decoded d;
  d.word = word;
  auto id = decode_id(word);
  if (!id) {
    d.exec = &exec_illegal;
    return d;
  }
  const InsnInfo& info = insn_table()[static_cast<size_t>(*id)];
  const Fields f = decode_fields(word, info.format);
  d.exec = kDispatch[static_cast<size_t>(*id)];
  d.id = *id;
  d.imm = f.imm;
  d.rd = f.rd;
  d.wd = writes_xreg(info.format) && f.rd == 0 ? 32 : f.rd;
  d.rs1 = f.rs1;
  d.rs2 = f.rs2;
  d.rs3 = f.rs3;
  d.rm = f.rm;
  d.op_class = info.op_class;
  return d;
}

void exec_decode(Core& c, Warp& w, Decoded& d) {
  uint32_t word = 0;
  c.mem.read(w.pc, &word, 4);
  d = make_decoded(word);
  d.exec(c, w, d);
}

uint64_t Core::run_warp(Warp& w, uint64_t budget) {
  yield = false;
  uint64_t n = 0;
  while (n < budget) {
    Decoded& d = dcache.at(w.pc);
    const uint32_t active = lane_count(w.tmask);
    d.exec(*this, w, d);
    ++n;
    ++ctr.warp_instructions;
    ctr.thread_instructions += active;
    const size_t cls = static_cast<size_t>(d.op_class);
    ++ctr.warp_by_class[cls];
    ctr.thread_by_class[cls] += active;
    if (yield) break;
  }
  return n;
}

uint64_t Core::run_warp_traced(Warp& w, uint64_t budget) {
  yield = false;
  uint64_t n = 0;
  ExecutedInstruction rec;
  while (n < budget) {
    Decoded& d = dcache.at(w.pc);
    const uint32_t mask = w.tmask;
    const uint32_t pc = w.pc;
    const uint32_t active = lane_count(mask);
    const uint64_t uops_before = ctr.tensor_uops;
    d.exec(*this, w, d);
    ++n;
    ++ctr.warp_instructions;
    ctr.thread_instructions += active;
    const size_t cls = static_cast<size_t>(d.op_class);
    ++ctr.warp_by_class[cls];
    ctr.thread_by_class[cls] += active;
    rec.next_mask = w.tmask;
    // After exec: a slot's fields are decoded by its first execution. Warp-control operands
    // (the only users) are not written by their own instruction.
    const uint32_t last = 31 - static_cast<uint32_t>(std::countl_zero(mask));
    rec.arg0 = w.x[d.rs1][last];
    rec.arg1 = w.x[d.rs2][last];
    rec.uops = d.op_class == OpClass::kTensor ? static_cast<uint32_t>(ctr.tensor_uops - uops_before) : 1;
    rec.core = id;
    rec.warp = w.id;
    rec.pc = pc;
    rec.word = d.word;
    rec.insn_id = static_cast<uint16_t>(d.id);
    rec.op_class = d.op_class;
    rec.thread_mask = mask;
    rec.rd = d.rd;
    rec.rs1 = d.rs1;
    rec.rs2 = d.rs2;
    rec.rs3 = d.rs3;
    rec.is_memory = d.op_class == OpClass::kLoad || d.op_class == OpClass::kStore || d.op_class == OpClass::kAtomic;
    if (rec.is_memory) {
      for (uint32_t t = 0; t < nt; ++t) rec.addresses[t] = (mask >> t & 1) ? lane_addr[t] : 0;
    }
    sim.consumer_->on_instruction(rec);
    if (yield) break;
  }
  return n;
}

}  // namespace vxsynth::vxsim
