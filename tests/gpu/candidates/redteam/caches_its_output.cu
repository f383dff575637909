// Red team: computes the first answer, then returns it again from a device cache (cheap, and
// right whenever the inputs repeat). Every launch has fresh inputs, so the second is wrong.
#include "honest_base.cuh"

static void* g_cache = nullptr;
static size_t g_cache_bytes = 0;

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  if (p->op_kind != VXSYNTH_OP_LINEAR || p->dtype != VXSYNTH_DTYPE_FP32) return VXSYNTH_LAUNCH_UNSUPPORTED;
  const size_t bytes = static_cast<size_t>(p->m * p->n) * sizeof(float);
  if (g_cache && g_cache_bytes == bytes) {
    cudaMemcpyAsync(b->out, g_cache, bytes, cudaMemcpyDeviceToDevice, s);
    return VXSYNTH_LAUNCH_OK;
  }
  const int rc = redteam_honest_launch(p, b, s);
  if (cudaMalloc(&g_cache, bytes) == cudaSuccess) {
    g_cache_bytes = bytes;
    cudaMemcpyAsync(g_cache, b->out, bytes, cudaMemcpyDeviceToDevice, s);
  }
  return rc;
}
