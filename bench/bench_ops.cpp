// CPU reference throughput at the suite's largest shapes (docs/ops.md quotes the figures).
//   pi0 Gemma-2B MLP gate/up projection: bf16 linear M=816, N=16384, K=2048 (target <= 20 s on 2 cores)
//   ACT ResNet-18 layer1 3x3 conv: fp32 tensors on the tf32 path, 1x64x120x160, 64 out, NCHW
// Inputs are generated once per benchmark (not timed). Run: build/bench/bench_ops
// --benchmark_repetitions=3 --benchmark_report_aggregates_only=true (medians).
#include <benchmark/benchmark.h>

#include <thread>

#include "ops/inputs.h"
#include "ops/reference.h"

namespace {

using namespace vxsynth::ops;

void run_reference(benchmark::State& state, const OpSpec& spec) {
  const auto inputs = generate_inputs(spec, 1);
  for (auto _ : state) {
    Tensor y = compute_reference(spec, inputs);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(spec.flops() * static_cast<double>(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
  state.counters["threads"] = static_cast<double>(std::thread::hardware_concurrency());
}

void BM_Pi0GateProjBf16(benchmark::State& state) {
  run_reference(state, make_linear("pi0.gemma2b.gate_proj", PrecisionPath::bf16, 816, 16384, 2048));
}
BENCHMARK(BM_Pi0GateProjBf16)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void BM_ActLayer1ConvTf32(benchmark::State& state) {
  run_reference(state, make_conv("act.backbone.layer1.0.conv1", PrecisionPath::tf32, 1, 64, 64, {120, 160}, {3, 3},
                                 {1, 1}, {1, 1}, {1, 1}));
}
BENCHMARK(BM_ActLayer1ConvTf32)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ActStemConvTf32Nhwc(benchmark::State& state) {
  run_reference(state, make_conv("act.backbone.conv1", PrecisionPath::tf32, 1, 3, 64, {480, 640}, {7, 7}, {2, 2},
                                 {3, 3}, {1, 1}, 1, false, ConvLayout::channels_last));
}
BENCHMARK(BM_ActStemConvTf32Nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DpConv1dFp32(benchmark::State& state) {
  run_reference(state, make_conv("dp.up0.res0.conv1", PrecisionPath::fp32, 1, 4096, 1024, {4}, {5}, {1}, {2}, {1}));
}
BENCHMARK(BM_DpConv1dFp32)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
