// vxsim with the vortex2 timing model: simulation speed in thread-instructions per second (the
// target is 20 M per host core) against the functional mode on the same kernels, and the
// modelled cycles. Kernels: the vortex-rt sgemm_tiled example (n = 128, one core) at 4x4 and
// 8x32 threads, and the probe bench/timing_kernels/probes/ld_scatter.cpp at 16 warps of 32
// threads (every lane loads its own line and misses: the memory-bound shape of the locked
// suite's pi0-2-linear, whose time goes to the data cache's MSHRs, memory and the LSU).
//   build/bench/bench_vxsim_timing --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vxsim/simulator.h"
#include "vxsim/timing/vortex2.h"
#include "vxsim_bench_util.h"

namespace {

using namespace vxsynth::vxsim;

constexpr uint32_t kArgs = 0x00010000, kA = 0x00100000;

void BM_TimingSgemmTiled(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  const bool timed = state.range(4) != 0;
  const uint32_t tile = static_cast<uint32_t>(state.range(3));
  const std::string& kernel = vxsynth::bench::example_kernel_vxbin("sgemm_tiled");
  if (kernel.empty()) {
    state.SkipWithError("vortex-rt sgemm_tiled could not be built");
    return;
  }
  Config cfg;
  cfg.threads = static_cast<uint32_t>(state.range(1));
  cfg.warps = static_cast<uint32_t>(state.range(2));
  Simulator sim(cfg);
  timing::Vortex2Model model{timing::TimingParams{}};
  if (timed) sim.set_instruction_consumer(&model);
  sim.load_program(kernel);
  const uint32_t bytes = n * n * 4;
  std::vector<float> a(n * n), b(n * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  sim.memory().write(kA, a.data(), bytes);
  sim.memory().write(kA + bytes, b.data(), bytes);
  struct {
    uint32_t grid_dim[2], block_dim[2], size, tile_size;
    uint64_t a, b, c;
  } args{{n / tile, n / tile}, {tile, tile}, n, tile, kA, kA + bytes, kA + 2 * bytes};
  sim.memory().write(kArgs, &args, sizeof args);
  sim.write_dcr(kDcrStartupArg0, kArgs);
  uint64_t thread_instructions = 0;
  const double cpu0 = vxsynth::bench::thread_cpu_seconds();
  for (auto _ : state) {
    const RunResult r = sim.run();
    if (r.exit_code != 0) {
      state.SkipWithError("kernel exit code not 0");
      return;
    }
    thread_instructions += r.thread_instructions;
  }
  const double cpu = vxsynth::bench::thread_cpu_seconds() - cpu0;
  // Check one output element against the CPU (the run is deterministic).
  float c00 = 0;
  sim.memory().read(kA + 2 * bytes, &c00, 4);
  double ref = 0;
  for (uint32_t k = 0; k < n; ++k) ref += double(a[k]) * b[k * n];
  if (std::abs(c00 - ref) > 1e-3) {
    state.SkipWithError("wrong SGEMM result");
    return;
  }
  state.counters["thread_instr_per_s"] = benchmark::Counter(static_cast<double>(thread_instructions), benchmark::Counter::kIsRate);
  state.counters["thread_instr_per_cpu_s"] = static_cast<double>(thread_instructions) / cpu;
  state.counters["thread_instr"] = static_cast<double>(sim.counters().thread_instructions);
  if (timed) {
    state.counters["cycles"] = static_cast<double>(model.cycles());
    state.counters["ipc"] = model.summary().total.ipc();
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Args: n, threads per warp, warps, tile, timing (0 functional, 1 vortex2).
BENCHMARK(BM_TimingSgemmTiled)
    ->Args({128, 4, 4, 4, 1})
    ->Args({128, 4, 4, 4, 0})
    ->Args({128, 32, 8, 16, 1})
    ->Args({128, 32, 8, 16, 0})
    ->ArgNames({"n", "threads", "warps", "tile", "timing"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// Every lane of every warp loads its own 64-byte line (512 loads per thread): each warp load
// sends 32 misses through the data cache's MSHRs to memory.
void BM_TimingScatterLoads(benchmark::State& state) {
  const bool timed = state.range(0) != 0;
  const std::string& kernel = vxsynth::bench::source_kernel_vxbin("bench/timing_kernels/probes/ld_scatter.cpp");
  if (kernel.empty()) {
    state.SkipWithError("bench/timing_kernels/probes/ld_scatter.cpp could not be built");
    return;
  }
  Config cfg;
  cfg.threads = 32;
  cfg.warps = 16;
  Simulator sim(cfg);
  timing::Vortex2Model model{timing::TimingParams{}};
  if (timed) sim.set_instruction_consumer(&model);
  sim.load_program(kernel);
  uint64_t thread_instructions = 0, cycles = 0;
  const double cpu0 = vxsynth::bench::thread_cpu_seconds();
  for (auto _ : state) {
    const RunResult r = sim.run();
    if (r.exit_code != 0) {
      state.SkipWithError("kernel exit code not 0");
      return;
    }
    thread_instructions += r.thread_instructions;
    cycles += model.cycles();
  }
  const double cpu = vxsynth::bench::thread_cpu_seconds() - cpu0;
  state.counters["thread_instr_per_cpu_s"] = static_cast<double>(thread_instructions) / cpu;
  state.counters["thread_instr"] = static_cast<double>(sim.counters().thread_instructions);
  if (timed) {
    state.counters["cycles"] = static_cast<double>(model.cycles());
    state.counters["cycles_per_cpu_s"] = static_cast<double>(cycles) / cpu;
    state.counters["dcache_read_misses"] = static_cast<double>(model.summary().dcache.read_misses);
  }
}

// Ten runs a measurement (one is about 40 ms with timing).
BENCHMARK(BM_TimingScatterLoads)->Arg(1)->Arg(0)->ArgNames({"timing"})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);

}  // namespace

BENCHMARK_MAIN();
