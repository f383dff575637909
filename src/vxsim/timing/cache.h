// A set-associative, banked, non-blocking cache for the timing model (Vortex's cache: LRU,
// write-through without write allocation, MSHRs merging misses to a pending line).
#pragma once

#include <cstdint>
#include <vector>

#include "vxsim/timing/memory_model.h"

namespace vxsynth::vxsim::timing {

struct CacheStats {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t read_misses = 0;
  uint64_t write_misses = 0;
  uint64_t bank_stalls = 0;  // bank-cycles with a request waiting for its busy bank (<= cycles * banks)
  uint64_t bank_wait = 0;    // the same waits summed over requests
  uint64_t mshr_stalls = 0;  // cycles with a miss waiting for a free MSHR (<= cycles)
  uint64_t mshr_wait = 0;    // the same waits summed over misses
  uint32_t banks = 0;        // of the caches summed here
  uint32_t caches = 0;
  CacheStats& operator+=(const CacheStats& o);
};

class Cache final : public MemLevel {
 public:
  Cache(uint32_t size, uint32_t ways, uint32_t line, uint32_t banks, uint32_t mshrs, uint32_t latency, MemLevel* next);
  uint64_t request(uint64_t cycle, uint64_t addr, bool write) override;
  // `n` line requests at the same cycle, in this order, each as request() takes it; the latest
  // response (an LSU instruction's blocks in one call: a memory-bound kernel sends dozens per
  // instruction).
  uint64_t request_lines(uint64_t cycle, const uint32_t* addrs, uint32_t n, bool write);
  const CacheStats& stats() const { return stats_; }
  void reset();
  uint32_t line() const { return line_; }

 private:
  uint32_t line_, ways_, sets_, latency_;
  uint32_t line_bits_;
  uint32_t bank_bits_;  // banks are a power of two (a shift, not a 64-bit division per request)
  MemLevel* next_;
  std::vector<uint32_t> tags_;   // sets * ways: line number + 1, 0 = invalid
  std::vector<uint64_t> lru_;    // last use stamp
  std::vector<uint64_t> bank_free_;
  std::vector<uint64_t> bank_stalled_until_;  // count_wait's `until` per bank
  uint64_t mshr_stalled_until_ = 0;
  // MSHRs: the line each one fills (line number + 1) and the cycle the line arrives; split
  // into two arrays, and with a count of entries per line hash so a miss to a line no MSHR
  // holds skips the merge scan (every request checks for a merge).
  std::vector<uint32_t> mshr_line_;
  std::vector<uint64_t> mshr_fill_;
  static constexpr uint32_t kHashes = 256;
  // Multiplicative (Fibonacci) hashing: the lines of one warp access are often a power of two
  // apart (a row stride), which `line % kHashes` maps onto a few buckets.
  static uint32_t mshr_hash(uint32_t key) { return (key * 0x9E3779B1u) >> 24; }
  std::vector<uint16_t> mshr_hash_count_;
  // A tournament tree over the MSHRs' fill cycles (leaves mshr_leaves_ .. 2 * mshr_leaves_ - 1,
  // padded with never-free entries): each node holds its subtree's earliest fill as one key,
  // fill << mshr_index_bits_ | index, so integer order is fill order with the lower index
  // first among equals, and padding is ~0 (fills stay far below 2^(64 - index bits)). Finds
  // the first free MSHR or the earliest-filling one in log2(MSHRs) steps where a scan took
  // MSHRs (a memory-bound kernel misses on every request).
  uint32_t mshr_leaves_ = 1;
  uint32_t mshr_index_bits_ = 0;
  std::vector<uint64_t> mshr_tree_;
  uint64_t access(uint64_t cycle, uint64_t addr, bool write);
  void mshr_set(uint32_t i, uint64_t fill);
  void mshr_rebuild();
  uint64_t stamp_ = 0;
  CacheStats stats_;
};

}  // namespace vxsynth::vxsim::timing
