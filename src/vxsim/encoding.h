// The one encoding table. Every instruction the decoder knows is one row:
//   VXSIM_INSN(id, mnemonic, match, mask, extension, op class, shape, operand format)
// - match/mask: (word & mask) == match selects the row (facts from the RISC-V spec and
//   vortex-isa.md §1.2);
// - extension: which set it belongs to (RV32 sets stay clean; Vortex sets are separate);
// - shape: how the executor runs the body in insns/<id>.h:
//     Lane      per active lane, no FP flags             Mem     per lane, a memory access
//     Fp        per lane, host FP flags -> fflags        FpRm    per lane, rounding mode set, flags by hand
//     Branch    per lane condition, must agree            Warp    the whole warp at once
//     Unsupported  known encoding, not executed (fault with the name)
// - format: operand layout for the disassembler.
// Expanded by decode.cpp (decoder, disassembler), execute.cpp (dispatch table) and the
// overlap test. Adding an instruction: a row here, its body in insns/<id>.h and one include
// line in insns/all.h.
#pragma once

// clang-format off
#define VXSIM_RV32I(X) \
  X(lui,     "lui",     0x00000037, 0x0000007f, I, Alu, Lane, U) \
  X(auipc,   "auipc",   0x00000017, 0x0000007f, I, Alu, Lane, U) \
  X(jal,     "jal",     0x0000006f, 0x0000007f, I, Alu, Warp, Jal) \
  X(jalr,    "jalr",    0x00000067, 0x0000707f, I, Alu, Warp, Jalr) \
  X(beq,     "beq",     0x00000063, 0x0000707f, I, Alu, Branch, B) \
  X(bne,     "bne",     0x00001063, 0x0000707f, I, Alu, Branch, B) \
  X(blt,     "blt",     0x00004063, 0x0000707f, I, Alu, Branch, B) \
  X(bge,     "bge",     0x00005063, 0x0000707f, I, Alu, Branch, B) \
  X(bltu,    "bltu",    0x00006063, 0x0000707f, I, Alu, Branch, B) \
  X(bgeu,    "bgeu",    0x00007063, 0x0000707f, I, Alu, Branch, B) \
  X(lb,      "lb",      0x00000003, 0x0000707f, I, Load, Mem, Load) \
  X(lh,      "lh",      0x00001003, 0x0000707f, I, Load, Mem, Load) \
  X(lw,      "lw",      0x00002003, 0x0000707f, I, Load, Mem, Load) \
  X(lbu,     "lbu",     0x00004003, 0x0000707f, I, Load, Mem, Load) \
  X(lhu,     "lhu",     0x00005003, 0x0000707f, I, Load, Mem, Load) \
  X(sb,      "sb",      0x00000023, 0x0000707f, I, Store, Mem, Store) \
  X(sh,      "sh",      0x00001023, 0x0000707f, I, Store, Mem, Store) \
  X(sw,      "sw",      0x00002023, 0x0000707f, I, Store, Mem, Store) \
  X(addi,    "addi",    0x00000013, 0x0000707f, I, Alu, Lane, I) \
  X(slti,    "slti",    0x00002013, 0x0000707f, I, Alu, Lane, I) \
  X(sltiu,   "sltiu",   0x00003013, 0x0000707f, I, Alu, Lane, I) \
  X(xori,    "xori",    0x00004013, 0x0000707f, I, Alu, Lane, I) \
  X(ori,     "ori",     0x00006013, 0x0000707f, I, Alu, Lane, I) \
  X(andi,    "andi",    0x00007013, 0x0000707f, I, Alu, Lane, I) \
  X(slli,    "slli",    0x00001013, 0xfe00707f, I, Alu, Lane, Shift) \
  X(srli,    "srli",    0x00005013, 0xfe00707f, I, Alu, Lane, Shift) \
  X(srai,    "srai",    0x40005013, 0xfe00707f, I, Alu, Lane, Shift) \
  X(add,     "add",     0x00000033, 0xfe00707f, I, Alu, Lane, R) \
  X(sub,     "sub",     0x40000033, 0xfe00707f, I, Alu, Lane, R) \
  X(sll,     "sll",     0x00001033, 0xfe00707f, I, Alu, Lane, R) \
  X(slt,     "slt",     0x00002033, 0xfe00707f, I, Alu, Lane, R) \
  X(sltu,    "sltu",    0x00003033, 0xfe00707f, I, Alu, Lane, R) \
  X(xor_,    "xor",     0x00004033, 0xfe00707f, I, Alu, Lane, R) \
  X(srl,     "srl",     0x00005033, 0xfe00707f, I, Alu, Lane, R) \
  X(sra,     "sra",     0x40005033, 0xfe00707f, I, Alu, Lane, R) \
  X(or_,     "or",      0x00006033, 0xfe00707f, I, Alu, Lane, R) \
  X(and_,    "and",     0x00007033, 0xfe00707f, I, Alu, Lane, R) \
  X(fence,   "fence",   0x0000000f, 0x0000707f, I, Sfu, Warp, Fence) \
  X(ecall,   "ecall",   0x00000073, 0xffffffff, I, Sfu, Warp, None) \
  X(ebreak,  "ebreak",  0x00100073, 0xffffffff, I, Sfu, Warp, None)

