"""Test helpers: a Kineto trace shaped like torch 2.11's (fields as in the real H200 fixture),
built around a real OpTracker call log, and an ncu raw CSV for chosen launches.

The trace mirrors what the capture sees on the GPU: for each tracked GEMM/conv call an outer
cpu_op, the `vxop:<n>` annotation, the inner cpu_op that launches, the launch call (driver API
for GEMMs, as cuBLAS does; runtime API for convolutions) and the kernels. Durations are random
but fixed by the seed, so rankings are not an artefact of the order.
"""
from __future__ import annotations

import csv
import io
import random

from vxsynth.optrace import ANNOTATION_PREFIX, GEMM_OPS


def _aten(op: str) -> str:
    return "aten::" + op.split(".")[1]


def trace_from_calls(calls, seed=0, drop_external_ids=False):
    rng = random.Random(seed)
    events = []
    ext = 0
    corr = 0
    ts = 1000.0
    gpu_ts = 1000.0
    durations = {}
    for call in calls:
        if call["op"] not in GEMM_OPS:
            continue
        key = (call["op"], str(call["args"]))
        if key not in durations:
            durations[key] = rng.uniform(2.0, 40.0)
        ext += 1
        outer = {"ph": "X", "cat": "cpu_op", "name": "aten::linear" if "addmm" in call["op"] or call["op"] == "aten.mm.default" else _aten(call["op"]),
                 "pid": 1, "tid": 1, "ts": ts, "dur": 30.0, "args": {"External id": ext}}
        ext += 1
        annot = {"ph": "X", "cat": "user_annotation", "name": f"{ANNOTATION_PREFIX}{call['index']}",
                 "pid": 1, "tid": 1, "ts": ts + 1, "dur": 28.0, "args": {"External id": ext}}
        ext += 1
        shapes = [a["shape"] if isinstance(a, dict) and "shape" in a else [] for a in call["args"]]
        inner_name = "aten::cudnn_convolution" if call["op"] == "aten.convolution.default" else _aten(call["op"])
        inner = {"ph": "X", "cat": "cpu_op", "name": inner_name, "pid": 1, "tid": 1, "ts": ts + 2, "dur": 26.0,
                 "args": {"External id": ext, "Input Dims": shapes,
                          "Input type": [a["dtype"] if isinstance(a, dict) and "dtype" in a else "" for a in call["args"]]}}
        events += [outer, annot, inner]
        if call["op"] == "aten.convolution.default":
            kernels = [("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)", [4, 2, 1], [256, 1, 1], 0.1),
                       ("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn", [1, 8, 1], [128, 1, 1], 1.0)]
            api = ("cuda_runtime", "cudaLaunchKernel")
        else:
            kernels = [("nvjet_sm90_tst_128x104_64x7_1x2_h_bz_NNT", [2, 64, 1], [384, 1, 1], 1.0)]
            api = ("cuda_driver", "cuLaunchKernelEx")
        for i, (name, grid, block, scale) in enumerate(kernels):
            corr += 1
            launch_ts = ts + 3 + 4 * i
            events.append({"ph": "X", "cat": api[0], "name": api[1], "pid": 1, "tid": 1, "ts": launch_ts, "dur": 3.0,
                           "args": {"External id": ext, "correlation": corr}})
            dur = durations[key] * scale * rng.uniform(0.97, 1.03)
            kargs = {"External id": 0 if drop_external_ids else ext, "correlation": corr, "grid": grid, "block": block,
                     "registers per thread": 168 if block[0] == 384 else 32, "shared memory": 1024, "stream": 7}
            events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": gpu_ts, "dur": dur, "args": kargs})
            gpu_ts += dur + 1
        ts += 40.0
    events.append({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 5.0, "dur": 0.8, "args": {}})
    return {"schemaVersion": 1, "traceEvents": events}


def ncu_csv_for(template_csv: str, kernels, counters: dict, drop_prefixes=()) -> str:
    """An ncu raw CSV with one row per (name, grid, block) in `kernels`, built on the header of a
    real ncu CSV; every counter in `counters` gets a column (added if the template lacks it)."""
    with open(template_csv, newline="") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, units, template = rows[0], rows[1], rows[2]
    for name in counters:
        if name not in header:
            header.append(name)
            units.append("")
            template.append("0")
    keep = [i for i, h in enumerate(header) if not any(h.startswith(p) for p in drop_prefixes)]
    out = io.StringIO()
    out.write("==PROF== Connected to process 1 (python3)\n")
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow([header[i] for i in keep])
    w.writerow([units[i] for i in keep])
    for n, (name, grid, block) in enumerate(kernels):
        row = list(template)
        row[header.index("ID")] = str(n)
        row[header.index("Kernel Name")] = name
        row[header.index("Grid Size")] = "({}, {}, {})".format(*grid)
        row[header.index("Block Size")] = "({}, {}, {})".format(*block)
        for c, v in counters.items():
            row[header.index(c)] = str(v)
        geometry = [("launch__grid_size", grid[0] * grid[1] * grid[2]), ("launch__block_size", block[0] * block[1] * block[2])]
        geometry += [(f"launch__grid_dim_{a}", g) for a, g in zip("xyz", grid)]
        geometry += [(f"launch__block_dim_{a}", b) for a, b in zip("xyz", block)]
        for c, v in geometry:
            if c in header:
                row[header.index(c)] = str(v)
        w.writerow([row[i] for i in keep])
    out.write("==PROF== Disconnected from process 1\n")
    return out.getvalue()
