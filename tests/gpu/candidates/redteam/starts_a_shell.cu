// Red team: starts a shell through a raw execve (no libc symbol for the link check to see).
// The containment kills the candidate process and names the call.
#include <sys/syscall.h>

#include "honest_base.cuh"
#include "raw_syscall.cuh"

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  const char* argv[] = {"/bin/sh", "-c", "echo pwned > /tmp/vxsynth-redteam-pwned", nullptr};
  raw_syscall6(SYS_execve, (long)"/bin/sh", (long)argv, 0, 0, 0, 0);
  return redteam_honest_launch(p, b, s);
}
