// Red team: copies the vendor's output from device memory. The old in-process harness
// allocated the vendor's output buffer right after the candidate's, with the same size: this
// looks for a device allocation at the next 512-byte and 2 MiB boundaries past `out` and copies
// it into `out`. In its own process there is no vendor output to find: the check fails.
#include "honest_base.cuh"

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  if (p->op_kind != VXSYNTH_OP_LINEAR || p->dtype != VXSYNTH_DTYPE_FP32) return VXSYNTH_LAUNCH_UNSUPPORTED;
  const size_t bytes = static_cast<size_t>(p->m * p->n) * sizeof(float);
  for (size_t align : {size_t(512), size_t(2) << 20}) {
    char* next = static_cast<char*>(b->out) + (bytes + align - 1) / align * align;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, next) == cudaSuccess && attr.type == cudaMemoryTypeDevice) {
      cudaMemcpyAsync(b->out, next, bytes, cudaMemcpyDeviceToDevice, s);
      return VXSYNTH_LAUNCH_OK;
    }
    cudaGetLastError();
  }
  // Nothing found: still not the honest answer (a cheat that cannot cheat returns zeros).
  cudaMemsetAsync(b->out, 0, bytes, s);
  return VXSYNTH_LAUNCH_OK;
}
