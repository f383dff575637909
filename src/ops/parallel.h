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

}  // namespace vxsynth::ops
