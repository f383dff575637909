// The device behind a vx_device_h: one Simulator, a buffer allocator over its global memory
// with the host-side access flags, an asynchronous launch, and the performance totals.
// vortex_api.cpp wraps it in the Vortex 2.x C API; tests and tools may use it directly.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "vxsim/simulator.h"
#include "vxsim/timing/vortex2.h"

namespace vxsynth::vxsim::host {

class Device;

// A range of device memory owned by the host program (vx_buffer_h points at one).
struct Buffer {
  Device* device = nullptr;
  uint32_t address = 0;
  uint64_t size = 0;
  int flags = 0;                       // VX_MEM_* as given
  std::optional<uint32_t> entry;       // kernel buffers: the start PC
};

// How console lines of kernels reach the host program's stdout.
enum class ConsoleMode { kSlotPrefix = 0, kPlain = 1, kSilent = 2 };

// Region vx_mem_alloc hands out: above the IO block, below the kernel image.
inline constexpr uint32_t kHeapBegin = kUserBaseAddr;
inline constexpr uint32_t kHeapEnd = kStartupAddr;
inline constexpr uint32_t kAllocAlignment = kCacheLineSize;

// The shape vx_dev_open uses: the process-wide setting (vxsim_set_device_config) if any,
// else the defaults overridden by VXSIM_CORES / VXSIM_WARPS / VXSIM_THREADS /
// VXSIM_LOCAL_MEM / VXSIM_MAX_INSTRS. InputError names the variable and what it expects.
Config device_config_from_environment();
void set_process_device_config(const std::optional<Config>& config);
Config current_device_config();

// The timing model vx_dev_open attaches: VXSIM_TIMING=vortex2 (default none), parameters from
// VXSIM_TIMING_CONFIG (a file of NAME = VALUE lines) and VXSIM_TIMING_PARAMS
// ("NAME=VALUE,NAME=VALUE"). nullopt = functional only.
std::optional<timing::TimingParams> timing_from_environment();

class Device {
 public:
  explicit Device(const Config& config, const std::optional<timing::TimingParams>& timing = std::nullopt);
  ~Device();  // waits for a launch in flight
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  Simulator& simulator() { return sim_; }
  const Config& config() const { return sim_.config(); }

  // Memory. Errors are InputError (bad arguments) or WorkError (out of memory, overlap).
  Buffer* allocate(uint64_t size, int flags);
  Buffer* reserve(uint64_t address, uint64_t size, int flags);
  void free(Buffer* buffer);
  void set_access(Buffer* buffer, uint64_t offset, uint64_t size, int flags);
  void copy_to(Buffer* buffer, const void* host, uint64_t offset, uint64_t size);
  void copy_from(void* host, Buffer* buffer, uint64_t offset, uint64_t size);
  uint64_t heap_used() const;
  uint64_t heap_free() const;

  // Kernels: a .vxbin or ELF image placed at its link address (vortex-isa.md §3.3).
  Buffer* upload_kernel(std::span<const uint8_t> bytes, const std::string& name);

  // Launch: sets the STARTUP DCRs and runs on a worker thread. wait() returns true when the
  // launch has ended within timeout_ms; the outcome is then in last_outcome().
  void start(Buffer* kernel, Buffer* arguments);
  bool wait(uint64_t timeout_ms);
  bool busy() const;

  struct Outcome {
    bool faulted = false;
    std::string error;       // the fault report or other failure text
    int32_t exit_code = 0;
  };
  const Outcome& last_outcome() const { return outcome_; }

  // Totals over all launches since open.
  const Counters& total_counters() const { return total_; }
  const std::vector<Counters>& core_counters() const { return per_core_; }
  uint64_t launches() const { return launches_; }
  // One entry per launch: the functional counters and (with a timing model) its cycles.
  struct LaunchRecord {
    Counters counters;
    uint64_t cycles = 0;
    uint64_t timed_instrs = 0;  // SimX's count (a WMMA as its micro-ops)
    Json regions;               // its vx_spawn_threads regions (vxsim/timing/regions.h)
    Json outside_regions;       // the functional counters outside them
  };
  const std::vector<LaunchRecord>& launch_log() const { return launch_log_; }
  // With a timing model: its counters summed over all launches (cycles add up).
  bool timed() const { return timing_ != nullptr; }
  const timing::TimingSummary& timing_total() const { return timing_total_; }
  // Slot `slot` (CSR VX_CSR_MPM_BASE + slot) of the counter block `core` stored at its last
  // exit, read from the IO block as Vortex's runtime reads it (vx_mpm_query).
  uint64_t stored_counter(uint32_t core, uint32_t slot) const;
  void dump_perf(std::FILE* stream) const;
  // The run as `vxsynth sim run --json` gives it (vxsynth.vxsim-run/1): configuration, exit
  // code of the last launch, functional counters and, with a timing model, cycles and the
  // timing counters, all summed over the launches since open. vx_dev_close writes it to
  // $VXSIM_RUN_JSON when that is set (how `vxsynth suite run --signature` reads a benchmark).
  Json run_json() const;

  void set_console_mode(ConsoleMode mode) { console_mode_ = mode; }
  const std::string& console_text() const { return console_text_; }

  bool owns(const Buffer* buffer) const;

 private:
  Buffer* insert(uint32_t address, uint64_t size, int flags);
  void require_idle(const char* what) const;
  void check_range(const Buffer* buffer, uint64_t offset, uint64_t size, const char* what) const;
  void run_launch();

  Simulator sim_;
  std::map<uint32_t, std::unique_ptr<Buffer>> buffers_;  // by address
  ConsoleMode console_mode_ = ConsoleMode::kSlotPrefix;
  std::string console_text_;
  std::string kernel_name_;  // of the last vx_upload_kernel

  mutable std::mutex mutex_;
  std::condition_variable done_cv_;
  std::thread worker_;
  bool running_ = false;
  Outcome outcome_;
  Counters total_;
  std::vector<Counters> per_core_;
  uint64_t launches_ = 0;
  std::vector<LaunchRecord> launch_log_;
  std::unique_ptr<timing::Vortex2Model> timing_;
  timing::TimingSummary timing_total_;
};

}  // namespace vxsynth::vxsim::host
