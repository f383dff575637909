#include "vxsim/trace.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "vxsim/decode.h"

namespace vxsynth::vxsim {

void TraceWriter::on_instruction(const ExecutedInstruction& r) {
  ++seen_;
  if (limit_ != 0 && seen_ > limit_) return;
  char head[64];
  std::snprintf(head, sizeof head, "c%u w%u %08x m%08x  ", r.core, r.warp, r.pc, r.thread_mask);
  out_ << head << disassemble(r.word, r.pc);
  if (r.is_memory) {
    out_ << "  [";
    bool first = true;
    for (uint32_t m = r.thread_mask; m != 0; m &= m - 1) {
      char addr[16];
      std::snprintf(addr, sizeof addr, "%s0x%x", first ? "" : " ", r.addresses[std::countr_zero(m)]);
      out_ << addr;
      first = false;
    }
    out_ << "]";
  }
  out_ << '\n';
}

void PcProfile::on_instruction(const ExecutedInstruction& r) {
  Entry& e = by_pc_[r.pc];
  e.pc = r.pc;
  e.word = r.word;
  ++e.warp_instructions;
  e.thread_instructions += static_cast<uint64_t>(std::popcount(r.thread_mask));
}

std::vector<PcProfile::Entry> PcProfile::hottest(size_t n) const {
  std::vector<Entry> all;
  all.reserve(by_pc_.size());
  for (const auto& [pc, e] : by_pc_) all.push_back(e);
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
    return a.thread_instructions != b.thread_instructions ? a.thread_instructions > b.thread_instructions : a.pc < b.pc;
  });
  if (all.size() > n) all.resize(n);
  return all;
}

}  // namespace vxsynth::vxsim
