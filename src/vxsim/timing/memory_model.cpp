#include "vxsim/timing/memory_model.h"

#include <algorithm>
#include <bit>

#include "common/error.h"
#include "vxsim/timing/params.h"

namespace vxsynth::vxsim::timing {

FixedLatencyMemory::FixedLatencyMemory(uint32_t banks, uint32_t line, uint32_t latency, uint32_t cycles_per_line)
    : line_(line),
      line_shift_(std::has_single_bit(line) ? static_cast<uint32_t>(std::countr_zero(line)) : 0),
      latency_(latency), cycles_per_line_(std::max<uint32_t>(1, cycles_per_line)), bank_free_(banks, 0) {}

void FixedLatencyMemory::reset() {
  std::fill(bank_free_.begin(), bank_free_.end(), 0);
  stats_ = MemoryStats{};
}

uint64_t FixedLatencyMemory::request(uint64_t cycle, uint64_t addr, bool write) {
  const uint64_t block = line_shift_ != 0 ? addr >> line_shift_ : addr / line_;
  uint64_t& free = bank_free_[block & (bank_free_.size() - 1)];
  const uint64_t start = std::max(cycle, free);
  stats_.bank_stalls += start - cycle;
  free = start + cycles_per_line_;
  stats_.busy_cycles += cycles_per_line_;
  if (write) {
    ++stats_.writes;
    stats_.bytes_written += line_;
    return start + 1;
  }
  ++stats_.reads;
  stats_.bytes_read += line_;
  const uint64_t done = start + latency_;
  stats_.read_latency += done - cycle;
  return done;
}

std::unique_ptr<MemoryModel> make_memory_model(const std::string& name, const TimingParams& p) {
  if (name == "fixed") {
    return std::make_unique<FixedLatencyMemory>(p.mem_banks, p.mem_line, p.mem_latency, p.mem_cycles_per_line);
  }
  throw InputError("timing", "memory model", "unknown memory model '" + name + "' (known: fixed)");
}

}  // namespace vxsynth::vxsim::timing
