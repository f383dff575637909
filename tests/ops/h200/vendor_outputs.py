#!/usr/bin/env python3
"""Vendor outputs for the tolerance tests: the suite's ops through PyTorch on an NVIDIA GPU.

Regenerates, bit for bit, the inputs `vxsynth ref --seed S` writes (src/ops/inputs.cpp: one
splitmix64 stream per tensor, uniform draws, one rounding to the storage type), runs each op with
cuBLAS/cuDNN under PyTorch's default math modes (docs/ops.md, "Precision paths"), and packs the
outputs with a manifest into one tar for tests/data/ops/h200/. The C++ test
`VendorOutputs.PassTheSourceCheck` (tests/ops/test_vendor.cpp) checks them against the CPU
reference. Run on the GPU machine:

    PYTHONPATH=python python3 tests/ops/h200/vendor_outputs.py --out $OUT/vendor.tar

`--device cpu` runs the same plumbing on a CPU (for testing the script, not for data).
"""
import argparse
import io
import json
import math
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "python"))
from vxsynth import tensor_file as tf  # noqa: E402

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MUL1 = np.uint64(0xBF58476D1CE4E5B9)
MUL2 = np.uint64(0x94D049BB133111EB)
MASK = (1 << 64) - 1


def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * MUL1
    z = (z ^ (z >> np.uint64(27))) * MUL2
    return z ^ (z >> np.uint64(31))


def splitmix_first(seed):
    with np.errstate(over="ignore"):
        return int(_mix(np.array([(seed + int(GAMMA)) & MASK], dtype=np.uint64))[0])