#define VXSIM_PRIV(X) \
  X(uret,    "uret",    0x00200073, 0xffffffff, Priv, Sfu, Warp, None) \
  X(sret,    "sret",    0x10200073, 0xffffffff, Priv, Sfu, Warp, None) \
  X(mret,    "mret",    0x30200073, 0xffffffff, Priv, Sfu, Warp, None) \
  X(wfi,     "wfi",     0x10500073, 0xffffffff, Priv, Sfu, Warp, None)

#define VXSIM_ZIFENCEI(X) \
  X(fence_i, "fence.i", 0x0000100f, 0x0000707f, Zifencei, Sfu, Warp, None)

#define VXSIM_ZICSR(X) \
  X(csrrw,   "csrrw",   0x00001073, 0x0000707f, Zicsr, Sfu, Warp, Csr) \
  X(csrrs,   "csrrs",   0x00002073, 0x0000707f, Zicsr, Sfu, Warp, Csr) \
  X(csrrc,   "csrrc",   0x00003073, 0x0000707f, Zicsr, Sfu, Warp, Csr) \
  X(csrrwi,  "csrrwi",  0x00005073, 0x0000707f, Zicsr, Sfu, Warp, CsrI) \
  X(csrrsi,  "csrrsi",  0x00006073, 0x0000707f, Zicsr, Sfu, Warp, CsrI) \
  X(csrrci,  "csrrci",  0x00007073, 0x0000707f, Zicsr, Sfu, Warp, CsrI)

#define VXSIM_RV32M(X) \
  X(mul,     "mul",     0x02000033, 0xfe00707f, M, Alu, Lane, R) \
  X(mulh,    "mulh",    0x02001033, 0xfe00707f, M, Alu, Lane, R) \
  X(mulhsu,  "mulhsu",  0x02002033, 0xfe00707f, M, Alu, Lane, R) \
  X(mulhu,   "mulhu",   0x02003033, 0xfe00707f, M, Alu, Lane, R) \
  X(div,     "div",     0x02004033, 0xfe00707f, M, Alu, Lane, R) \
  X(divu,    "divu",    0x02005033, 0xfe00707f, M, Alu, Lane, R) \
  X(rem,     "rem",     0x02006033, 0xfe00707f, M, Alu, Lane, R) \
  X(remu,    "remu",    0x02007033, 0xfe00707f, M, Alu, Lane, R)

#define VXSIM_RV32A(X) \
  X(lr_w,      "lr.w",      0x1000202f, 0xf9f0707f, A, Atomic, Mem, Lr) \
  X(sc_w,      "sc.w",      0x1800202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amoswap_w, "amoswap.w", 0x0800202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amoadd_w,  "amoadd.w",  0x0000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amoxor_w,  "amoxor.w",  0x2000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amoand_w,  "amoand.w",  0x6000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amoor_w,   "amoor.w",   0x4000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amomin_w,  "amomin.w",  0x8000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amomax_w,  "amomax.w",  0xa000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amominu_w, "amominu.w", 0xc000202f, 0xf800707f, A, Atomic, Mem, Amo) \
  X(amomaxu_w, "amomaxu.w", 0xe000202f, 0xf800707f, A, Atomic, Mem, Amo)

