// vxsynth extensions to the Vortex host API for the embedded simulator. Programs that use
// only vortex.h stay portable to a real Vortex; these calls exist for tests and tools.
#ifndef VORTEX_VXSIM_H
#define VORTEX_VXSIM_H

#include <stdint.h>

#include "vortex.h"

// The M extension's bit of VX_CAPS_ISA_FLAGS (Vortex's vortex.h names the other standard
// extensions but not this one).
#define VX_ISA_STD_M (1ull << 12)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t cores;             // 1..64
  uint32_t warps;             // warps per core: power of two, 1..32
  uint32_t threads;           // threads per warp: power of two, 1..32
  uint32_t local_mem_size;    // bytes per core: power of two, 1 KiB..64 KiB
  uint64_t max_instructions;  // warp-instruction budget per launch; 0 = none
} vxsim_device_config_t;

// The shape vx_dev_open will use: the defaults overridden by the VXSIM_* environment
// variables. Returns non-zero (and prints why) when an environment variable is invalid.
int vxsim_default_device_config(vxsim_device_config_t* config);

// Sets the shape for later vx_dev_open calls in this process, over the environment;
// config NULL goes back to the environment. Returns non-zero on an invalid shape.
int vxsim_set_device_config(const vxsim_device_config_t* config);

// Console lines of kernels: 0 = Vortex's "#slot: text" on stdout (default), 1 = the text
// alone on stdout, 2 = not printed (still kept for vxsim_console_text).
int vxsim_set_console_mode(vx_device_h hdevice, int mode);

// All console output of the device's launches so far, one line per slot line ("\n"-ended).
// Returns the length; writes up to size-1 bytes and a terminating zero when size > 0.
uint64_t vxsim_console_text(vx_device_h hdevice, char* buffer, uint64_t size);

// Thread-instructions and warp-instructions over all launches of the device.
int vxsim_instruction_counts(vx_device_h hdevice, uint64_t* thread_instrs, uint64_t* warp_instrs);

#ifdef __cplusplus
}
#endif

#endif  // VORTEX_VXSIM_H
