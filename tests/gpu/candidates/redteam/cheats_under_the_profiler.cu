// Red team: right when checked, cheap and wrong when profiled. It times a tiny probe kernel
// (the second of two, so module loading is not counted): under Nsight Compute's replay inside
// the profiled range a launch takes milliseconds, outside it microseconds. Looking for the
// profiler's variables in the environment (CUDA_INJECTION64_PATH) would be another probe; both
// lose the same way, because the profiled launch's output is checked like any other.
#include <chrono>

#include "honest_base.cuh"

__global__ void probe_kernel(int* x) {
  if (x) *x = 1;
}

static bool under_profiler(cudaStream_t s) {
  double seconds = 0;
  for (int i = 0; i < 2; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    probe_kernel<<<1, 1, 0, s>>>(nullptr);
    cudaStreamSynchronize(s);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return seconds > 0.005;
}

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  if (p->op_kind != VXSYNTH_OP_LINEAR || p->dtype != VXSYNTH_DTYPE_FP32) return VXSYNTH_LAUNCH_UNSUPPORTED;
  if (under_profiler(s)) {
    cudaMemsetAsync(b->out, 0, static_cast<size_t>(p->m * p->n) * sizeof(float), s);
    return VXSYNTH_LAUNCH_OK;
  }
  return redteam_honest_launch(p, b, s);
}
