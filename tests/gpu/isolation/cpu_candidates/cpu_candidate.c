/* Host-side candidates for the containment tests (tests/gpu/isolation): an fp32 linear
 * (out[m][n] = sum_k a[m][k] * b[n][k] + bias[n]) computed on the CPU, built once per CHEAT
 * value into its own shared object. Each cheat uses raw system calls (raw_syscall.h), which the
 * link-level check does not see; the test says what the containment must do with each. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdlib.h>

#include "raw_syscall.h"
#include "vxsynth_candidate.h"

#define HONEST 0
#define THREADS 1
#define RAW_OPEN 2
#define RAW_EXEC 3
#define RAW_FORK 4
#define RAW_SOCKET 5
#define SIGNAL_PARENT 6
#define RAW_PTRACE 7
#define READ_PARENT_MEMORY 8
#define CACHED 9
#define SPIN 10
#define OOB_WRITE 11
#define WRITES_INPUT 12
#define CTOR_EXEC 13
#define REPLACE_SIGSYS 14
#define FAKE_STDOUT 15
#define RAW_OPEN_WRITE 16
#define WRITE_PARENT_MEMORY 17
#define RAW_CLONE 18

#ifndef CHEAT
#error "build with -DCHEAT=<one of the names above>"
#endif

typedef struct {
  const vxsynth_problem* p;
  const float *a, *b, *bias;
  float* out;
  long row0, row1;
} Work;

static void* rows(void* arg) {
  const Work* w = (const Work*)arg;
  for (long i = w->row0; i < w->row1; ++i) {
    for (long j = 0; j < w->p->n; ++j) {
      float s = 0;
      for (long k = 0; k < w->p->k; ++k) s += w->a[i * w->p->k + k] * w->b[j * w->p->k + k];
      w->out[i * w->p->n + j] = s + (w->bias ? w->bias[j] : 0.0f);
    }
  }
  return 0;
}

static int compute(const vxsynth_problem* p, const vxsynth_buffers* buf) {
  Work w = {p, (const float*)buf->a, (const float*)buf->b, (const float*)buf->bias, (float*)buf->out, 0, p->m};
  if (CHEAT == THREADS) {
    /* Threads must keep working under the containment (the CUDA driver uses them). */
    Work w2 = w;
    w.row1 = p->m / 2;
    w2.row0 = p->m / 2;
    pthread_t t;
    if (pthread_create(&t, 0, rows, &w2) != 0) return 7;
    rows(&w);
    pthread_join(t, 0);
    return VXSYNTH_LAUNCH_OK;
  }
  rows(&w);
  return VXSYNTH_LAUNCH_OK;
}

#if CHEAT == CTOR_EXEC
__attribute__((constructor)) static void at_load(void) {
  const char* argv[] = {"/bin/sh", "-c", "true", 0};
  raw_syscall(SYS_execve, "/bin/sh", argv, 0);
}
#endif

static float* cache = 0;

