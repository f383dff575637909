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

struct MemoryStats {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t read_latency = 0;  // summed request-to-response cycles of reads
  uint64_t bank_stalls = 0;   // cycles requests waited for a busy bank
  uint64_t busy_cycles = 0;   // summed bank occupancy (utilisation = busy / (banks * cycles))
};

class MemoryModel : public MemLevel {
 public:
  virtual const MemoryStats& stats() const = 0;
  virtual void reset() = 0;
  virtual std::string name() const = 0;
  virtual uint32_t banks() const = 0;
};

// Banks interleaved by line; each bank serves one line per `cycles_per_line`, and a read
// returns `latency` cycles after its bank took it.
class FixedLatencyMemory : public MemoryModel {
 public:
  FixedLatencyMemory(uint32_t banks, uint32_t line, uint32_t latency, uint32_t cycles_per_line);
  uint64_t request(uint64_t cycle, uint64_t addr, bool write) override;
  const MemoryStats& stats() const override { return stats_; }
  void reset() override;
  std::string name() const override { return "fixed"; }
  uint32_t banks() const override { return static_cast<uint32_t>(bank_free_.size()); }

 private:
  uint32_t line_;
  uint32_t line_shift_;  // log2(line_) when line_ is a power of two, else 0 (divide)
  uint32_t latency_;
  uint32_t cycles_per_line_;
  std::vector<uint64_t> bank_free_;
  MemoryStats stats_;
};

// The memory model named by `name` ("fixed"), built from the parameters.
std::unique_ptr<MemoryModel> make_memory_model(const std::string& name, const TimingParams& params);

}  // namespace vxsynth::vxsim::timing
