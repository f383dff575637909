// Branch-free helpers for kernels built with GCC (vxsynth's own header, not a Vortex API).
// It lives in vortex-rt/extra, apart from the Vortex-named headers, so a real Vortex build can
// add `-I<vxsynth>/vortex-rt/extra` without shadowing Vortex's own vx_*.h.
//
// GCC inserts no split/join, so a lane-dependent condition must not become a branch. GCC
// turns innocent code into branches: `c ? a : b`, min/max, and even (a < n) & (b < n),
// which it folds into max(a, b) < n with max expanded as a branch. These helpers hide the
// condition from the optimizer behind an empty asm, so the arithmetic stays arithmetic.
#ifndef VX_BRANCHLESS_H
#define VX_BRANCHLESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// v, unknown to the optimizer.
static inline uint32_t vxb_opaque(uint32_t v) {
  __asm__("" : "+r"(v));
  return v;
}

// 1 if a < b (unsigned), else 0.
static inline uint32_t vxb_lt(uint32_t a, uint32_t b) {
  uint32_t result;
  __asm__("sltu %0, %1, %2" : "=r"(result) : "r"(a), "r"(b));
  return result;
}

// 1 if a < b (signed), else 0.
static inline uint32_t vxb_lt_signed(int32_t a, int32_t b) {
  uint32_t result;
  __asm__("slt %0, %1, %2" : "=r"(result) : "r"(a), "r"(b));
  return result;
}

// All ones if condition != 0, else 0.
static inline uint32_t vxb_mask(uint32_t condition) { return 0u - vxb_opaque(condition != 0); }

// condition ? a : b.
static inline uint32_t vxb_select(uint32_t condition, uint32_t a, uint32_t b) {
  uint32_t m = vxb_mask(condition);
  return (a & m) | (b & ~m);
}

static inline float vxb_select_f(uint32_t condition, float a, float b) {
  union {
    float f;
    uint32_t u;
  } x = {a}, y = {b}, r;
  r.u = vxb_select(condition, x.u, y.u);
  return r.f;
}

static inline uint32_t vxb_min(uint32_t a, uint32_t b) { return vxb_select(vxb_lt(a, b), a, b); }
static inline uint32_t vxb_max(uint32_t a, uint32_t b) { return vxb_select(vxb_lt(a, b), b, a); }

#ifdef __cplusplus
}
#endif

#endif  // VX_BRANCHLESS_H