int vxsynth_cpu_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* buf) {
  float* out = (float*)buf->out;
  const long count = p->m * p->n;
  switch (CHEAT) {
    case RAW_OPEN: {
      /* Reads the expected output from a file (where an in-process checker might keep it). */
      const char* path = getenv("VXSYNTH_TEST_SECRET");
      const long fd = raw_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY, 0, 0, 0);
      if (fd >= 0) {
        raw_syscall(SYS_read, fd, out, count * (long)sizeof(float));
        return VXSYNTH_LAUNCH_OK;
      }
      compute(p, buf);
      out[0] = (float)fd; /* -errno: the test reads why it failed */
      return VXSYNTH_LAUNCH_OK;
    }
    case RAW_OPEN_WRITE: {
      /* Leaves a file behind (a cache for a later process, or a planted file). */
      const char* path = getenv("VXSYNTH_TEST_SECRET");
      const long fd = raw_syscall6(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0600, 0, 0);
      compute(p, buf);
      out[0] = (float)(fd >= 0 ? 1 : fd);
      return VXSYNTH_LAUNCH_OK;
    }
    case RAW_EXEC: {
      const char* argv[] = {"/bin/sh", "-c", "true", 0};
      raw_syscall(SYS_execve, "/bin/sh", argv, 0);
      break;
    }
    case RAW_FORK: {
#ifdef SYS_fork
      const long pid = raw_syscall(SYS_fork, 0, 0, 0);
#else
      const long pid = raw_syscall6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
#endif
      if (pid == 0) raw_syscall(SYS_exit_group, 0, 0, 0);
      break;
    }
    case RAW_CLONE: {
      /* A new process through clone itself (no CLONE_THREAD), as fork does under the hood. */
      const long pid = raw_syscall6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
      if (pid == 0) raw_syscall(SYS_exit_group, 0, 0, 0);
      break;
    }
    case RAW_SOCKET: {
      compute(p, buf);
      out[0] = (float)raw_syscall(SYS_socket, 2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);
      return VXSYNTH_LAUNCH_OK;
    }
    case SIGNAL_PARENT: {
      compute(p, buf);
      const long parent = raw_syscall(SYS_getppid, 0, 0, 0);
      out[0] = (float)raw_syscall(SYS_kill, parent, 0 /* only asks whether it may */, 0);
      return VXSYNTH_LAUNCH_OK;
    }
    case RAW_PTRACE:
      raw_syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0);
      break;
    case READ_PARENT_MEMORY:
    case WRITE_PARENT_MEMORY: {
      /* Reads, or overwrites, memory of the parent (where it keeps the vendor output). */
      char local[16] = "vxsynth-planted", remote[16];
      struct {
        void* base;
        unsigned long len;
      } l = {local, 16}, r = {remote, 16};
      raw_syscall6(CHEAT == READ_PARENT_MEMORY ? SYS_process_vm_readv : SYS_process_vm_writev,
                   raw_syscall(SYS_getppid, 0, 0, 0), (long)&l, 1, (long)&r, 1, 0);
      break;
    }
    case CACHED: {
      /* Right the first time, then the first answer again (cheap, and right for equal inputs). */
      if (cache) {
        memcpy(out, cache, (size_t)count * sizeof(float));
        return VXSYNTH_LAUNCH_OK;
      }
      compute(p, buf);
      cache = (float*)malloc((size_t)count * sizeof(float));
      memcpy(cache, out, (size_t)count * sizeof(float));
      return VXSYNTH_LAUNCH_OK;
    }
    case SPIN: {
      volatile unsigned long x = 0;
      for (;;) ++x;
    }
    case OOB_WRITE:
      compute(p, buf);
      out[count + 3] = 1.0f;
      return VXSYNTH_LAUNCH_OK;
    case WRITES_INPUT:
      compute(p, buf);
      ((float*)buf->a)[1] = 0.0f;
      return VXSYNTH_LAUNCH_OK;
    case REPLACE_SIGSYS: {
      /* Takes over the runner's SIGSYS report before a forbidden call (glibc's sigaction is a
       * raw rt_sigaction underneath). */
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = SIG_IGN;
      sigaction(SIGSYS, &sa, 0);
      break;
    }
    case FAKE_STDOUT:
      printf("PASSED!\n\"ID\",\"Process ID\",\"Kernel Name\"\n");
      fflush(stdout);
      break;
    default:
      break;
  }
  return compute(p, buf);
}

/* The CUDA entry point, so that the link-level check (which requires it) judges these objects
 * like real candidates; the CPU runner never calls it. */
int vxsynth_candidate_launch(const vxsynth_problem* p, const vxsynth_buffers* b, vxsynth_stream s) {
  (void)p;
  (void)b;
  (void)s;
  return VXSYNTH_LAUNCH_UNSUPPORTED;
}
