// Simulator configuration: machine shape and run limits. Defaults are Vortex's (1 core,
// 4 warps, 4 threads, 16 KiB local memory per core); see docs/vxsim.md.
#pragma once

#include <cstdint>

namespace vxsynth::vxsim {

// Fixed facts of the Vortex 2.x RV32 memory map (vortex-isa.md §3.1).
inline constexpr uint32_t kIoBaseAddr = 0x40;          // IO_COUT_ADDR: console, one byte slot per hart % 64
inline constexpr uint32_t kIoConsoleSize = 64;
inline constexpr uint32_t kIoMpmAddr = 0x80;           // per core 32 x 8 B counters at 0x80 + 256 * core
inline constexpr uint32_t kIoMpmCoreStride = 256;
inline constexpr uint32_t kIoExitCodeAddr = 0x88;      // exit code: slot 1 of core 0's MPM block
inline constexpr uint32_t kUserBaseAddr = 0x10000;     // end of IO, start of the host heap
inline constexpr uint32_t kStartupAddr = 0x80000000;   // default code / link base
inline constexpr uint32_t kStackBaseAddr = 0xFFFF0000; // hart h's sp = base - h * kStackSize
inline constexpr uint32_t kStackSize = 8192;
inline constexpr uint32_t kLocalMemBaseAddr = 0xFFFF0000;
inline constexpr uint32_t kCacheLineSize = 64;         // for the "distinct lines" counter

// Limits of this simulator (the mask types are 32 bits wide).
inline constexpr uint32_t kMaxCores = 64;
inline constexpr uint32_t kMaxWarps = 32;
inline constexpr uint32_t kMaxThreads = 32;

struct Config {
  uint32_t cores = 1;                 // 1..64
  uint32_t warps = 4;                 // warps per core, power of two, 1..32
  uint32_t threads = 4;               // threads per warp, power of two, 1..32
  uint32_t local_mem_size = 16384;    // bytes per core at 0xFFFF0000; power of two, 1 KiB..64 KiB
  uint64_t max_instructions = 0;      // warp-instruction budget over all cores; 0 = no limit

  // Vortex 2.x: NUM_BARRIERS = max(1, NUM_WARPS / 2).
  uint32_t num_barriers() const { return warps / 2 > 1 ? warps / 2 : 1; }
  uint32_t harts() const { return cores * warps * threads; }

  // Throws vxsynth::InputError("config", "<field>", "...") naming the bad field and the
  // accepted range. `source` is used as the error's file name (e.g. a CLI flag set).
  void validate(const char* source = "simulator config") const;
};

}  // namespace vxsynth::vxsim
