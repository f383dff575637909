// Faults: every way a simulated run can go wrong ends in a FaultReport, thrown as SimFault
// (a vxsynth::WorkError, so the CLI exits 1). The simulator catches its internal traps in one
// place (the warp loop) and turns them into this report; the host never crashes or hangs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/error.h"

namespace vxsynth::vxsim {

enum class FaultKind {
  kIllegalInstruction,      // no encoding matches the word
  kUnsupportedInstruction,  // a known encoding this simulator does not execute (v3, tensor unit)
  kMisalignedAccess,        // load/store/AMO address not a multiple of its size
  kMisalignedFetch,         // jump or branch to a PC that is not 4-byte aligned
  kUnmappedAccess,          // null page, IO hole, beyond local memory
  kAclViolation,            // store into a host read-only range, or load from a write-only one
  kDivergentBranch,         // lanes of one warp disagree on a branch (no SPLIT around it)
  kIpdomOverflow,           // SPLIT with a full IPDOM stack (capacity threads - 1)
  kIpdomUnderflow,          // JOIN with an empty IPDOM stack
  kBarrierOutOfRange,       // barrier id >= number of barriers
  kInvalidCsr,              // unknown CSR, or a write to a read-only CSR
  kDeadlock,                // every live warp waits (barrier / wspawn) and none can proceed
  kBudgetExhausted,         // Config::max_instructions reached
  kConsoleMisuse,           // console access other than a byte store
};

const char* fault_kind_name(FaultKind kind);  // "divergent_branch", ...

struct FaultReport {
  FaultKind kind = FaultKind::kIllegalInstruction;
  std::string message;          // one line, what went wrong
  uint32_t pc = 0;
  uint32_t core = 0;
  uint32_t warp = 0;
  uint32_t thread_mask = 0;     // active lanes when it happened
  uint32_t instruction = 0;     // the instruction word at pc
  std::string disassembly;      // decoded guess ("beq a0, a1, 0x80000120" / "custom-0 funct7=3 ...")
  std::optional<uint32_t> address;         // memory faults: the offending address
  std::optional<uint32_t> lane;            // memory / per-lane faults: the lane
  std::optional<uint32_t> taken_mask;      // divergent branch: lanes that would take it
  std::optional<uint32_t> not_taken_mask;  // divergent branch: lanes that would fall through
  std::string source_location;  // "kernel.c:42" when the ELF has .debug_line, else empty

  // Multi-line human-readable report (what SimFault::what() returns).
  std::string to_string() const;
};

class SimFault : public WorkError {
 public:
  explicit SimFault(FaultReport report);
  const FaultReport& report() const { return report_; }

 private:
  FaultReport report_;
};

}  // namespace vxsynth::vxsim
