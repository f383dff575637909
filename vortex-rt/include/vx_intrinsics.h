// Vortex kernel intrinsics: the Vortex 2.x names and meanings, for clang and GCC.
//
// Each Vortex instruction is emitted with the assembler's `.insn r` directive on the
// CUSTOM0 opcode (0x0B), so stock assemblers take it (docs: vortex-isa.md §1.1–1.3).
// Every asm statement is volatile with a memory clobber: the compiler must neither merge nor
// move thread-mask changes, barriers or CSR reads (a CSR such as the thread mask changes under
// the compiler's feet).
//
// The default kernel toolchain (clang + vortex-rt/llvm's divergence plugin) inserts split/join
// and loop predication where lanes may disagree, and marks these asm statements convergent so
// no optimizer copies them. With --compiler gcc nothing is inserted: keep branches warp-uniform,
// or wrap them by hand:   int sp = vx_split(c); if (c) { ... } vx_join(sp);
// Both arms must reach the same vx_join instruction; the split/join verifier that runs on every
// kernel build refuses a binary where an optimizer copied the join (docs/divergence.md).
#ifndef VX_INTRINSICS_H
#define VX_INTRINSICS_H

#include <stddef.h>
#include <stdint.h>

#include <VX_config.h>
#include <VX_types.h>

#ifdef __cplusplus
extern "C" {
#endif

// Marks a value the same on every lane. The Vortex LLVM divergence pass reads it; GCC has
// no such pass, so here it only documents intent.
#ifndef __UNIFORM__
#define __UNIFORM__
#endif
#ifndef __DIVERGENT__
#define __DIVERGENT__
#endif

#define VX_ALWAYS_INLINE inline __attribute__((always_inline))

// Major opcodes of the RISC-V custom instruction spaces (Vortex uses CUSTOM0), for .insn.
#define RISCV_CUSTOM0 0x0B
#define RISCV_CUSTOM1 0x2B
#define RISCV_CUSTOM2 0x5B
#define RISCV_CUSTOM3 0x7B

// ---- CSR access ----
#define csr_read(csr) ({                                                        \
  size_t __r;                                                                   \
  __asm__ __volatile__("csrr %0, %1" : "=r"(__r) : "i"(csr) : "memory");        \
  __r; })

#define csr_write(csr, val) ({                                                  \
  size_t __v = (size_t)(val);                                                   \
  __asm__ __volatile__("csrw %0, %1" : : "i"(csr), "r"(__v) : "memory"); })

#define csr_swap(csr, val) ({                                                   \
  size_t __r, __v = (size_t)(val);                                              \
  __asm__ __volatile__("csrrw %0, %1, %2" : "=r"(__r) : "i"(csr), "r"(__v) : "memory"); \
  __r; })

#define csr_read_set(csr, val) ({                                               \
  size_t __r, __v = (size_t)(val);                                              \
  __asm__ __volatile__("csrrs %0, %1, %2" : "=r"(__r) : "i"(csr), "r"(__v) : "memory"); \
  __r; })

#define csr_set(csr, val) ({                                                    \
  size_t __v = (size_t)(val);                                                   \
  __asm__ __volatile__("csrs %0, %1" : : "i"(csr), "r"(__v) : "memory"); })

#define csr_read_clear(csr, val) ({                                             \
  size_t __r, __v = (size_t)(val);                                              \
  __asm__ __volatile__("csrrc %0, %1, %2" : "=r"(__r) : "i"(csr), "r"(__v) : "memory"); \
  __r; })

#define csr_clear(csr, val) ({                                                  \
  size_t __v = (size_t)(val);                                                   \
  __asm__ __volatile__("csrc %0, %1" : : "i"(csr), "r"(__v) : "memory"); })

// ---- Warp control ----

// Sets the warp's thread mask (bit t enables lane t; read from the last active lane).
// A mask of zero retires the warp.
static VX_ALWAYS_INLINE void vx_tmc(int thread_mask) {
  __asm__ __volatile__(".insn r 0x0B, 0, 0, x0, %0, x0" : : "r"(thread_mask) : "memory");
}

// Retires the calling warp.
static VX_ALWAYS_INLINE void vx_tmc_zero(void) {
  __asm__ __volatile__(".insn r 0x0B, 0, 0, x0, x0, x0" : : : "memory");
}

// Leaves only lane 0 active.
static VX_ALWAYS_INLINE void vx_tmc_one(void) { vx_tmc(1); }

// Keeps only the active lanes whose condition bit 0 is 1; if none is, sets the mask to
// thread_mask instead (the divergent-loop exit idiom).
static VX_ALWAYS_INLINE void vx_pred(int condition, int thread_mask) {
  __asm__ __volatile__(".insn r 0x0B, 5, 0, x0, %0, %1" : : "r"(condition), "r"(thread_mask) : "memory");
}

// As vx_pred with the condition negated.
static VX_ALWAYS_INLINE void vx_pred_n(int condition, int thread_mask) {
  __asm__ __volatile__(".insn r 0x0B, 5, 0, x1, %0, %1" : : "r"(condition), "r"(thread_mask) : "memory");
}

typedef void (*vx_wspawn_pfn)(void);

