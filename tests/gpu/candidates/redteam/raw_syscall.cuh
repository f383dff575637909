// System calls issued with the `syscall` instruction itself: no libc symbol for the link-level
// check (src/gpu/sandbox.cpp) to see; only the kernel (seccomp, Landlock) can stop them.
#pragma once
static inline long raw_syscall6(long nr, long a, long b, long c, long d, long e, long f) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}
