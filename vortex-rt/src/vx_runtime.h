// Constants private to the runtime (Vortex keeps the same ones in its kernel/src/common.h,
// not in a public header).
#ifndef VX_RUNTIME_H
#define VX_RUNTIME_H

#include <VX_config.h>

// A core's counter block in the IO area: 32 slots of 8 bytes (low word first) at
// IO_MPM_ADDR + 256 * core. Slot i holds CSR VX_CSR_MPM_BASE + i; slot 1 (a reserved CSR) is
// the exit code instead, read by hosts from core 0's block.
#define IO_MPM_CORE_STRIDE  256
#define IO_MPM_EXITCODE     (IO_MPM_ADDR + 8)

#endif  // VX_RUNTIME_H
