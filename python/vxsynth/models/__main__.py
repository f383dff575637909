"""Smoke check of the workload models: build, run one inference, report the output.

    python3 -m vxsynth.models [--device cuda|cpu|meta] [--config NAME] [--workload W ...]

For each workload: parameters, output shape and dtype, whether every output value is finite, its
largest magnitude, and (on CUDA) the median latency of a few calls. Exit 1 if an output is not
finite. On `meta` only shapes are checked; use `--config small` on the CPU.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from . import WORKLOADS, get, summarize_output


def check(name, device, config=None, repeats=3):
    w = get(name)
    cfg = w.config(config)
    t0 = time.monotonic()
    model = w.build(cfg, device)
    inputs = w.make_inputs(cfg, device)
    build_s = time.monotonic() - t0
    times = []
    out = None
    for _ in range(repeats if device != "meta" else 1):
        if device == "cuda":
            torch.cuda.synchronize()
        t = time.monotonic()
        out = w.infer(model, inputs)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.monotonic() - t) * 1000)
    res = {"workload": name, "config": config or w.module.DEFAULT_CONFIG,
           "parameters": sum(p.numel() for p in model.parameters()), "build_s": round(build_s, 1)}
    res.update(summarize_output(out))
    if device != "meta":
        res["latency_ms_median"] = round(statistics.median(times[1:] or times), 2)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m vxsynth.models", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "meta")
    ap.add_argument("--config")
    ap.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    args = ap.parse_args(argv)
    bad = False
    for name in args.workload or list(WORKLOADS):
        try:
            res = check(name, args.device, args.config)
        except ValueError as e:
            print(f"models: {e}", file=sys.stderr)
            return 2
        print(" ".join(f"{k}={v}" for k, v in res.items()), flush=True)
        bad |= res.get("finite") is False
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
