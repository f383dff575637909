// Sandbox test: calls cuBLAS through an undefined symbol that the harness's own libcublas
// would satisfy at load time. Must be rejected before it runs.
#include <cublas_v2.h>

#include "vxsynth_candidate.h"

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 2;
  cublasSetStream(handle, stream);
  const float one = 1.f, zero = 0.f;
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(p->n), static_cast<int>(p->m),
              static_cast<int>(p->k), &one, static_cast<const float*>(b->b), static_cast<int>(p->k),
              static_cast<const float*>(b->a), static_cast<int>(p->k), &zero, static_cast<float*>(b->out),
              static_cast<int>(p->n));
  return 0;
}