#define VXSIM_RV32F(X) \
  X(flw,       "flw",       0x00002007, 0x0000707f, F, Load, Mem, FLoad) \
  X(fsw,       "fsw",       0x00002027, 0x0000707f, F, Store, Mem, FStore) \
  X(fmadd_s,   "fmadd.s",   0x00000043, 0x0600007f, F, Fpu, Fp, R4) \
  X(fmsub_s,   "fmsub.s",   0x00000047, 0x0600007f, F, Fpu, Fp, R4) \
  X(fnmsub_s,  "fnmsub.s",  0x0000004b, 0x0600007f, F, Fpu, Fp, R4) \
  X(fnmadd_s,  "fnmadd.s",  0x0000004f, 0x0600007f, F, Fpu, Fp, R4) \
  X(fadd_s,    "fadd.s",    0x00000053, 0xfe00007f, F, Fpu, Fp, FR) \
  X(fsub_s,    "fsub.s",    0x08000053, 0xfe00007f, F, Fpu, Fp, FR) \
  X(fmul_s,    "fmul.s",    0x10000053, 0xfe00007f, F, Fpu, Fp, FR) \
  X(fdiv_s,    "fdiv.s",    0x18000053, 0xfe00007f, F, Fpu, Fp, FR) \
  X(fsqrt_s,   "fsqrt.s",   0x58000053, 0xfff0007f, F, Fpu, Fp, F1) \
  X(fsgnj_s,   "fsgnj.s",   0x20000053, 0xfe00707f, F, Fpu, Lane, FRnoRm) \
  X(fsgnjn_s,  "fsgnjn.s",  0x20001053, 0xfe00707f, F, Fpu, Lane, FRnoRm) \
  X(fsgnjx_s,  "fsgnjx.s",  0x20002053, 0xfe00707f, F, Fpu, Lane, FRnoRm) \
  X(fmin_s,    "fmin.s",    0x28000053, 0xfe00707f, F, Fpu, Lane, FRnoRm) \
  X(fmax_s,    "fmax.s",    0x28001053, 0xfe00707f, F, Fpu, Lane, FRnoRm) \
  X(fcvt_w_s,  "fcvt.w.s",  0xc0000053, 0xfff0007f, F, Fpu, FpRm, FtoX) \
  X(fcvt_wu_s, "fcvt.wu.s", 0xc0100053, 0xfff0007f, F, Fpu, FpRm, FtoX) \
  X(fmv_x_w,   "fmv.x.w",   0xe0000053, 0xfff0707f, F, Fpu, Lane, FtoXnoRm) \
  X(fclass_s,  "fclass.s",  0xe0001053, 0xfff0707f, F, Fpu, Lane, FtoXnoRm) \
  X(feq_s,     "feq.s",     0xa0002053, 0xfe00707f, F, Fpu, Lane, Fcmp) \
  X(flt_s,     "flt.s",     0xa0001053, 0xfe00707f, F, Fpu, Lane, Fcmp) \
  X(fle_s,     "fle.s",     0xa0000053, 0xfe00707f, F, Fpu, Lane, Fcmp) \
  X(fcvt_s_w,  "fcvt.s.w",  0xd0000053, 0xfff0007f, F, Fpu, Fp, XtoF) \
  X(fcvt_s_wu, "fcvt.s.wu", 0xd0100053, 0xfff0007f, F, Fpu, Fp, XtoF) \
  X(fmv_w_x,   "fmv.w.x",   0xf0000053, 0xfff0707f, F, Fpu, Lane, XtoFnoRm)

#define VXSIM_ZICOND(X) \
  X(czero_eqz, "czero.eqz", 0x0e005033, 0xfe00707f, Zicond, Alu, Lane, R) \
  X(czero_nez, "czero.nez", 0x0e007033, 0xfe00707f, Zicond, Alu, Lane, R)

