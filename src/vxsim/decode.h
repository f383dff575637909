// Decoding: the encoding table (encoding.h) expanded into an instruction-id enum, a static
// description array, a decoder that fills a Decoded descriptor, and a disassembler.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "vxsim/counters.h"
#include "vxsim/encoding.h"

namespace vxsynth::vxsim {

enum class InsnId : uint16_t {
#define VXSIM_ENUM(id, mn, match, mask, ext, cls, shape, fmt) id,
  VXSIM_ALL_INSNS(VXSIM_ENUM)
#undef VXSIM_ENUM
  kCount
};
inline constexpr size_t kNumInsns = static_cast<size_t>(InsnId::kCount);

enum class Extension : uint8_t { I, Priv, Zifencei, Zicsr, M, A, F, Zicond, Vortex, VortexTcu, VortexV3 };
enum class Shape : uint8_t { Lane, Mem, Fp, FpRm, Branch, Warp, Unsupported };
enum class Format : uint8_t {
  None, R, I, Shift, U, Jal, Jalr, B, Load, Store, Csr, CsrI, Lr, Amo, FLoad, FStore,
  R4, FR, FRnoRm, F1, FtoX, FtoXnoRm, XtoF, XtoFnoRm, Fcmp, VxRs1, VxRs1Rs2, VxRdRs1, Wmma, Fence
};

struct InsnInfo {
  const char* mnemonic;
  uint32_t match;
  uint32_t mask;
  Extension extension;
  OpClass op_class;
  Shape shape;
  Format format;
};

// The table, indexed by InsnId.
std::span<const InsnInfo> insn_table();
const char* extension_name(Extension e);

// Register fields and the immediate, extracted once.
struct Fields {
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t rm = 0;    // funct3 (rounding mode for FP)
  int32_t imm = 0;   // I/S/B/U/J immediate, shift amount, or CSR number (by format)
};

// The matching row, or nullopt for an illegal word.
std::optional<InsnId> decode_id(uint32_t word);
Fields decode_fields(uint32_t word, Format format);

// "addi a0, a1, -3"; jump targets are absolute (pc + offset). An illegal word gives a
// guess: "illegal: opcode 0x0b (custom-0) funct3=3 funct7=0x05 rd=a0 rs1=a1 rs2=a2".
std::string disassemble(uint32_t word, uint32_t pc);

const char* xreg_name(unsigned r);  // ABI names: zero, ra, sp, ...
const char* freg_name(unsigned r);  // ft0, ...

}  // namespace vxsynth::vxsim
