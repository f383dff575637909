#!/usr/bin/env python3
"""Whole-output source check of the largest bf16 linears on the GPU (no files come back).

tests/data/ops/h200/ keeps only some rows of the pi0 projections; this script checks every
element of them on the GPU machine: cuBLAS bf16 (PyTorch defaults) against an fp64 reference of
the same bf16 inputs (products exact, fp64 sums, as src/ops/reference.h), with the (atol, rtol)
that `tolerance_for(op, source)` gives (pass them from `vxsynth ref`'s ref.json):

    PYTHONPATH=python python3 tests/ops/h200/full_output_check.py \\
        --case pi0_gate_proj.json:1:4.921e-05:7.862e-03 --case pi0_down_proj.json:2:2.970e-04:8.109e-03
"""
import argparse
import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import vendor_outputs as vo  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", required=True, help="SPEC.json:SEED:ATOL:RTOL")
    args = ap.parse_args()
    specs = HERE.parents[1] / "data" / "ops" / "h200"
    for c in args.case:
        spec_file, seed, atol, rtol = c.split(":")
        op = json.loads((specs / spec_file).read_text())
        t = vo.generate_inputs(op, int(seed))
        y = vo.run_op(op, t, "cuda").cuda().double()
        x64, w64 = t["x"].cuda().double(), t["weight"].cuda().double()
        torch.backends.cuda.matmul.allow_tf32 = False
        exact = x64 @ w64.T  # fp64 products of bf16 values are exact; fp64 sums
        p = op["linear"]
        if p.get("bias"):
            exact = exact + t["bias"].cuda().double()
        act = p.get("activation", "none")
        F = torch.nn.functional
        exact = {"none": lambda v: v, "relu": F.relu, "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"),
                 "gelu": F.gelu, "silu": F.silu}[act](exact)
        d = (y - exact).abs()
        allowed = float(atol) + float(rtol) * exact.abs()
        ratio = d / allowed
        worst = int(ratio.argmax())
        print(f"{spec_file}: {y.numel()} elements, failed {int((d > allowed).sum())}, "
              f"max abs {float(d.max()):.3g}, worst {float(ratio.max()):.3f} x allowed at {worst} "
              f"(y {float(exact.flatten()[worst]):.6g}, vendor {float(y.flatten()[worst]):.6g}); "
              f"elements above 0.5 x allowed: {int((ratio > 0.5).sum())}; NaN {int(torch.isnan(y).sum())}",
              flush=True)


if __name__ == "__main__":
    main()
