#include "vxsim/timing/memory_model.h"

#include <algorithm>
#include <bit>

#include "common/error.h"
#include "vxsim/timing/params.h"

namespace vxsynth::vxsim::timing {

namespace {
uint32_t log2_of(uint32_t v) { return static_cast<uint32_t>(std::countr_zero(std::max<uint32_t>(1, v))); }
}  // namespace

FixedLatencyMemory::FixedLatencyMemory(const Shape& shape)
    : shape_(shape),
      line_shift_(std::has_single_bit(shape.line) ? static_cast<uint32_t>(std::countr_zero(shape.line)) : 0),
      channel_bits_(log2_of(shape.channels)),
      row_bits_(log2_of(shape.row_lines)),
      dram_bank_bits_(log2_of(shape.dram_banks)) {
  shape_.cycles_per_line = std::max<uint32_t>(1, shape_.cycles_per_line);
  channels_.resize(std::max<uint32_t>(1, shape_.channels));
  reset();
}

void FixedLatencyMemory::reset() {
  for (Channel& c : channels_) c = Channel{};
  bank_ready_.assign(channels_.size() << dram_bank_bits_, 0);
  open_row_.assign(channels_.size() << dram_bank_bits_, 0);
  starts_.assign(channels_.size() * shape_.queue, 0);
  stats_ = MemoryStats{};
}

uint64_t FixedLatencyMemory::request(uint64_t cycle, uint64_t addr, bool write) {
  const uint64_t block = line_shift_ != 0 ? addr >> line_shift_ : addr / shape_.line;
  const size_t channel = block & (channels_.size() - 1);
  Channel& ch = channels_[channel];
  // Within the channel: the line's column in its row, then the DRAM bank, then the row.
  const uint64_t in_channel = block >> channel_bits_;
  const uint64_t bank_row = in_channel >> row_bits_;
  const size_t bank = (channel << dram_bank_bits_) | (bank_row & ((uint64_t{1} << dram_bank_bits_) - 1));
  const uint64_t row = (bank_row >> dram_bank_bits_) + 1;
  // Room in the channel's queue: the request `queue` places ahead must have started.
  uint64_t accept = cycle;
  uint64_t* queue_slot = shape_.queue != 0 ? &starts_[channel * shape_.queue + ch.head] : nullptr;
  if (queue_slot != nullptr) {
    accept = std::max(accept, *queue_slot);
    count_wait(cycle, accept, ch.queue_stalled_until, stats_.queue_stalls, stats_.queue_wait);
  }
  uint64_t start;
  if (open_row_[bank] == row) {
    start = std::max({accept, ch.bus_free, bank_ready_[bank]});
  } else {
    // With the row model off (no row-miss cycles) no row is ever missed.
    if (shape_.row_miss_cycles != 0) ++stats_.row_misses;
    open_row_[bank] = row;
    start = std::max(std::max(accept, bank_ready_[bank]) + shape_.row_miss_cycles, ch.bus_free);
  }
  count_wait(accept, start, ch.bank_stalled_until, stats_.bank_stalls, stats_.bank_wait);
  ch.bus_free = start + shape_.cycles_per_line;
  bank_ready_[bank] = ch.bus_free;
  stats_.busy_cycles += shape_.cycles_per_line;
  if (queue_slot != nullptr) {
    *queue_slot = start;
    ch.head = ch.head + 1 == shape_.queue ? 0 : ch.head + 1;
  }
  if (write) {
    ++stats_.writes;
    stats_.bytes_written += shape_.line;
    return std::max(cycle + 1, accept);
  }
  ++stats_.reads;
  stats_.bytes_read += shape_.line;
  // `latency` is the unloaded request-to-response time (opening a row included); under load a
  // response cannot come before its data has crossed the bus.
  const uint64_t done = std::max(accept + shape_.latency, start + shape_.cycles_per_line);
  stats_.read_latency += done - cycle;
  return done;
}

std::unique_ptr<MemoryModel> make_memory_model(const std::string& name, const TimingParams& p) {
  if (name == "fixed") {
    FixedLatencyMemory::Shape shape;
    shape.channels = p.mem_banks;
    shape.line = p.mem_line;
    shape.latency = p.mem_latency;
    shape.cycles_per_line = p.mem_cycles_per_line;
    shape.dram_banks = p.mem_dram_banks;
    shape.row_lines = p.mem_row_lines;
    shape.row_miss_cycles = p.mem_row_miss_cycles;
    shape.queue = p.mem_queue;
    return std::make_unique<FixedLatencyMemory>(shape);
  }
  throw InputError("timing", "memory model", "unknown memory model '" + name + "' (known: fixed)");
}

}  // namespace vxsynth::vxsim::timing
