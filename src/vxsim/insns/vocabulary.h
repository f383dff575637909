// The words instruction bodies are written in (included by execute.cpp before insns/*.h).
//
// Lane-wise bodies (LANE, BRANCH) see one lane `t` of warp `w`; the wrapper loops them over
// the active mask and advances the PC. Warp-wise bodies (WARP) see the whole warp and return
// the next PC. Bodies raise faults with TRAP(kind, message); they never return error codes.
#pragma once

#define LANE_ARGS [[maybe_unused]] Core& c, [[maybe_unused]] Warp& w, [[maybe_unused]] const Decoded& d, [[maybe_unused]] uint32_t t
#define LANE(name) inline void lane_##name(LANE_ARGS)
#define BRANCH(name) inline bool branch_##name(LANE_ARGS)
#define WARP(name) inline uint32_t warp_##name([[maybe_unused]] Core& c, [[maybe_unused]] Warp& w, [[maybe_unused]] const Decoded& d)

// Integer operands of lane t.
#define RS1 (w.x[d.rs1][t])
#define RS2 (w.x[d.rs2][t])
#define SRS1 static_cast<int32_t>(RS1)
#define SRS2 static_cast<int32_t>(RS2)
#define IMM (d.imm)
#define UIMM static_cast<uint32_t>(d.imm)
#define PC (w.pc)
#define NEXT_PC (w.pc + 4)
#define WRITE_RD(v) (w.x[d.wd][t] = static_cast<uint32_t>(v))

// FP operands of lane t: raw bits and single-precision values.
#define FRS1_BITS (w.f[d.rs1][t])
#define FRS2_BITS (w.f[d.rs2][t])
#define FRS3_BITS (w.f[d.rs3][t])
#define FRS1 std::bit_cast<float>(FRS1_BITS)
#define FRS2 std::bit_cast<float>(FRS2_BITS)
#define FRS3 std::bit_cast<float>(FRS3_BITS)
#define WRITE_FRD_BITS(v) (w.f[d.rd][t] = static_cast<uint32_t>(v))
// An arithmetic result: `f` computed in float under the host rounding mode, or, for RMM
// (which hosts lack), `dbl` computed in double and rounded by hand. NaNs become canonical.
#define FP_ARITH(f, dbl) (c.cur_rm == kRmm ? round_rmm(w, (dbl)) : canonical_bits(f))
#define FFLAGS (w.fflags)
#define FRM (c.cur_rm)

// Memory (typed, through the core's one interface over global, local and IO).
#define LOAD(T, addr) c.load<T>((addr), t)
#define STORE(T, addr, v) c.store<T>((addr), t, static_cast<T>(v))

// Warp-wise helpers.
#define LANE_LAST(reg) c.lane_last(w, (reg))
#define FOR_EACH_ACTIVE_LANE(lane) \
  for (uint32_t m_ = w.tmask, lane = 0; m_ != 0 && ((lane = static_cast<uint32_t>(std::countr_zero(m_))), true); m_ &= m_ - 1)
#define TRAP(kind, msg) Core::trap(FaultKind::kind, (msg))
