// The levels of the memory hierarchy behind the L1 caches, as seen by the timing model: a
// request for one line at a cycle gives the cycle its response is ready. Requests arrive in
// (nearly) increasing cycle order. MemoryModel is the small interface another DRAM model
// (e.g. a Ramulator-2 style one) plugs in behind; FixedLatencyMemory is the default.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vxsynth::vxsim::timing {

struct TimingParams;

class MemLevel {
 public:
  virtual ~MemLevel() = default;
  // A read (the response cycle) or a write (the cycle it is accepted) of the line at `addr`.
  virtual uint64_t request(uint64_t cycle, uint64_t addr, bool write) = 0;
};

// Two measures of waiting, kept apart (docs/vxsim-timing.md, "Counters and output"):
//   *_stalls  cycles of one unit (a bank, a channel, a cache's MSHRs) in which at least one
//             request waited for it: at most the run's cycles per unit;
//   *_wait    cycles waited, summed over the requests: grows with how many wait at once
//             (wait / requests is the mean wait).
// count_wait adds a request's wait [from, to) to both, `until` being the end of the unit's
// counted stall cycles (requests arrive in nearly increasing cycle order; an earlier part of a
// late arrival's wait that falls before `until` is taken as counted).
inline void count_wait(uint64_t from, uint64_t to, uint64_t& until, uint64_t& stalls, uint64_t& wait) {
  if (to <= from) return;
  wait += to - from;
  const uint64_t begin = from > until ? from : until;
  if (to > begin) stalls += to - begin;
  if (to > until) until = to;
}

struct MemoryStats {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t read_latency = 0;  // summed request-to-response cycles of reads
  uint64_t bank_stalls = 0;   // channel-cycles with a request waiting for its bank or bus (<= cycles * channels)
  uint64_t bank_wait = 0;     // the same waits summed over requests
  uint64_t busy_cycles = 0;   // summed bank occupancy (utilisation = busy / (banks * cycles))
  uint64_t row_misses = 0;    // requests whose DRAM bank had another row open (or none); 0 with the row model off
  uint64_t queue_stalls = 0;  // channel-cycles with a request waiting for room in its full queue
  uint64_t queue_wait = 0;    // the same waits summed over requests
};

class MemoryModel : public MemLevel {
 public:
  virtual const MemoryStats& stats() const = 0;
  virtual void reset() = 0;
  virtual std::string name() const = 0;
  virtual uint32_t banks() const = 0;
};

// Channels ("banks", Vortex's PLATFORM_MEMORY_NUM_BANKS) interleaved by line, each a DRAM
// channel with `dram_banks` banks that keep one row open (rows of `row_lines` lines of the
// channel). A request whose row is open uses the channel's data bus for `cycles_per_line`; one
// whose bank has another row open first waits `row_miss_cycles` for its bank (precharge and
// activate: banks overlap these, the bus does not), so scattered lines cost far more than a
// stream, as in SimX's HBM2 behind Ramulator 2. Requests are served in arrival order per
// channel; at most `queue` of them wait in a channel (0: no limit): a further request, read or
// write, is accepted only when the oldest waiting one starts, and a write's result is that
// acceptance cycle, so a writer behind a full queue waits. A read returns `latency` cycles
// after its data left the bus. With dram_banks = 1, row_miss_cycles = 0 and queue = 0 this is
// a plain latency-and-bandwidth model.
class FixedLatencyMemory : public MemoryModel {
 public:
  struct Shape {
    uint32_t channels = 2, line = 64, latency = 60, cycles_per_line = 2;
    uint32_t dram_banks = 1, row_lines = 32, row_miss_cycles = 0, queue = 0;
  };
  explicit FixedLatencyMemory(const Shape& shape);
  FixedLatencyMemory(uint32_t banks, uint32_t line, uint32_t latency, uint32_t cycles_per_line)
      : FixedLatencyMemory(Shape{banks, line, latency, cycles_per_line}) {}
  uint64_t request(uint64_t cycle, uint64_t addr, bool write) override;
  const MemoryStats& stats() const override { return stats_; }
  void reset() override;
  std::string name() const override { return "fixed"; }
  uint32_t banks() const override { return shape_.channels; }

 private:
  // Per channel: its bus and the head of its queue ring; the DRAM banks' state and the queue
  // rings are flat arrays indexed by channel (one indexed load each on the per-line path,
  // where vectors per channel cost a dependent load of the vector first).
  struct Channel {
    uint64_t bus_free = 0;
    uint64_t bank_stalled_until = 0, queue_stalled_until = 0;  // count_wait's `until` per measure
    uint32_t head = 0;
  };
  Shape shape_;
  uint32_t line_shift_;  // log2(line) when line is a power of two, else 0 (divide)
  uint32_t channel_bits_, row_bits_, dram_bank_bits_;
  std::vector<Channel> channels_;
  std::vector<uint64_t> bank_ready_;  // [channel << dram_bank_bits_ | bank]: cycle it can serve a column access
  std::vector<uint64_t> open_row_;    // same index: row number + 1, 0 = none
  std::vector<uint64_t> starts_;      // [channel * queue + i]: ring of the last `queue` requests' start cycles
  MemoryStats stats_;
};

// The memory model named by `name` ("fixed"), built from the parameters.
std::unique_ptr<MemoryModel> make_memory_model(const std::string& name, const TimingParams& params);

}  // namespace vxsynth::vxsim::timing
