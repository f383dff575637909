#include "vxsim/timing/cache.h"

#include <algorithm>
#include <bit>

namespace vxsynth::vxsim::timing {

CacheStats& CacheStats::operator+=(const CacheStats& o) {
  reads += o.reads;
  writes += o.writes;
  read_misses += o.read_misses;
  write_misses += o.write_misses;
  bank_stalls += o.bank_stalls;
  bank_wait += o.bank_wait;
  mshr_stalls += o.mshr_stalls;
  mshr_wait += o.mshr_wait;
  banks += o.banks;
  caches += o.caches;
  return *this;
}

Cache::Cache(uint32_t size, uint32_t ways, uint32_t line, uint32_t banks, uint32_t mshrs, uint32_t latency,
             MemLevel* next)
    : line_(line),
      ways_(ways),
      sets_(size / (line * ways)),
      latency_(latency),
      line_bits_(static_cast<uint32_t>(std::countr_zero(line))),
      bank_bits_(static_cast<uint32_t>(std::countr_zero(banks))),
      next_(next),
      tags_(static_cast<size_t>(sets_) * ways, 0),
      lru_(static_cast<size_t>(sets_) * ways, 0),
      bank_free_(banks, 0),
      bank_stalled_until_(banks, 0),
      mshr_line_(mshrs, 0),
      mshr_fill_(mshrs, 0),
      mshr_hash_count_(kHashes, 0) {
  mshr_hash_count_[0] = static_cast<uint16_t>(mshrs);
  mshr_leaves_ = std::bit_ceil(std::max<uint32_t>(1, mshrs));
  mshr_index_bits_ = static_cast<uint32_t>(std::countr_zero(mshr_leaves_));
  mshr_tree_.assign(2 * static_cast<size_t>(mshr_leaves_), 0);
  mshr_rebuild();
  stats_.banks = banks;
  stats_.caches = 1;
}

void Cache::mshr_rebuild() {
  for (uint32_t i = 0; i < mshr_leaves_; ++i) {
    mshr_tree_[mshr_leaves_ + i] = i < mshr_fill_.size() ? mshr_fill_[i] << mshr_index_bits_ | i : ~uint64_t{0};
  }
  for (uint32_t n = mshr_leaves_ - 1; n >= 1; --n) mshr_tree_[n] = std::min(mshr_tree_[2 * n], mshr_tree_[2 * n + 1]);
}

void Cache::mshr_set(uint32_t i, uint64_t fill) {
  mshr_fill_[i] = fill;
  // Up the path from the leaf, carrying the path's key in a register: each level then waits
  // only for a compare, not for the key stored one level below (every miss of a memory-bound
  // kernel comes through here, in one dependency chain with the next request).
  uint64_t cur = fill << mshr_index_bits_ | i;
  uint32_t n = mshr_leaves_ + i;
  mshr_tree_[n] = cur;
  for (; n > 1; n /= 2) {
    cur = std::min(cur, mshr_tree_[n ^ 1]);
    mshr_tree_[n / 2] = cur;
  }
}

void Cache::reset() {
  std::fill(tags_.begin(), tags_.end(), 0);
  std::fill(lru_.begin(), lru_.end(), 0);
  std::fill(bank_free_.begin(), bank_free_.end(), 0);
  std::fill(bank_stalled_until_.begin(), bank_stalled_until_.end(), 0);
  mshr_stalled_until_ = 0;
  std::fill(mshr_line_.begin(), mshr_line_.end(), 0);
  std::fill(mshr_fill_.begin(), mshr_fill_.end(), 0);
  std::fill(mshr_hash_count_.begin(), mshr_hash_count_.end(), 0);
  mshr_hash_count_[0] = static_cast<uint16_t>(mshr_line_.size());
  mshr_rebuild();
  stamp_ = 0;
  stats_ = CacheStats{};
  stats_.banks = static_cast<uint32_t>(bank_free_.size());
  stats_.caches = 1;
}

uint64_t Cache::request(uint64_t cycle, uint64_t addr, bool write) { return access(cycle, addr, write); }

uint64_t Cache::request_lines(uint64_t cycle, const uint32_t* addrs, uint32_t n, bool write) {
  uint64_t last = 0;
  for (uint32_t i = 0; i < n; ++i) last = std::max(last, access(cycle, addrs[i], write));
  return last;
}

// Inlined into both callers (request_lines is the hot one).
[[gnu::always_inline]] inline uint64_t Cache::access(uint64_t cycle, uint64_t addr, bool write) {
  const uint64_t line = addr >> line_bits_;
  const size_t bank_index = line & (bank_free_.size() - 1);
  uint64_t& bank = bank_free_[bank_index];
  uint64_t t = std::max(cycle, bank);
  count_wait(cycle, t, bank_stalled_until_[bank_index], stats_.bank_stalls, stats_.bank_wait);
  bank = t + 1;
  const uint32_t set = static_cast<uint32_t>((line >> bank_bits_) & (sets_ - 1));
  uint32_t* tags = &tags_[static_cast<size_t>(set) * ways_];
  uint64_t* lru = &lru_[static_cast<size_t>(set) * ways_];
  const uint32_t key = static_cast<uint32_t>(line) + 1;
  uint32_t way = ways_;
  for (uint32_t w = 0; w < ways_; ++w) {
    if (tags[w] == key) way = w;
  }
  if (write) {
    // Write-through, no write allocation: the word goes on to the next level either way.
    ++stats_.writes;
    if (way != ways_) {
      lru[way] = ++stamp_;
    } else {
      ++stats_.write_misses;
    }
    // The bank holds the write until the next level takes it (a full memory queue stalls the
    // bank, and the requester behind it).
    const uint64_t taken = next_->request(t + latency_, addr, true);
    const uint64_t out = std::max(t + 1, taken - std::min<uint64_t>(taken, latency_));
    bank = out;
    // To the requester: the cycle after it asked, plus what the next level made it wait (a
    // store instruction's lanes going through one bank in turn do not hold the LSU).
    return cycle + 1 + (out - (t + 1));
  }
  ++stats_.reads;
  // A miss to a line still being filled waits for that fill (the MSHR merges it).
  const size_t nmshr = mshr_line_.size();
  if (mshr_hash_count_[mshr_hash(key)] != 0) {
    for (size_t i = 0; i < nmshr; ++i) {
      if (mshr_line_[i] == key && mshr_fill_[i] > t) {
        ++stats_.read_misses;
        return mshr_fill_[i] + latency_;
      }
    }
  }
  if (way != ways_) {
    lru[way] = ++stamp_;
    return t + latency_;
  }
  ++stats_.read_misses;
  // A free MSHR (the first whose fill is over), else wait for the earliest one (the first of
  // equals).
  const uint64_t earliest = mshr_tree_[1] >> mshr_index_bits_;
  uint32_t slot;
  if (earliest <= t) {
    // The leftmost leaf whose fill is over: descend into the left subtree whenever its
    // earliest fill is.
    uint32_t n = 1;
    while (n < mshr_leaves_) n = (mshr_tree_[2 * n] >> mshr_index_bits_) <= t ? 2 * n : 2 * n + 1;
    slot = n - mshr_leaves_;
  } else {
    slot = static_cast<uint32_t>(mshr_tree_[1] & (mshr_leaves_ - 1));
    count_wait(t, earliest, mshr_stalled_until_, stats_.mshr_stalls, stats_.mshr_wait);
    t = earliest;
  }
  const uint64_t fill = next_->request(t + latency_, addr, false);
  --mshr_hash_count_[mshr_hash(mshr_line_[slot])];
  ++mshr_hash_count_[mshr_hash(key)];
  mshr_line_[slot] = key;
  mshr_set(slot, fill);
  // Install now (the MSHR check above covers the window until the fill arrives).
  uint32_t victim = 0;
  for (uint32_t w = 1; w < ways_; ++w) {
    if (tags[w] == 0 || (tags[victim] != 0 && lru[w] < lru[victim])) victim = w;
    if (tags[victim] == 0) break;
  }
  tags[victim] = key;
  lru[victim] = ++stamp_;
  return fill + latency_;
}

}  // namespace vxsynth::vxsim::timing