def splitmix_stream(seed, n):
    """The first n outputs of SplitMix64(seed).next()."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) * GAMMA
        return _mix(z)


def round_f64(values, dtype):
    """One rounding of fp64 values to the storage type, as Tensor::set_from_double does."""
    if dtype == "float32":
        return torch.from_numpy(values.astype(np.float32))
    f = values.astype(np.float32)
    back = f.astype(np.float64)
    inexact = back != values
    bits = f.view(np.uint32).copy()
    bits[inexact & (np.abs(back) > np.abs(values))] -= np.uint32(1)  # toward zero
    bits[inexact] |= np.uint32(1)  # round to odd: no double rounding below
    if dtype == "float16":
        return torch.from_numpy(bits.view(np.float32).astype(np.float16))
    with np.errstate(over="ignore"):
        b16 = ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    return torch.from_numpy(b16.view(np.int16)).view(torch.bfloat16)


STORAGE = {"fp32": "float32", "tf32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def input_descs(op):
    """(name, shape) of each input in OpSpec::inputs() order."""
    kind = op["kind"]
    if kind == "linear":
        p = op["linear"]
        d = [("x", [p["m"], p["k"]]), ("weight", [p["n"], p["k"]])]
        return d + ([("bias", [p["n"]])] if p.get("bias") else [])
    if kind == "matmul":
        p = op["matmul"]
        a = p.get("batch_a", []) + ([p["k"], p["m"]] if p.get("transpose_a") else [p["m"], p["k"]])
        b = p.get("batch_b", []) + ([p["n"], p["k"]] if p.get("transpose_b") else [p["k"], p["n"]])
        return [("a", a), ("b", b)]
    p = op["conv"]
    nd = 1 if kind == "conv1d" else 2
    lst = lambda v: v if isinstance(v, list) else [v] * nd  # noqa: E731
    size, ker = lst(p["input_size"]), lst(p["kernel"])
    g = p.get("groups", 1)
    last = p.get("layout") in ("NHWC", "NLC")
    x = [p["batch"]] + (size + [p["in_channels"]] if last else [p["in_channels"]] + size)
    w = [p["out_channels"]] + (ker + [p["in_channels"] // g] if last else [p["in_channels"] // g] + ker)
    return [("input", x), ("weight", w)] + ([("bias", [p["out_channels"]])] if p.get("bias") else [])


def reduction_length(op):
    kind = op["kind"]
    if kind in ("linear", "matmul"):
        return op[kind]["k"]
    p = op["conv"]
    ker = p["kernel"] if isinstance(p["kernel"], list) else [p["kernel"]]
    return p["in_channels"] // p.get("groups", 1) * math.prod(ker)


def generate_inputs(op, seed):
    dtype = STORAGE[op["precision"]]
    out = {}
    for i, (name, shape) in enumerate(input_descs(op)):
        scale = {"weight": 3.0 / math.sqrt(reduction_length(op)), "b": 3.0 / math.sqrt(reduction_length(op)),
                 "bias": 0.5}.get(name, 1.0)
        rng_seed = splitmix_first(seed ^ ((0xA0761D6478BD642F * (i + 1)) & MASK))
        u = (splitmix_stream(rng_seed, math.prod(shape)) >> np.uint64(11)).astype(np.float64) * 2.0 ** -52 - 1.0
        out[name] = round_f64(scale * u, dtype).reshape(shape)
    return out


def run_op(op, t, device, tf32_conv=True):
    """The op as PyTorch runs it: F.linear / torch.matmul / F.conv*, activation as its own kernel."""
    torch.backends.cuda.matmul.allow_tf32 = op["precision"] == "tf32"
    torch.backends.cudnn.allow_tf32 = tf32_conv
    t = {k: v.to(device) for k, v in t.items()}
    kind = op["kind"]
    if kind == "linear":
        y = F.linear(t["x"], t["weight"], t.get("bias"))
        act = op["linear"].get("activation", "none")
    elif kind == "matmul":
        p = op["matmul"]
        a = t["a"].transpose(-1, -2) if p.get("transpose_a") else t["a"]
        b = t["b"].transpose(-1, -2) if p.get("transpose_b") else t["b"]
        y = torch.matmul(a, b)
        act = "none"
    else:
        p = op["conv"]
        last = p.get("layout") in ("NHWC", "NLC")
        x, w = t["input"], t["weight"]
        if last:  # physical channels-last -> logical NC.. views in channels_last memory format
            x, w = x.movedim(-1, 1), w.movedim(-1, 1)
        conv = F.conv2d if kind == "conv2d" else F.conv1d
        y = conv(x, w, t.get("bias"), stride=p.get("stride", 1), padding=p.get("padding", 0),
                 dilation=p.get("dilation", 1), groups=p.get("groups", 1))
        if last:
            y = y.movedim(1, -1)
        act = p.get("activation", "none")
    y = {"none": lambda v: v, "relu": F.relu, "silu": F.silu, "gelu": F.gelu,
         "gelu_tanh": lambda v: F.gelu(v, approximate="tanh")}[act](y)
    if device != "cpu":
        torch.cuda.synchronize()
    return y.contiguous().cpu()


# name, op spec file, seed, output rows kept (dim 0; None = all), variant
CASES = [
    ("pi0_gate_proj", "pi0_gate_proj.json", 1, [0, 1, 2, 3, 812, 813, 814, 815], "default"),
    ("pi0_down_proj", "pi0_down_proj.json", 2, [0, 1, 2, 3, 812, 813, 814, 815], "default"),
    ("pi0_siglip_fc1", "pi0_siglip_fc1.json", 3, list(range(16)), "default"),
    ("act_layer4_conv2", "act_layer4_conv2.json", 4, None, "default"),
    ("act_layer4_conv2_fp16_operands", "act_layer4_conv2.json", 4, None, "fp16_operands"),
    ("act_ffn_linear2", "act_ffn_linear2.json", 5, None, "default"),
    ("act_attn_qk", "act_attn_qk.json", 6, [0, 7], "default"),
    ("act_ffn_linear1_tf32", "act_ffn_linear1_tf32.json", 8, list(range(16)), "default"),
    ("dp_up0_conv1", "dp_up0_conv1.json", 7, None, "default"),
    ("dp_up0_conv1_ieee", "dp_up0_conv1.json", 7, None, "no_tf32"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="tar file to write")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--only", default="", help="comma-separated case names")
    args = ap.parse_args()
    specs = REPO / "tests" / "data" / "ops" / "h200"
    manifest = {"schema": "vxsynth.vendor-outputs/1", "torch": torch.__version__,
                "device": torch.cuda.get_device_name() if args.device != "cpu" else "cpu",
                "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version() if args.device != "cpu" else None,
                "cases": []}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, spec_file, seed, rows, variant in CASES:
            if args.only and name not in args.only.split(","):
                continue
            op = json.loads((specs / spec_file).read_text())
            t = generate_inputs(op, seed)
            if variant == "fp16_operands":  # fp16 operands, fp32 FFMA: what the Vortex side computes
                t = {k: (v.half().float() if k != "bias" else v) for k, v in t.items()}
            y = run_op(op, t, args.device, tf32_conv=variant != "no_tf32")
            if rows is not None:
                y = y[rows]
            out = tf.from_torch(y, name=name, seed=seed)
            data = io.BytesIO()
            with tempfile.TemporaryDirectory() as tmp:  # private: no fixed /tmp name to collide on
                path = Path(tmp) / f"{name}.tensor"
                tf.write_tensor(str(path), out)
                data = path.read_bytes()
            info = tarfile.TarInfo(f"{name}.tensor")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            manifest["cases"].append({"name": name, "op": spec_file, "seed": seed, "rows": rows, "variant": variant,
                                      "output": f"{name}.tensor", "shape": list(y.shape)})
            print(f"{name}: {list(y.shape)} {y.dtype}", flush=True)
        m = json.dumps(manifest, indent=2).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(m)
        tar.addfile(info, io.BytesIO(m))
    Path(args.out).write_bytes(buf.getvalue())


if __name__ == "__main__":
    main()
