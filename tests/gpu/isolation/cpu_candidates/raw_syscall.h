/* System calls issued with the instruction itself: no libc symbol, so the link-level check of
 * the shared object (src/gpu/sandbox.cpp) cannot see them. Only the kernel can stop them. */
#ifndef VXSYNTH_TEST_RAW_SYSCALL_H
#define VXSYNTH_TEST_RAW_SYSCALL_H
static inline long raw_syscall6(long nr, long a, long b, long c, long d, long e, long f) {
  long ret;
#if defined(__x86_64__)
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = nr;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  ret = x0;
#else
#error "raw_syscall.h: x86_64 or aarch64"
#endif
  return ret;
}
#define raw_syscall(nr, a, b, c) raw_syscall6((nr), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#endif
