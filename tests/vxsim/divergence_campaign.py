#!/usr/bin/python3
"""Differential campaign for the kernel toolchain's divergence handling.

Generates random kernels (fixed seeds) made of what Vortex users write: `if`s on thread ids
and loaded data, `&&`/`||` short circuits, ternaries, switches, loops with constant and with
per-lane trip counts, `break`/`continue`/early `return`, libm calls, and a CTA barrier between
two phases that exchange values through local memory. Each kernel is built with
`vxsynth sim cc` (which runs the split/join verifier) at -O0 and -O3, run on several machine
shapes, and its output compared with the same code compiled for the host and run thread by
thread (integers exactly, floats within a tolerance: the device's libm is vortex-rt's).

Exit status 0 when every kernel matches everywhere. With --expect-failure (the negative
control: e.g. --compiler gcc --no-verify, no divergence handling), 0 when at least one run
does NOT match, so the campaign is shown to catch divergence bugs.
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile

SHAPES = [(1, 4, 4), (1, 2, 8), (2, 4, 8)]  # cores, warps, threads
BLOCKS = 3
DATA = 61


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.loop_depth = 0
        self.loop_vars = []
        self.n_loops = 0

    def atom(self):
        choices = ["tid", "blk", "a", "b", "c", str(self.r.randint(0, 40)),
                   "data[(%s) %% %du]" % (self.small(), DATA)]
        choices += self.loop_vars
        return self.r.choice(choices)

    def small(self):
        return self.r.choice(["tid", "a", "b", "c", "blk + tid", "a ^ tid"] + self.loop_vars)

    def expr(self, depth=0):
        if depth > 2 or self.r.random() < 0.35:
            return self.atom()
        op = self.r.choice(["+", "-", "*", "^", "&", "|", ">>", "<<", "/", "%"])
        lhs, rhs = self.expr(depth + 1), self.expr(depth + 1)
        if op in (">>", "<<"):
            return "((%s) %s ((%s) & 7u))" % (lhs, op, rhs)
        if op in ("/", "%"):
            return "((%s) %s ((%s) | 1u))" % (lhs, op, rhs)
        return "((%s) %s (%s))" % (lhs, op, rhs)

    def cond(self, depth=0):
        k = self.r.random()
        if depth < 2 and k < 0.3:
            return "(%s %s %s)" % (self.cond(depth + 1), self.r.choice(["&&", "||"]), self.cond(depth + 1))
        if depth < 2 and k < 0.38:
            return "(!%s)" % self.cond(depth + 1)
        cmp = self.r.choice(["<", "<=", ">", ">=", "==", "!="])
        return "((%s) %% %du %s %du)" % (self.expr(1), self.r.randint(2, 9), cmp, self.r.randint(0, 5))

    def block(self, depth, n=None, top=False):
        n = n if n is not None else self.r.randint(1, 3)
        return "".join(self.stmt(depth, top) for _ in range(n))

    def stmt(self, depth, top=False):
        ind = "  " * (depth + 1)
        var = self.r.choice(["a", "b", "c"])
        k = self.r.random()
        if depth >= 3 or k < 0.25:
            return "%s%s = %s;\n" % (ind, var, self.expr())
        if k < 0.32:
            return "%s%s = %s ? %s : %s;\n" % (ind, var, self.cond(), self.expr(1), self.expr(1))
        if k < 0.40:
            return "%sf = sinf(f + (float)(%s %% 13u)) * 1.5f + expf(-(float)(%s %% 5u));\n" % (
                ind, self.expr(1), var)
        if k < 0.47:
            return "%sf = fminf(f, (float)(%s %% 17u)) + logf(1.0f + (float)(%s %% 9u));\n" % (ind, var, self.expr(1))
        if k < 0.62:
            s = "%sif %s {\n%s%s}" % (ind, self.cond(), self.block(depth + 1), ind)
            if self.r.random() < 0.5:
                s += " else {\n%s%s}" % (self.block(depth + 1), ind)
            return s + "\n"
        if k < 0.67:
            cases = ""
            for v in range(3):
                cases += "%s  case %du: %s = %s; break;\n" % (ind, v, var, self.expr(1))
            return "%sswitch ((%s) %% 4u) {\n%s%s  default: %s ^= 5u;\n%s}\n" % (
                ind, self.small(), cases, ind, var, ind)
        if k < 0.88 and self.n_loops < 4:
            self.n_loops += 1
            i = "i%d" % depth
            if self.r.random() < 0.5:
                bound = str(self.r.randint(1, 6))  # constant trip count
            else:
                bound = "((%s) %% 6u)" % self.small()  # per-lane trip count: a divergent exit
            self.loop_vars.append(i)
            body = self.block(depth + 1)
            if self.r.random() < 0.4:
                body += "%s  if %s break;\n" % (ind, self.cond())
            if self.r.random() < 0.3:
                body = "%s  if %s continue;\n" % (ind, self.cond()) + body
            self.loop_vars.pop()
            return "%sfor (unsigned %s = 0; %s < %s; ++%s) {\n%s%s}\n" % (ind, i, i, bound, i, body, ind)
        if top and k < 0.95:
            return "%sif %s return a ^ (b << 1) ^ c;\n" % (ind, self.cond())
        return "%s%s += %s;\n" % (ind, var, self.expr())

    def phase(self, name, extra_param):
        self.n_loops = 0
        body = self.block(0, self.r.randint(3, 6), top=True)
        return ("static unsigned %s(unsigned tid, unsigned blk, %sfloat* fo) {\n"
                "  unsigned a = tid * 3u + 1u, b = blk + 7u, c = %s;\n  float f = *fo;\n%s"
                "  *fo = f;\n  return a ^ (b << 1) ^ c;\n}\n") % (
                    name, "unsigned nb, " if extra_param else "", "nb" if extra_param else "data[tid % 61u]", body)


COMMON = """
static unsigned data[%(DATA)d];
static void init_data(void) {
  unsigned s = %(seed)du;
  for (int i = 0; i < %(DATA)d; ++i) { s = s * 1664525u + 1013904223u; data[i] = s >> 20; }
}
"""

DEVICE = """#include <math.h>
#include <vx_print.h>
#include <vx_spawn.h>
%(common)s
%(p1)s
%(p2)s
#define B %(block)du
static unsigned out_i[%(blocks)d * B];
static float out_f[%(blocks)d * B];

