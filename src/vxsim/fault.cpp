#include "vxsim/fault.h"

#include <cstdio>

namespace vxsynth::vxsim {

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kIllegalInstruction: return "illegal_instruction";
    case FaultKind::kUnsupportedInstruction: return "unsupported_instruction";
    case FaultKind::kMisalignedAccess: return "misaligned_access";
    case FaultKind::kMisalignedFetch: return "misaligned_fetch";
    case FaultKind::kUnmappedAccess: return "unmapped_access";
    case FaultKind::kAclViolation: return "acl_violation";
    case FaultKind::kDivergentBranch: return "divergent_branch";
    case FaultKind::kIpdomOverflow: return "ipdom_overflow";
    case FaultKind::kIpdomUnderflow: return "ipdom_underflow";
    case FaultKind::kBarrierOutOfRange: return "barrier_out_of_range";
    case FaultKind::kInvalidCsr: return "invalid_csr";
    case FaultKind::kDeadlock: return "deadlock";
    case FaultKind::kBudgetExhausted: return "budget_exhausted";
    case FaultKind::kConsoleMisuse: return "console_misuse";
  }
  return "unknown";
}

namespace {
std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}
}  // namespace

std::string FaultReport::to_string() const {
  std::string s = "vxsim fault (" + std::string(fault_kind_name(kind)) + "): " + message + "\n";
  s += "  at pc " + hex(pc) + " core " + std::to_string(core) + " warp " + std::to_string(warp) + " thread mask " +
       hex(thread_mask) + "\n";
  s += "  instruction " + hex(instruction) + "  " + disassembly + "\n";
  if (address) s += "  address " + hex(*address) + "\n";
  if (lane) s += "  lane " + std::to_string(*lane) + "\n";
  if (taken_mask) s += "  lanes taking the branch " + hex(*taken_mask) + ", not taking " + hex(not_taken_mask.value_or(0)) + "\n";
  if (!source_location.empty()) s += "  source " + source_location + "\n";
  return s;
}

SimFault::SimFault(FaultReport report) : WorkError(report.to_string()), report_(std::move(report)) {}

}  // namespace vxsynth::vxsim
