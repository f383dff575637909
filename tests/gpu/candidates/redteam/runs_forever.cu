// Red team: a kernel that never ends. The harness kills the candidate process group after the
// candidate timeout; the batch's other candidates still run (in a fresh runner).
#include "honest_base.cuh"

__global__ void forever(volatile int* flag) {
  while (flag == nullptr || *flag == 0) {
  }
}

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  (void)p;
  (void)b;
  forever<<<1, 1, 0, s>>>(nullptr);
  return VXSYNTH_LAUNCH_OK;
}