static void body(void*) {
  unsigned* s = (unsigned*)__local_mem(B * sizeof(unsigned));
  const unsigned tid = threadIdx.x, blk = blockIdx.x;
  float f = 0.25f;
  s[tid] = phase1(tid, blk, &f);
  __syncthreads();
  const unsigned w = phase2(tid, blk, s[(tid + 3u) %% B], &f);
  out_i[blk * B + tid] = w;
  out_f[blk * B + tid] = f;
}

int main() {
  init_data();
  uint32_t grid = %(blocks)d, block = B;
  if (vx_spawn_threads(1, &grid, &block, body, nullptr) != 0) return 100;
  for (unsigned i = 0; i < %(blocks)d * B; ++i) {
    unsigned fb;
    __builtin_memcpy(&fb, &out_f[i], 4);
    vx_printf("r %%u %%u %%x\\n", i, out_i[i], fb);
  }
  return 0;
}
"""

HOST = """#include <math.h>
#include <stdio.h>
#include <string.h>
%(common)s
%(p1)s
%(p2)s
#define B %(block)du
int main(void) {
  init_data();
  for (unsigned blk = 0; blk < %(blocks)d; ++blk) {
    unsigned s[B];
    float f[B];
    for (unsigned t = 0; t < B; ++t) { f[t] = 0.25f; s[t] = phase1(t, blk, &f[t]); }
    for (unsigned t = 0; t < B; ++t) {
      unsigned w = phase2(t, blk, s[(t + 3u) %% B], &f[t]);
      unsigned fb;
      memcpy(&fb, &f[t], 4);
      printf("r %%u %%u %%x\\n", blk * B + t, w, fb);
    }
  }
  return 0;
}
"""


def parse(text):
    rows = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "r":
            rows[int(parts[1])] = (int(parts[2]), struct.unpack("<f", struct.pack("<I", int(parts[3], 16)))[0])
    return rows


def close(x, y):
    if x != x or y != y:
        return (x != x) == (y != y)
    return abs(x - y) <= 1e-3 + 1e-3 * max(abs(x), abs(y))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vxsynth", required=True)
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--opt", default="0,3", help="comma-separated -O levels")
    ap.add_argument("--compiler", default="", help="sim cc --compiler (default: sim cc's)")
    ap.add_argument("--no-verify", action="store_true", help="pass --no-verify to sim cc")
    ap.add_argument("--expect-failure", action="store_true")
    ap.add_argument("--work", default="")
    args = ap.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="vxsim-divergence-campaign-")
    os.makedirs(work, exist_ok=True)
    failures = []
    runs = 0
    for k in range(args.count):
        seed = args.seed * 1000 + k
        rng = random.Random(seed)
        gen = Gen(rng)
        block = rng.choice([5, 8, 12, 16])
        sub = {"DATA": DATA, "seed": seed, "block": block, "blocks": BLOCKS}
        sub["common"] = COMMON % sub
        sub["p1"] = gen.phase("phase1", False)
        sub["p2"] = gen.phase("phase2", True)
        name = os.path.join(work, "k%d" % seed)
        with open(name + ".cpp", "w") as f:
            f.write(DEVICE % sub)
        with open(name + "_host.c", "w") as f:
            f.write(HOST % sub)
        subprocess.run(["gcc", "-O1", "-ffp-contract=off", "-o", name + "_host", name + "_host.c", "-lm"], check=True)
        want = parse(subprocess.run([name + "_host"], check=True, capture_output=True, text=True).stdout)
        if len(want) != BLOCKS * block:
            failures.append("%s: the host reference printed %d rows" % (name, len(want)))
            continue
        for opt in args.opt.split(","):
            out = "%s_O%s.vxbin" % (name, opt)
            cmd = [args.vxsynth, "sim", "cc", name + ".cpp", "-O", opt, "-o", out]
            if args.compiler:
                cmd += ["--compiler", args.compiler]
            if args.no_verify:
                cmd.append("--no-verify")
            built = subprocess.run(cmd, capture_output=True, text=True)
            if built.returncode != 0:
                failures.append("%s -O%s: build failed:\n%s%s" % (name, opt, built.stdout, built.stderr))
                continue
            for cores, warps, threads in SHAPES:
                runs += 1
                r = subprocess.run([args.vxsynth, "sim", "run", out, "--cores", str(cores), "--warps", str(warps),
                                    "--threads", str(threads), "--plain-console", "--max-instrs", "20000000"],
                                   capture_output=True, text=True)
                where = "%s -O%s at %dx%dx%d" % (name, opt, cores, warps, threads)
                if r.returncode != 0:
                    failures.append("%s: exit %d\n%s" % (where, r.returncode, (r.stdout + r.stderr)[-1500:]))
                    continue
                got = parse(r.stdout)
                bad = [i for i in want if i not in got or got[i][0] != want[i][0] or not close(got[i][1], want[i][1])]
                if bad:
                    i = bad[0]
                    failures.append("%s: %d of %d threads differ; thread %d: got %s, want %s" % (
                        where, len(bad), len(want), i, got.get(i), want[i]))
    print("divergence campaign: %d kernels, %d runs, %d failures (work folder %s)" % (
        args.count, runs, len(failures), work))
    for f in failures[:10]:
        print("FAIL " + f)
    if args.expect_failure:
        if failures:
            print("expected failures seen: the campaign catches missing divergence handling")
            return 0
        print("ERROR: expected at least one failure")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
