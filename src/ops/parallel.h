// A small thread pool helper for the host-side work on large tensors (CPU references, input
// generation, output comparison): results never depend on the thread count.
#pragma once

#include <cstdint>
#include <functional>

namespace vxsynth::ops {

// `requested` > 0, else $VXSYNTH_THREADS when set, else std::thread::hardware_concurrency().
int thread_count(int requested = 0);

// Runs task(i) for i in [0, n) on up to `threads` threads (dynamic assignment); the first
// exception a task throws is rethrown here after every thread has stopped.
void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& task);

// Elements of one pass over a large tensor a chunk holds. Fixed, so a pass split in chunks gives
// the same result on any number of threads.
inline constexpr std::int64_t kChunkElements = std::int64_t{1} << 18;

// How many chunks a pass over n elements has: at least 1 (an empty tensor has one, empty, chunk).
inline std::int64_t chunk_count(std::int64_t n) { return n <= kChunkElements ? 1 : (n + kChunkElements - 1) / kChunkElements; }

// Runs task(chunk, begin, end) for the chunk_count(n) chunks of [0, n), on every core when there
// are more than two (else on this thread).
void for_each_chunk(std::int64_t n, const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& task);

}  // namespace vxsynth::ops
