// Red team: computes the right answer and also writes past the end of its output (where the
// old harness kept other buffers). The runner's guard bands find it: the check fails with why.
#include "honest_base.cuh"

__global__ void scribble(float* out, long long count) { out[count + 5] = 42.0f; }

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  const int rc = redteam_honest_launch(p, b, s);
  if (rc == VXSYNTH_LAUNCH_OK) scribble<<<1, 1, 0, s>>>(static_cast<float*>(b->out), p->m * p->n);
  return rc;
}
