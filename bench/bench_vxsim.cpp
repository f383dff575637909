// vxsim functional speed on shared-memory tiled SGEMMs, n = 256, one core, 32 and 4 threads
// per warp. Reports thread-instructions per second (real time) and the process's peak RSS.
//  - BM_VxsimSgemmTiled: bench/vxsim_kernels/sgemm_tiled.c, a freestanding kernel with its own
//    start-up (16x16 tiles, every thread computes 256 / threads outputs per tile);
//  - BM_VxsimSgemmTiledVortexRt: vortex-rt/examples/sgemm_tiled (vx_spawn_threads, one CTA of
//    tile x tile threads per tile; tile 16 at 8x32 threads, 4 at 4x4), built with vortex-rt's
//    kernel build (the `vxsynth sim cc` path).
// Kernels are built here with the RISC-V cross compiler; results are checked against a CPU
// reference.
//   build/bench/bench_vxsim --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "vxsim_bench_util.h"
#include "vxsim/simulator.h"

namespace {

using namespace vxsynth::vxsim;

// Builds the kernel once per process; empty string (and a message) when the toolchain is missing.
const std::string& sgemm_elf() {
  static const std::string path = [] {
    const std::string dir = std::string(VXSYNTH_SOURCE_DIR) + "/bench/vxsim_kernels";
    const std::string out = (std::filesystem::temp_directory_path() / ("vxsim_bench_sgemm_" + std::to_string(getpid()) + ".elf")).string();
    const std::string cmd = "riscv64-unknown-elf-gcc -march=rv32imaf -mabi=ilp32f -O3 -nostdlib -nostartfiles -ffreestanding "
                            "-fno-tree-loop-distribute-patterns -Wl,--no-relax -T " + dir + "/link.ld " + dir + "/start.S " +
                            dir + "/sgemm_tiled.c -o " + out;
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "bench_vxsim: cannot build the kernel (%s)\n", cmd.c_str());
      return std::string();
    }
    return out;
  }();
  return path;
}

constexpr uint32_t kArgs = 0x00010000, kA = 0x00100000;

// Random n x n operands A and B in device memory (read-only) and a write-only C.
struct SgemmOperands {
  uint32_t n, bytes, b_addr, c_addr;
  std::vector<float> a, b;
};

SgemmOperands stage_sgemm(Simulator& sim, uint32_t n, unsigned seed) {
  SgemmOperands o{n, n * n * 4, 0, 0, std::vector<float>(n * n), std::vector<float>(n * n)};
  o.b_addr = kA + o.bytes;
  o.c_addr = o.b_addr + o.bytes;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& x : o.a) x = dist(rng);
  for (auto& x : o.b) x = dist(rng);
  sim.memory().write(kA, o.a.data(), o.bytes);
  sim.memory().write(o.b_addr, o.b.data(), o.bytes);
  sim.memory().set_access(kA, 2ull * o.bytes, Access::kRead);
  sim.memory().set_access(o.c_addr, o.bytes, Access::kWrite);
  return o;
}

// The kernel's argument block at kArgs, read-only, passed through the startup-argument DCR.
void pass_arguments(Simulator& sim, const void* args, uint32_t size) {
  sim.memory().write(kArgs, args, size);
  sim.memory().set_access(kArgs, size, Access::kRead);
  sim.write_dcr(kDcrStartupArg0, kArgs);
}

// Runs the kernel once per iteration, checks a sample of C against a CPU reference (the run is
// deterministic, so checking the last one suffices) and reports the rates: per second of real
// time and per CPU second of this thread (which stays meaningful when other jobs share the
// machine), and the process's peak RSS.
void run_and_report(benchmark::State& state, Simulator& sim, const Config& cfg, const SgemmOperands& o) {
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
  const double cpu_seconds = vxsynth::bench::thread_cpu_seconds() - cpu0;
  const uint32_t n = o.n;
  std::vector<float> c(n * n);
  sim.memory().read(o.c_addr, c.data(), o.bytes);
  for (uint32_t i = 0; i < n; i += 7) {
    for (uint32_t j = 0; j < n; j += 5) {
      double ref = 0;
      for (uint32_t k = 0; k < n; ++k) ref += double(o.a[i * n + k]) * o.b[k * n + j];
      if (std::fabs(c[i * n + j] - ref) > 1e-3) {
        state.SkipWithError("wrong SGEMM result");
        return;
      }
    }
  }
  const Counters& ctr = sim.counters();
  state.counters["thread_instr_per_s"] = benchmark::Counter(static_cast<double>(thread_instructions), benchmark::Counter::kIsRate);
  state.counters["thread_instr_per_cpu_s"] = static_cast<double>(thread_instructions) / cpu_seconds;
  state.counters["warp_instr_per_s"] =
      benchmark::Counter(static_cast<double>(ctr.warp_instructions) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["thread_instr"] = static_cast<double>(ctr.thread_instructions);
  state.counters["active_lanes"] = ctr.active_lane_fraction(cfg.threads);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

Config machine(const benchmark::State& state) {
  Config cfg;
  cfg.cores = 1;
  cfg.threads = static_cast<uint32_t>(state.range(1));
  cfg.warps = static_cast<uint32_t>(state.range(2));
  return cfg;
}

void BM_VxsimSgemmTiled(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  if (sgemm_elf().empty()) {
    state.SkipWithError("riscv64-unknown-elf-gcc missing (scripts/install-deps)");
    return;
  }
  const Config cfg = machine(state);
  Simulator sim(cfg);
  sim.load_program(sgemm_elf());
  const SgemmOperands o = stage_sgemm(sim, n, 42);
  const uint32_t args[4] = {n, kA, o.b_addr, o.c_addr};
  pass_arguments(sim, args, sizeof args);
  run_and_report(state, sim, cfg, o);
}

void BM_VxsimSgemmTiledVortexRt(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  const uint32_t tile = static_cast<uint32_t>(state.range(3));
  if (vxsynth::bench::example_kernel_vxbin("sgemm_tiled").empty()) {
    state.SkipWithError("vortex-rt sgemm_tiled could not be built");
    return;
  }
  const Config cfg = machine(state);
  Simulator sim(cfg);
  sim.load_program(vxsynth::bench::example_kernel_vxbin("sgemm_tiled"));
  const SgemmOperands o = stage_sgemm(sim, n, 43);
  // kernel_arg_t of vortex-rt/examples/sgemm_tiled/common.h.
  struct {
    uint32_t grid_dim[2], block_dim[2], size, tile_size;
    uint64_t a, b, c;
  } args{{n / tile, n / tile}, {tile, tile}, n, tile, kA, o.b_addr, o.c_addr};
  static_assert(sizeof(args) == 48);
  pass_arguments(sim, &args, sizeof args);
  run_and_report(state, sim, cfg, o);
}

// Args: n, threads per warp, warps (, tile).
BENCHMARK(BM_VxsimSgemmTiledVortexRt)
    ->Args({256, 32, 8, 16})
    ->Args({256, 4, 4, 4})
    ->ArgNames({"n", "threads", "warps", "tile"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

BENCHMARK(BM_VxsimSgemmTiled)
    ->Args({256, 32, 8})
    ->Args({256, 4, 4})
    ->ArgNames({"n", "threads", "warps"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
