// A hand-written kernel whose divergent region is left by a return before its join: the
// verifier must refuse it (and name main and this file's line).
  .text
  .global main
  .type main, @function
main:
  csrr t0, 0xCC0          // thread id
  andi t0, t0, 1
  .insn r 0x0B, 2, 0, t1, t0, x0   // split t1, t0
  beqz t0, 1f
  li a0, 0
  ret                     // leaves the region: the join below is skipped on this path
1:
  .insn r 0x0B, 3, 0, x0, t1, x0   // join t1
  li a0, 0
  ret
  .size main, .-main
