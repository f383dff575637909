// vxsim functional speed on a tensor-core GEMM: vortex-rt/examples/sgemm_tcu (fp16 -> fp32
// WMMA, one warp per tile, built with vortex-rt's kernel build), 256 x 256 x 256, one core,
// 8 warps, 8 (and 32) threads per warp. Reports simulated tensor FLOPs (2 per multiply-
// accumulate of the unit) and thread-instructions per host second (real time) and per CPU
// second of the simulating thread (meaningful when other jobs share the machine), plus the
// tensor unit's share of the issued stream. The result is checked bit for bit against a CPU
// model of the unit's order (fp32 multiply, fp32 add, K increasing) on a sample of elements.
//   build/bench/bench_vxsim_tensor --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "vxsim_bench_util.h"
#include "vxsim/simulator.h"

namespace {

using namespace vxsynth::vxsim;

constexpr uint32_t kArgs = 0x00010000, kA = 0x00100000;

uint16_t to_half(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
float from_half(uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }

void BM_VxsimTensorGemm(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  Config cfg;
  cfg.cores = 1;
  cfg.threads = static_cast<uint32_t>(state.range(1));
  cfg.warps = static_cast<uint32_t>(state.range(2));
  if (vxsynth::bench::example_kernel_vxbin("sgemm_tcu").empty()) {
    state.SkipWithError("vortex-rt sgemm_tcu could not be built");
    return;
  }
  Simulator sim(cfg);
  sim.load_program(vxsynth::bench::example_kernel_vxbin("sgemm_tcu"));
  const uint32_t in_bytes = n * n * 2, kB = kA + in_bytes, kC = kB + in_bytes;
  std::vector<uint16_t> a(n * n), b(n * n);
  std::vector<float> c(n * n);
  std::mt19937 rng(44);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (auto& x : a) x = to_half(dist(rng));
  for (auto& x : b) x = to_half(dist(rng));
  sim.memory().write(kA, a.data(), in_bytes);
  sim.memory().write(kB, b.data(), in_bytes);
  sim.memory().set_access(kA, 2ull * in_bytes, Access::kRead);
  sim.memory().set_access(kC, n * n * 4, Access::kWrite);
  // kernel_arg_t of vortex-rt/examples/sgemm_tcu/common.h.
  struct {
    uint32_t m, n, k;
    uint64_t a, b, c;
  } args{n, n, n, kA, kB, kC};
  static_assert(sizeof(args) == 40);
  sim.memory().write(kArgs, &args, sizeof args);
  sim.memory().set_access(kArgs, sizeof args, Access::kRead);
  sim.write_dcr(kDcrStartupArg0, kArgs);

  uint64_t thread_instructions = 0, tensor_flops = 0;
  const double cpu0 = vxsynth::bench::thread_cpu_seconds();
  for (auto _ : state) {
    RunResult r = sim.run();  // counters are per run
    if (r.exit_code != 0) {
      state.SkipWithError("kernel exit code not 0");
      return;
    }
    thread_instructions += r.thread_instructions;
    tensor_flops += sim.counters().tensor_flops;
  }
  const double cpu_seconds = vxsynth::bench::thread_cpu_seconds() - cpu0;
  sim.memory().read(kC, c.data(), n * n * 4);
  for (uint32_t i = 0; i < n; i += 7) {
    for (uint32_t j = 0; j < n; j += 5) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < n; ++k) {
        const float product = from_half(a[i * n + k]) * from_half(b[k * n + j]);
        acc = acc + product;
      }
      if (std::bit_cast<uint32_t>(acc) != std::bit_cast<uint32_t>(c[i * n + j])) {
        state.SkipWithError("tensor GEMM result differs from the CPU model");
        return;
      }
    }
  }
  if (tensor_flops != 2ull * n * n * n * state.iterations()) {
    state.SkipWithError("tensor_flops counter is not 2 M N K per run");
    return;
  }
  const Counters& ctr = sim.counters();
  state.counters["tensor_flops_per_s"] = benchmark::Counter(static_cast<double>(tensor_flops), benchmark::Counter::kIsRate);
  state.counters["tensor_flops_per_cpu_s"] = static_cast<double>(tensor_flops) / cpu_seconds;
  state.counters["thread_instr_per_s"] = benchmark::Counter(static_cast<double>(thread_instructions), benchmark::Counter::kIsRate);
  state.counters["thread_instr_per_cpu_s"] = static_cast<double>(thread_instructions) / cpu_seconds;
  state.counters["thread_instr"] = static_cast<double>(ctr.thread_instructions);
  state.counters["tensor_uops"] = static_cast<double>(ctr.tensor_uops);
  state.counters["tensor_issue_share"] = ctr.tensor_issue_share();
}

// Args: n, threads per warp, warps.
BENCHMARK(BM_VxsimTensorGemm)
    ->Args({256, 8, 8})
    ->Args({256, 32, 8})
    ->ArgNames({"n", "threads", "warps"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