// Starts warps 1 .. num_warps-1 of this core at func_ptr with lane 0 active, once the
// caller is the core's only active warp. vx_wspawn(1, 0) waits for all other warps to end.
static VX_ALWAYS_INLINE void vx_wspawn(int num_warps, vx_wspawn_pfn func_ptr) {
  __asm__ __volatile__(".insn r 0x0B, 1, 0, x0, %0, %1" : : "r"(num_warps), "r"(func_ptr) : "memory");
}

// Divergence: splits the active lanes on predicate bit 0 and returns the value vx_join
// needs. The code up to the matching vx_join runs once per non-empty subset.
static VX_ALWAYS_INLINE int vx_split(int predicate) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 2, 0, %0, %1, x0" : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

// As vx_split with the predicate negated.
static VX_ALWAYS_INLINE int vx_split_n(int predicate) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 2, 0, %0, %1, x1" : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

// Reconverges the lanes that vx_split separated.
static VX_ALWAYS_INLINE void vx_join(int stack_ptr) {
  __asm__ __volatile__(".insn r 0x0B, 3, 0, x0, %0, x0" : : "r"(stack_ptr) : "memory");
}

// Waits until num_warps warps of this core reached barrier barrier_id. With bit 31 of
// barrier_id set the barrier spans cores and num_warps counts cores.
static VX_ALWAYS_INLINE void vx_barrier(int barrier_id, int num_warps) {
  __asm__ __volatile__(".insn r 0x0B, 4, 0, x0, %0, %1" : : "r"(barrier_id), "r"(num_warps) : "memory");
}

// ---- Warp-wide votes (over the active lanes; every lane gets the result) ----
static VX_ALWAYS_INLINE int vx_vote_all(int predicate) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 0, 1, %0, %1, x0" : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

static VX_ALWAYS_INLINE int vx_vote_any(int predicate) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 1, 1, %0, %1, x0" : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

static VX_ALWAYS_INLINE int vx_vote_uni(int predicate) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 2, 1, %0, %1, x0" : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

static VX_ALWAYS_INLINE int vx_vote_ballot(int predicate) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 3, 1, %0, %1, x0" : "=r"(ret) : "r"(predicate) : "memory");
  return ret;
}

// ---- Warp shuffles: b = offset/lane, c = clamp lane, mask = segment mask (6 bits each) ----
#define VX_SHFL_PACK(b, c, mask) ((((mask) & 0x3f) << 12) | (((c) & 0x3f) << 6) | ((b) & 0x3f))

static VX_ALWAYS_INLINE int vx_shfl_up(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 4, 1, %0, %1, %2"
                       : "=r"(ret) : "r"(value), "r"(VX_SHFL_PACK(bval, cval, mask)) : "memory");
  return ret;
}

static VX_ALWAYS_INLINE int vx_shfl_down(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 5, 1, %0, %1, %2"
                       : "=r"(ret) : "r"(value), "r"(VX_SHFL_PACK(bval, cval, mask)) : "memory");
  return ret;
}

static VX_ALWAYS_INLINE int vx_shfl_bfly(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 6, 1, %0, %1, %2"
                       : "=r"(ret) : "r"(value), "r"(VX_SHFL_PACK(bval, cval, mask)) : "memory");
  return ret;
}

static VX_ALWAYS_INLINE int vx_shfl_idx(size_t value, int bval, int cval, int mask) {
  int ret;
  __asm__ __volatile__(".insn r 0x0B, 7, 1, %0, %1, %2"
                       : "=r"(ret) : "r"(value), "r"(VX_SHFL_PACK(bval, cval, mask)) : "memory");
  return ret;
}

// ---- Identification ----
static VX_ALWAYS_INLINE int vx_thread_id(void) { return (int)csr_read(VX_CSR_THREAD_ID); }
static VX_ALWAYS_INLINE int vx_active_threads(void) { return (int)csr_read(VX_CSR_ACTIVE_THREADS); }
static VX_ALWAYS_INLINE int vx_warp_id(void) { return (int)csr_read(VX_CSR_WARP_ID); }
static VX_ALWAYS_INLINE int vx_active_warps(void) { return (int)csr_read(VX_CSR_ACTIVE_WARPS); }
static VX_ALWAYS_INLINE int vx_core_id(void) { return (int)csr_read(VX_CSR_CORE_ID); }
static VX_ALWAYS_INLINE int vx_hart_id(void) { return (int)csr_read(VX_CSR_MHARTID); }
static VX_ALWAYS_INLINE int vx_num_threads(void) { return (int)csr_read(VX_CSR_NUM_THREADS); }
static VX_ALWAYS_INLINE int vx_num_warps(void) { return (int)csr_read(VX_CSR_NUM_WARPS); }
static VX_ALWAYS_INLINE int vx_num_cores(void) { return (int)csr_read(VX_CSR_NUM_CORES); }

// Orders this thread's memory accesses.
static VX_ALWAYS_INLINE void vx_fence(void) {
  __asm__ __volatile__("fence iorw, iorw" : : : "memory");
}

#ifdef __cplusplus
}
#endif

// Helpers of this header only: Vortex's vx_intrinsics.h has no such names.
#undef VX_ALWAYS_INLINE
#undef VX_SHFL_PACK

#endif  // VX_INTRINSICS_H
