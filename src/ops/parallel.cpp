#include "ops/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

namespace vxsynth::ops {

int thread_count(int requested) {
  if (requested > 0) return requested;
  if (const char* env = std::getenv("VXSYNTH_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t)>& task) {
  const int t = static_cast<int>(std::min<std::int64_t>(threads, n));
  if (t <= 1) {
    for (std::int64_t i = 0; i < n; ++i) task(i);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (;;) {
      const std::int64_t i = next.fetch_add(1);
      if (i >= n || failed.load()) return;
      try {
        task(i);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < t; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

void for_each_chunk(std::int64_t n, const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& task) {
  parallel_for(chunk_count(n), n > 2 * kChunkElements ? thread_count() : 1, [&](std::int64_t c) {
    task(c, c * kChunkElements, std::min(n, (c + 1) * kChunkElements));
  });
}

}  // namespace vxsynth::ops
