// vxsim: a functional simulator of a Vortex 2.x GPGPU (RV32IMAF + Zicsr + Zicond + A + the
// Vortex custom-0 instructions), following vortex-isa.md. See docs/vxsim.md.
//
// Typical use (what the host runtime does):
//   vxsim::Simulator sim(config);                      // InputError on a bad config
//   sim.memory().write(buf_addr, data, size);          // inputs
//   sim.memory().set_access(buf_addr, size, vxsim::Access::kRead);
//   vxsim::ProgramInfo prog = sim.load_program("kernel.elf");  // also sets STARTUP_ADDR
//   sim.write_dcr(vxsim::kDcrStartupArg0, arg_addr);
//   vxsim::RunResult r = sim.run();                    // SimFault (a WorkError) on a fault
//   sim.memory().read(out_addr, host, size);  sim.counters();  sim.console_text();
//
// Thread safety: one Simulator is used by one thread at a time; separate Simulators may run
// in parallel threads (no shared mutable state; the host FP environment is per thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vxsim/config.h"
#include "vxsim/counters.h"
#include "vxsim/fault.h"
#include <VX_types.h>

#include "vxsim/memory.h"
#include "vxsim/program.h"
#include "vxsim/trace.h"

namespace vxsynth::vxsim {

// Vortex 2.x DCR addresses, from vortex-rt's VX_types.h.
inline constexpr uint32_t kDcrStartupAddr0 = VX_DCR_BASE_STARTUP_ADDR0;
inline constexpr uint32_t kDcrStartupAddr1 = VX_DCR_BASE_STARTUP_ADDR1;  // high half; must stay 0 on RV32
inline constexpr uint32_t kDcrStartupArg0 = VX_DCR_BASE_STARTUP_ARG0;    // MSCRATCH at reset
inline constexpr uint32_t kDcrStartupArg1 = VX_DCR_BASE_STARTUP_ARG1;
inline constexpr uint32_t kDcrMpmClass = VX_DCR_BASE_MPM_CLASS;  // 0 none, 1 core, 2 memory (recorded only)

struct ConsoleLine {
  uint32_t slot = 0;  // hart id % 64
  std::string text;   // without the trailing newline
  uint32_t core = 0;  // the core whose hart printed it: each core has its own console slots
};

// The line's prefix: Vortex's "#SLOT" on one core; "#CORE.SLOT" when there are several, since
// slot numbers repeat on every core.
std::string console_label(const ConsoleLine& line, uint32_t cores);

struct RunResult {
  // The first non-zero word a core stored to the IO exit slot 0x88 during this run, else 0
  // (every core stores its code at exit, as in Vortex; a failure on any core is kept).
  int32_t exit_code = 0;
  bool stopped_by_ecall = false;  // ECALL/EBREAK ended the run (SimX: deactivates all warps)
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
};

class Core;  // internal

class Simulator {
 public:
  explicit Simulator(const Config& config = Config{});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const Config& config() const { return config_; }
  Memory& memory() { return memory_; }
  const Memory& memory() const { return memory_; }

  // Loads a program into global memory, records its line table for fault reports, drops the
  // decoded-instruction cache and sets DCR STARTUP_ADDR to the entry point.
  // ACLs (when apply_acl): ELF segments without the W flag read-only, others read-write;
  // .vxbin as Vortex's vx_upload_kernel_bytes: the file image read-only, the rest of
  // [min_vma, max_vma) read-write. InputError on a malformed file.
  ProgramInfo load_program(const std::string& path, bool apply_acl = true);
  ProgramInfo load_program_bytes(std::span<const uint8_t> bytes, const std::string& name, bool apply_acl = true);
  // Line information from an ELF whose code is already loaded (e.g. the ELF behind a .vxbin).
  void load_line_info(const std::string& elf_path);

  // DCRs. Unknown addresses are InputError.
  void write_dcr(uint32_t addr, uint32_t value);
  uint32_t read_dcr(uint32_t addr) const;

  // Runs from STARTUP_ADDR: warp 0 / thread 0 of every core starts, MSCRATCH = STARTUP_ARG,
  // until no warp is active on any core. Throws SimFault on a fault (counters, console and
  // memory stay readable). A second run() starts again from reset, keeping memory.
  RunResult run();

  // Console: complete lines go to the callback as they are written (and are always
  // collected); a partial line is flushed at the end of the run.
  void set_console_callback(std::function<void(const ConsoleLine&)> callback);
  const std::vector<ConsoleLine>& console_lines() const { return console_lines_; }
  std::string console_text() const;  // all lines, each ending in '\n'

  // Counters of the last run (reset by run()).
  const Counters& counters() const { return total_counters_; }
  const std::vector<Counters>& core_counters() const { return core_counters_; }
  Json counters_json() const;
  // The run's vx_spawn_threads regions (SpawnRegion), by index, then core.
  const std::vector<SpawnRegion>& spawn_regions() const { return spawn_regions_; }

  // Local memory of one core (host view, for tests and tools).
  std::span<uint8_t> local_memory(uint32_t core);
  // The IO block [0, 0x10000) as the last run left it: MPM words the kernel stored at
  // 0x80 + 256 * core (its counters, stored at exit) and the exit code at 0x88. Like
  // Vortex's memory it keeps its content from run to run.
  std::span<const uint8_t> io_block() const;
  // Host writes into the IO block (a buffer vx_mem_reserve placed there, as SimX allows).
  // InputError outside [0x80, 0x10000).
  void write_io(uint32_t addr, const void* data, size_t size);
  // Lets kernels load and store [0x80, end) of the IO block; by default they may use the
  // counter blocks of the configured cores only.
  void map_io(uint32_t end);

  // True when, in the last run, a kernel read its argument pointer (MSCRATCH, with a plain
  // csr_read) and got 0: it expected a host program to pass arguments.
  bool argument_pointer_read_as_null() const;

  // Timing-model seam: receives every executed warp instruction (null = off).
  void set_instruction_consumer(InstructionConsumer* consumer) { consumer_ = consumer; }

  // Drops all decoded instructions (done automatically on load and on host writes).
  void invalidate_decoded();

  // Disassembles one instruction word (the same decoder the simulator uses).
  static std::string disassemble(uint32_t word, uint32_t pc = 0);

 private:
  friend class Core;
  void console_put(uint32_t core, uint32_t slot, uint8_t ch);
  void note_exit_store();  // a kernel store touched the exit slot
  uint32_t io_end() const { return io_end_; }
  void flush_console();
  ProgramInfo install(ProgramImage image, bool apply_acl);

  Config config_;
  Memory memory_;
  uint32_t startup_addr_ = kStartupAddr;
  uint32_t startup_arg_ = 0;
  uint32_t mpm_class_ = 0;
  uint32_t io_end_ = 0;           // kernels may access [kIoMpmAddr, io_end_)
  int32_t run_exit_code_ = 0;     // first non-zero exit code of the current run
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<std::string> console_partial_;  // per core and slot: cores' lines never mix
  std::vector<ConsoleLine> console_lines_;
  std::function<void(const ConsoleLine&)> console_callback_;
  Counters total_counters_;
  std::vector<Counters> core_counters_;
  std::vector<SpawnRegion> spawn_regions_;
  InstructionConsumer* consumer_ = nullptr;
  struct Internals;
  std::unique_ptr<Internals> internals_;  // decoded-instruction cache, line table, IO block
};

}  // namespace vxsynth::vxsim
