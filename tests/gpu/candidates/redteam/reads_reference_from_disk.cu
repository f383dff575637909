// Red team: reads the checker's files through raw system calls. From /proc/<parent>/cmdline it
// learns the job file the harness runs (its folder holds job.json, earlier checks' y_vendor
// tensors and result.json), then opens job.json with a raw openat. It prints what the kernel
// answered (the runner's log) and otherwise computes honestly: under Landlock the open fails
// with EACCES (-13).
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "honest_base.cuh"
#include "raw_syscall.cuh"

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, cudaStream_t s) {
  const long parent = raw_syscall6(SYS_getppid, 0, 0, 0, 0, 0, 0);
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/cmdline", parent);
  char cmdline[4096] = {0};
  const long fd = raw_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY, 0, 0, 0);
  long job_fd = -1;
  if (fd >= 0) {
    const long n = raw_syscall6(SYS_read, fd, (long)cmdline, sizeof cmdline - 1, 0, 0, 0);
    raw_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
    // argv[1] of vxsynth-gpu-harness is the job file.
    const char* job = cmdline;
    while (job < cmdline + (n > 0 ? n : 0) && *job) ++job;
    ++job;
    job_fd = raw_syscall6(SYS_openat, AT_FDCWD, (long)job, O_RDONLY, 0, 0, 0);
    printf("redteam: raw openat of the harness's job file %s = %ld\n", job, job_fd);
  } else {
    printf("redteam: raw openat of %s = %ld\n", path, fd);
  }
  fflush(stdout);
  return redteam_honest_launch(p, b, s);
}
