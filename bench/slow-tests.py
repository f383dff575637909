#!/usr/bin/python3
"""The slowest tests' durations: each group run --repeat times, median wall and CPU seconds, and the
longest single test of the group (the one CTest cannot split). Run on an idle machine.

  bench/slow-tests.py [--build build] [--repeat 3] [--group NAME]

Groups (binary, gtest filter):
"""
from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GROUPS = {
    "cp-async-on-sim": ("tests/refine/refine_tests", "Vortex.CpAsyncDesignsPassOnTheSimulator"),
    "real-shape-tolerances": ("tests/ops/ops_tests", "Tolerances/RealShape.*"),
    "suite-shape-tolerances": ("tests/ops/ops_tests", "Tolerances/SuiteShape.*:Tolerances.SuiteShapes*"),
    "ops_tests": ("tests/ops/ops_tests", "*"),
}
__doc__ += "".join(f"  {k:<24} {b} --gtest_filter={f}\n" for k, (b, f) in GROUPS.items())


def run_once(exe: Path, filt: str) -> tuple[float, float, int]:
    """(wall s, CPU s of the children, longest test ms)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    r = subprocess.run([str(exe), f"--gtest_filter={filt}"], cwd=ROOT / "tests", capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"slow-tests: {exe} --gtest_filter={filt} failed:\n{r.stdout[-2000:]}")
    longest = max((int(m) for m in re.findall(r"^\[ +OK \] .* \((\d+) ms\)$", r.stdout, re.M)), default=0)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, longest


def main() -> int:
    ap = argparse.ArgumentParser(description="median durations of the slowest tests")
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--group", action="append", choices=sorted(GROUPS))
    args = ap.parse_args()
    print(f"{'group':<24} {'wall s':>8} {'CPU s':>8} {'longest test s':>15}   (median of {args.repeat})")
    for name in args.group or list(GROUPS):
        binary, filt = GROUPS[name]
        exe = ROOT / args.build / binary
        if not exe.is_file():
            sys.exit(f"slow-tests: {exe} not built (make build)")
        runs = [run_once(exe, filt) for _ in range(args.repeat)]
        med = [statistics.median(x) for x in zip(*runs)]
        print(f"{name:<24} {med[0]:8.1f} {med[1]:8.1f} {med[2] / 1000:15.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
