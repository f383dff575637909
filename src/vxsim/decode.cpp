#include "vxsim/decode.h"

#include <array>
#include <cstdio>
#include <vector>

namespace vxsynth::vxsim {

namespace {

constexpr InsnInfo kTable[] = {
#define VXSIM_ROW(id, mn, match, mask, ext, cls, shape, fmt) \
  {mn, match, mask, Extension::ext, OpClass::k##cls, Shape::shape, Format::fmt},
    VXSIM_ALL_INSNS(VXSIM_ROW)
#undef VXSIM_ROW
};
static_assert(std::size(kTable) == kNumInsns);

// Rows bucketed by the 7-bit major opcode, in table order (the first match wins; the
// overlap test keeps the table free of ambiguity).
struct Buckets {
  std::array<std::vector<uint16_t>, 128> rows;
  Buckets() {
    for (uint16_t i = 0; i < kNumInsns; ++i) rows[kTable[i].match & 0x7f].push_back(i);
  }
};
const Buckets& buckets() {
  static const Buckets b;
  return b;
}

int32_t sext(uint32_t v, unsigned bits) { return static_cast<int32_t>(v << (32 - bits)) >> (32 - bits); }

const char* const kXNames[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
                                 "a1",   "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
                                 "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
const char* const kFNames[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                                 "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                                 "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                                 "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
const char* const kRm[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5?", "rm6?", "dyn"};

std::string fmt(const char* f, auto... args) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

const char* opcode_name(uint32_t op) {
  switch (op) {
    case 0x0b: return "custom-0";
    case 0x2b: return "custom-1";
    case 0x5b: return "custom-2";
    case 0x7b: return "custom-3";
    case 0x03: return "load";
    case 0x07: return "load-fp";
    case 0x23: return "store";
    case 0x27: return "store-fp";
    case 0x13: return "op-imm";
    case 0x33: return "op";
    case 0x53: return "op-fp";
    case 0x63: return "branch";
    case 0x73: return "system";
    case 0x2f: return "amo";
    case 0x1b: return "op-imm-32 (RV64)";
    case 0x3b: return "op-32 (RV64)";
    default: return (op & 3) != 3 ? "compressed (C is not supported)" : "unknown";
  }
}

}  // namespace

std::span<const InsnInfo> insn_table() { return kTable; }

const char* extension_name(Extension e) {
  switch (e) {
    case Extension::I: return "rv32i";
    case Extension::Priv: return "priv";
    case Extension::Zifencei: return "zifencei";
    case Extension::Zicsr: return "zicsr";
    case Extension::M: return "m";
    case Extension::A: return "a";
    case Extension::F: return "f";
    case Extension::Zicond: return "zicond";
    case Extension::Vortex: return "vortex";
    case Extension::VortexTcu: return "vortex-tcu";
    case Extension::VortexV3: return "vortex-v3";
  }
  return "?";
}

const char* xreg_name(unsigned r) { return kXNames[r & 31]; }
const char* freg_name(unsigned r) { return kFNames[r & 31]; }

std::optional<InsnId> decode_id(uint32_t word) {
  for (uint16_t i : buckets().rows[word & 0x7f]) {
    if ((word & kTable[i].mask) == kTable[i].match) return static_cast<InsnId>(i);
  }
  return std::nullopt;
}

Fields decode_fields(uint32_t w, Format format) {
  Fields f;
  f.rd = (w >> 7) & 31;
  f.rs1 = (w >> 15) & 31;
  f.rs2 = (w >> 20) & 31;
  f.rs3 = (w >> 27) & 31;
  f.rm = (w >> 12) & 7;
  switch (format) {
    case Format::I: case Format::Load: case Format::FLoad: case Format::Jalr:
      f.imm = sext(w >> 20, 12);
      break;
    case Format::Shift:
      f.imm = static_cast<int32_t>((w >> 20) & 31);
      break;
    case Format::Store: case Format::FStore:
      f.imm = sext(((w >> 25) << 5) | ((w >> 7) & 31), 12);
      break;
    case Format::B:
      f.imm = sext((((w >> 31) & 1) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3f) << 5) | (((w >> 8) & 0xf) << 1), 13);
      break;
    case Format::U:
      f.imm = static_cast<int32_t>(w & 0xfffff000u);
      break;
    case Format::Jal:
      f.imm = sext((((w >> 31) & 1) << 20) | (((w >> 12) & 0xff) << 12) | (((w >> 20) & 1) << 11) | (((w >> 21) & 0x3ff) << 1), 21);
      break;
    case Format::Csr: case Format::CsrI:
      f.imm = static_cast<int32_t>(w >> 20);
      break;
    default:
      break;
  }
  return f;
}

std::string disassemble(uint32_t w, uint32_t pc) {
  auto id = decode_id(w);
  if (!id) {
    uint32_t op = w & 0x7f;
    return fmt("illegal: opcode 0x%02x (%s) funct3=%u funct7=0x%02x rd=%s rs1=%s rs2=%s", op, opcode_name(op),
               (w >> 12) & 7, w >> 25, kXNames[(w >> 7) & 31], kXNames[(w >> 15) & 31], kXNames[(w >> 20) & 31]);
  }
  const InsnInfo& in = kTable[static_cast<size_t>(*id)];
  Fields f = decode_fields(w, in.format);
  std::string mn = in.mnemonic;
  if (in.format == Format::Amo || in.format == Format::Lr) {
    const bool aq = (w >> 26) & 1, rl = (w >> 25) & 1;
    mn += aq && rl ? ".aqrl" : aq ? ".aq" : rl ? ".rl" : "";
  }
  const char* m = mn.c_str();
  const char* const* X = kXNames;
  const char* const* F = kFNames;
  switch (in.format) {
    case Format::None: return m;
    case Format::R: return fmt("%s %s, %s, %s", m, X[f.rd], X[f.rs1], X[f.rs2]);
    case Format::I: return fmt("%s %s, %s, %d", m, X[f.rd], X[f.rs1], f.imm);
    case Format::Shift: return fmt("%s %s, %s, %d", m, X[f.rd], X[f.rs1], f.imm);
    case Format::U: return fmt("%s %s, 0x%x", m, X[f.rd], static_cast<uint32_t>(f.imm) >> 12);
    case Format::Jal: return fmt("%s %s, 0x%x", m, X[f.rd], pc + f.imm);
    case Format::Jalr: return fmt("%s %s, %d(%s)", m, X[f.rd], f.imm, X[f.rs1]);
    case Format::B: return fmt("%s %s, %s, 0x%x", m, X[f.rs1], X[f.rs2], pc + f.imm);
    case Format::Load: return fmt("%s %s, %d(%s)", m, X[f.rd], f.imm, X[f.rs1]);
    case Format::Store: return fmt("%s %s, %d(%s)", m, X[f.rs2], f.imm, X[f.rs1]);
    case Format::FLoad: return fmt("%s %s, %d(%s)", m, F[f.rd], f.imm, X[f.rs1]);
    case Format::FStore: return fmt("%s %s, %d(%s)", m, F[f.rs2], f.imm, X[f.rs1]);
    case Format::Csr: return fmt("%s %s, 0x%03x, %s", m, X[f.rd], f.imm, X[f.rs1]);
    case Format::CsrI: return fmt("%s %s, 0x%03x, %u", m, X[f.rd], f.imm, f.rs1);
    case Format::Lr: return fmt("%s %s, (%s)", m, X[f.rd], X[f.rs1]);
    case Format::Amo: return fmt("%s %s, %s, (%s)", m, X[f.rd], X[f.rs2], X[f.rs1]);
    case Format::R4: return fmt("%s %s, %s, %s, %s, %s", m, F[f.rd], F[f.rs1], F[f.rs2], F[f.rs3], kRm[f.rm]);
    case Format::FR: return fmt("%s %s, %s, %s, %s", m, F[f.rd], F[f.rs1], F[f.rs2], kRm[f.rm]);
    case Format::FRnoRm: return fmt("%s %s, %s, %s", m, F[f.rd], F[f.rs1], F[f.rs2]);
    case Format::F1: return fmt("%s %s, %s, %s", m, F[f.rd], F[f.rs1], kRm[f.rm]);
    case Format::FtoX: return fmt("%s %s, %s, %s", m, X[f.rd], F[f.rs1], kRm[f.rm]);
    case Format::FtoXnoRm: return fmt("%s %s, %s", m, X[f.rd], F[f.rs1]);
    case Format::XtoF: return fmt("%s %s, %s, %s", m, F[f.rd], X[f.rs1], kRm[f.rm]);
    case Format::XtoFnoRm: return fmt("%s %s, %s", m, F[f.rd], X[f.rs1]);
    case Format::Fcmp: return fmt("%s %s, %s, %s", m, X[f.rd], F[f.rs1], F[f.rs2]);
    case Format::VxRs1: return fmt("%s %s", m, X[f.rs1]);
    case Format::VxRs1Rs2: return fmt("%s %s, %s", m, X[f.rs1], X[f.rs2]);
    case Format::VxRdRs1: return fmt("%s %s, %s", m, X[f.rd], X[f.rs1]);
    case Format::Wmma: return fmt("%s out_fmt=%u, in_fmt=%u", m, f.rd, f.rs1);
    case Format::Fence: {
      const uint32_t fm = w >> 28, pred = (w >> 24) & 0xf, succ = (w >> 20) & 0xf;
      if (fm == 8 && pred == 3 && succ == 3) return "fence.tso";
      if (fm == 0 && pred == 0xf && succ == 0xf) return m;
      auto set = [](uint32_t bits) {
        std::string t;
        if (bits & 8) t += 'i';
        if (bits & 4) t += 'o';
        if (bits & 2) t += 'r';
        if (bits & 1) t += 'w';
        return t.empty() ? std::string("0") : t;
      };
      return fmt("%s %s, %s", m, set(pred).c_str(), set(succ).c_str());
    }
  }
  return m;
}

}  // namespace vxsynth::vxsim
