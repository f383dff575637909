// Simulator configuration: machine shape and run limits. Defaults are Vortex's (1 core,
// 4 warps, 4 threads, 16 KiB local memory per core); see docs/vxsim.md.
#pragma once

#include <VX_config.h>

// The runtime-private constants (the counter blocks, the exit-code slot) beside it.
#include "../../vortex-rt/src/vx_runtime.h"

#include <cstdint>
#include <string>

#include "common/vortex_machine.h"

namespace vxsynth::vxsim {

// Fixed facts of the Vortex 2.x RV32 memory map, from vortex-rt's VX_config.h and vx_runtime.h
// (the one copy the kernels' start-up code, the host runtime and the simulator share).
inline constexpr uint32_t kIoBaseAddr = IO_COUT_ADDR;        // console, one byte slot per hart % 64
inline constexpr uint32_t kIoConsoleSize = IO_COUT_SIZE;
inline constexpr uint32_t kIoMpmAddr = IO_MPM_ADDR;          // per core 32 x 8 B counters at 0x80 + 256 * core
inline constexpr uint32_t kIoMpmCoreStride = IO_MPM_CORE_STRIDE;
inline constexpr uint32_t kIoExitCodeAddr = IO_MPM_EXITCODE; // exit code: slot 1 of core 0's MPM block
inline constexpr uint32_t kUserBaseAddr = USER_BASE_ADDR;    // end of IO, start of the host heap
inline constexpr uint32_t kStartupAddr = STARTUP_ADDR;       // default code / link base
inline constexpr uint32_t kStackBaseAddr = STACK_BASE_ADDR;  // hart h's sp = base - h * kStackSize
inline constexpr uint32_t kStackSize = 1u << STACK_LOG2_SIZE;
inline constexpr uint32_t kLocalMemBaseAddr = LMEM_BASE_ADDR;
inline constexpr uint32_t kCacheLineSize = MEM_BLOCK_SIZE;  // for the "distinct lines" counter
static_assert(kIoBaseAddr == 0x40 && kIoMpmAddr == 0x80 && kIoExitCodeAddr == 0x88 && kUserBaseAddr == 0x10000 &&
                  kLocalMemBaseAddr == 0xFFFF0000,
              "the Vortex 2.x memory map");

// Limits of this simulator (the mask types are 32 bits wide): the machine's (common/vortex_machine.h).
inline constexpr uint32_t kMaxCores = VortexMachine::kMaxCores;
inline constexpr uint32_t kMaxWarps = VortexMachine::kMaxWarps;
inline constexpr uint32_t kMaxThreads = VortexMachine::kMaxThreads;

// The machine (cores, warps, threads, local_mem_bytes at 0xFFFF0000; defaults and limits in
// common/vortex_machine.h, the same struct a design names its machine with) and run limits.
struct Config : VortexMachine {
  uint64_t max_instructions = 0;      // warp-instruction budget over all cores; 0 = no limit

  // Vortex 2.x: NUM_BARRIERS = max(1, NUM_WARPS / 2).
  uint32_t num_barriers() const { return warps / 2 > 1 ? warps / 2 : 1; }
  uint32_t harts() const { return cores * warps * threads; }

  // Throws vxsynth::InputError(source, "<field>", "...") naming the bad field and the
  // accepted range. `source` is used as the error's file name (e.g. a CLI flag set).
  void validate(const std::string& source = "simulator config") const { VortexMachine::validate(source); }
};

}  // namespace vxsynth::vxsim
