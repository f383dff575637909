// Sandbox test: reads precomputed outputs from a file. Must be rejected before it runs.
#include <cstdio>

#include "vxsynth_candidate.h"

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b,
                                        cudaStream_t stream) {
  FILE* f = std::fopen("/tmp/expected_output.bin", "rb");
  if (!f) return 2;
  static float host[1 << 20];
  const size_t n = std::fread(host, sizeof(float), static_cast<size_t>(p->m * p->n), f);
  std::fclose(f);
  cudaMemcpyAsync(b->out, host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  return 0;
}
