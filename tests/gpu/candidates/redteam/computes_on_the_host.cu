// Red team: computes the right answer, but on the host (inputs copied down, the GEMM on the
// CPU, the output copied back): its output passes any check, yet the GPU ran no kernel of it,
// so a profile would describe nothing of its own. Caught by the driver: a profiled launch in
// which ncu saw no kernel fails its check (docs/gpu.md, "Isolation").
#include <vector>

#include "honest_base.cuh"

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  if (p->op_kind != VXSYNTH_OP_LINEAR || p->dtype != VXSYNTH_DTYPE_FP32 || p->batch_rank != 0 ||
      (p->activation != VXSYNTH_ACT_NONE && p->activation != VXSYNTH_ACT_RELU)) {
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  }
  const size_t m = static_cast<size_t>(p->m), n = static_cast<size_t>(p->n), k = static_cast<size_t>(p->k);
  std::vector<float> x(m * k), w(n * k), bias(p->has_bias ? n : 0), y(m * n);
  cudaStreamSynchronize(s);
  cudaMemcpy(x.data(), b->a, x.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(w.data(), b->b, w.size() * sizeof(float), cudaMemcpyDeviceToHost);
  if (p->has_bias) cudaMemcpy(bias.data(), b->bias, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      float acc = 0.f;
      for (size_t q = 0; q < k; ++q) acc = fmaf(x[i * k + q], w[j * k + q], acc);
      if (p->has_bias) acc += bias[j];
      y[i * n + j] = p->activation == VXSYNTH_ACT_NONE ? acc : (acc > 0.f ? acc : 0.f);
    }
  }
  cudaMemcpy(b->out, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice);
  return VXSYNTH_LAUNCH_OK;
}
