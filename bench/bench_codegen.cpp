// Design-space and code-generation speed: how long a search step costs before any compiler
// runs. Seeds are the 15 suite references.
//   build/bench/bench_codegen --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "codegen/emit.h"
#include "design/neighbours.h"
#include "design/seed.h"
#include "design/validity.h"

namespace {

const std::vector<vxsynth::design::DesignPoint>& suite_seeds() {
  static const std::vector<vxsynth::design::DesignPoint> seeds = [] {
    std::vector<vxsynth::design::DesignPoint> out;
    const std::filesystem::path root = std::filesystem::path(VXSYNTH_SOURCE_DIR) / "suite/vx-robotics/h200";
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
      const auto ref = entry.path() / "reference.json";
      if (std::filesystem::is_regular_file(ref)) out.push_back(vxsynth::design::seed_from_reference(ref.string()));
    }
    return out;
  }();
  return seeds;
}

void BM_SeedFromReference(benchmark::State& state) {
  const auto ref = std::filesystem::path(VXSYNTH_SOURCE_DIR) / "suite/vx-robotics/h200/act-1-linear/reference.json";
  for (auto _ : state) benchmark::DoNotOptimize(vxsynth::design::seed_from_reference(ref.string()));
}
BENCHMARK(BM_SeedFromReference)->Unit(benchmark::kMicrosecond);

void BM_Neighbours(benchmark::State& state) {
  std::size_t count = 0;
  for (auto _ : state) {
    for (const auto& d : suite_seeds()) count += vxsynth::design::neighbours(d).size();
  }
  state.counters["neighbours_per_seed"] =
      benchmark::Counter(static_cast<double>(count) / (state.iterations() * suite_seeds().size()));
  state.counters["seeds"] = static_cast<double>(suite_seeds().size());
}
BENCHMARK(BM_Neighbours)->Unit(benchmark::kMicrosecond);

void BM_EmitCuda(benchmark::State& state) {
  for (auto _ : state) {
    for (const auto& d : suite_seeds()) benchmark::DoNotOptimize(vxsynth::codegen::emit_cuda(d));
  }
  state.SetItemsProcessed(state.iterations() * suite_seeds().size());
}
BENCHMARK(BM_EmitCuda)->Unit(benchmark::kMicrosecond);

void BM_EmitVortex(benchmark::State& state) {
  for (auto _ : state) {
    for (const auto& d : suite_seeds()) benchmark::DoNotOptimize(vxsynth::codegen::emit_vortex(d, {}));
  }
  state.SetItemsProcessed(state.iterations() * suite_seeds().size());
}
BENCHMARK(BM_EmitVortex)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
