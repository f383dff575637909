// vxsynth's own device helpers (not Vortex API). Vortex-named headers (vx_intrinsics.h,
// vx_spawn.h, ...) hold Vortex 2.x names only, so a kernel that builds against them builds
// against a Vortex tree; a kernel that includes this header needs it copied along.
#ifndef VXSYNTH_INTRINSICS_H
#define VXSYNTH_INTRINSICS_H

#include <stddef.h>

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

// Base address of the core's local (shared) memory; Vortex spells it
// csr_read(VX_CSR_LOCAL_MEM_BASE).
static inline __attribute__((always_inline)) size_t vx_local_mem_base(void) {
  return csr_read(VX_CSR_LOCAL_MEM_BASE);
}

#ifdef __cplusplus
}
#endif

#endif  // VXSYNTH_INTRINSICS_H