// Vortex 2.x custom-0 (vortex-isa.md §1.2). SPLIT.N / PRED.N are the encodings the
// intrinsics emit (negation field = x1); other non-zero negation fields decode as illegal.
#define VXSIM_VORTEX(X) \
  X(tmc,       "tmc",       0x0000000b, 0xfe00707f, Vortex, WarpControl, Warp, VxRs1) \
  X(wspawn,    "wspawn",    0x0000100b, 0xfe00707f, Vortex, WarpControl, Warp, VxRs1Rs2) \
  X(split,     "split",     0x0000200b, 0xfff0707f, Vortex, WarpControl, Warp, VxRdRs1) \
  X(split_n,   "split.n",   0x0010200b, 0xfff0707f, Vortex, WarpControl, Warp, VxRdRs1) \
  X(join,      "join",      0x0000300b, 0xfe00707f, Vortex, WarpControl, Warp, VxRs1) \
  X(bar,       "bar",       0x0000400b, 0xfe00707f, Vortex, WarpControl, Warp, VxRs1Rs2) \
  X(pred,      "pred",      0x0000500b, 0xfe007fff, Vortex, WarpControl, Warp, VxRs1Rs2) \
  X(pred_n,    "pred.n",    0x0000508b, 0xfe007fff, Vortex, WarpControl, Warp, VxRs1Rs2) \
  X(vote_all,  "vote.all",  0x0200000b, 0xfe00707f, Vortex, Sfu, Warp, VxRdRs1) \
  X(vote_any,  "vote.any",  0x0200100b, 0xfe00707f, Vortex, Sfu, Warp, VxRdRs1) \
  X(vote_uni,  "vote.uni",  0x0200200b, 0xfe00707f, Vortex, Sfu, Warp, VxRdRs1) \
  X(vote_ballot, "vote.ballot", 0x0200300b, 0xfe00707f, Vortex, Sfu, Warp, VxRdRs1) \
  X(shfl_up,   "shfl.up",   0x0200400b, 0xfe00707f, Vortex, Sfu, Warp, R) \
  X(shfl_down, "shfl.down", 0x0200500b, 0xfe00707f, Vortex, Sfu, Warp, R) \
  X(shfl_bfly, "shfl.bfly", 0x0200600b, 0xfe00707f, Vortex, Sfu, Warp, R) \
  X(shfl_idx,  "shfl.idx",  0x0200700b, 0xfe00707f, Vortex, Sfu, Warp, R)

// Tensor unit (vortex-isa.md §5, Vortex 2.x formats and register binding).
#define VXSIM_VORTEX_TCU(X) \
  X(wmma,      "wmma",      0x0400000b, 0xfe00707f, VortexTcu, Tensor, Warp, Wmma)

// Vortex 3.x only: recognised so that a v3 kernel gets a clear "unsupported" fault.
#define VXSIM_VORTEX_V3(X) \
  X(bar_arrive_wait, "bar.arrive/bar.wait (v3)", 0x0000600b, 0xfe00707f, VortexV3, WarpControl, Unsupported, R) \
  X(wsync,     "wsync (v3)", 0x0000700b, 0xfe00707f, VortexV3, WarpControl, Unsupported, None) \
  X(wgmma,     "wgmma (v3)", 0x0400100b, 0xfe00707f, VortexV3, Tensor, Unsupported, R) \
  X(tcu_ld,    "tcu_ld (v3)", 0x0400200b, 0xfe00707f, VortexV3, Tensor, Unsupported, R) \
  X(dxa,       "dxa (v3)",  0x0600000b, 0xfe00007f, VortexV3, Sfu, Unsupported, R) \
  X(packlb_f,  "packlb.f (v3)", 0x0800100b, 0xfe00707f, VortexV3, Load, Unsupported, R) \
  X(packlh_f,  "packlh.f (v3)", 0x0800200b, 0xfe00707f, VortexV3, Load, Unsupported, R)

#define VXSIM_ALL_INSNS(X) \
  VXSIM_RV32I(X) VXSIM_PRIV(X) VXSIM_ZIFENCEI(X) VXSIM_ZICSR(X) VXSIM_RV32M(X) VXSIM_RV32A(X) \
  VXSIM_RV32F(X) VXSIM_ZICOND(X) VXSIM_VORTEX(X) VXSIM_VORTEX_TCU(X) VXSIM_VORTEX_V3(X)
// clang-format on
