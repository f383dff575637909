"""The operator context of a hot kernel: op kind, shapes, dtypes, layout, convolution
parameters and the GEMM view, from the tracked ATen call (OpTracker log) and the trace's op
chain. This is what the C++ side needs to rebuild the operator (reference.json "op")."""
from __future__ import annotations

import math

import torch


def _tensor_args(call):
    return [a for a in call["args"] if isinstance(a, dict) and "shape" in a]


def _is_contiguous(t) -> bool:
    expected, acc = [], 1
    for size in reversed(t["shape"]):
        expected.append(acc)
        acc *= max(size, 1)
    expected.reverse()
    return all(s == e or size == 1 for s, e, size in zip(t["stride"], expected, t["shape"]))


def _is_transposed_2d(t) -> bool:
    return len(t["shape"]) >= 2 and t["stride"][-2] == 1 and t["stride"][-1] == t["shape"][-2]


def tensor_layout(t) -> str:
    if _is_contiguous(t):
        return "contiguous"
    if _is_transposed_2d(t):
        return "transposed"
    return "strided"


def op_kind(call, op_chain=()) -> str:
    """linear, matmul, batched_matmul, conv1d, conv2d, conv_transpose1d, conv_transpose2d, or the
    ATen op's own name for everything else (softmax, native_group_norm, mish, copy_, ...)."""
    op = call["op"] if call else ""
    base = op.split(".")[1] if op.startswith("aten.") else op
    chain = set(op_chain)
    if base == "convolution":
        weight = _tensor_args(call)[1]
        transposed = bool(call["args"][6]) if len(call["args"]) > 6 else False
        dims = len(weight["shape"]) - 2
        return f"conv_transpose{dims}d" if transposed else f"conv{dims}d"
    if base in ("addmm", "mm"):
        return "linear" if "aten::linear" in chain else "matmul"
    if base in ("bmm", "baddbmm"):
        return "batched_matmul"
    return base or "unknown"


def _conv_out(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _conv_params(call):
    args = call["args"]
    # aten.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    return {"stride": list(args[3]), "padding": list(args[4]), "dilation": list(args[5]),
            "transposed": bool(args[6]), "output_padding": list(args[7]), "groups": int(args[8])}


def gemm_view(call, kind) -> dict | None:
    """M, N, K (and batch) of the operator seen as a GEMM (workloads.md conventions)."""
    tensors = _tensor_args(call)
    if kind in ("linear", "matmul"):
        a, b = (tensors[1], tensors[2]) if call["op"].startswith("aten.addmm") else (tensors[0], tensors[1])
        return {"batch": 1, "M": a["shape"][0], "N": b["shape"][1], "K": a["shape"][1]}
    if kind == "batched_matmul":
        a, b = (tensors[1], tensors[2]) if call["op"].startswith("aten.baddbmm") else (tensors[0], tensors[1])
        return {"batch": a["shape"][0], "M": a["shape"][1], "N": b["shape"][2], "K": a["shape"][2]}
    if kind.startswith("conv"):
        x, w = tensors[0], tensors[1]
        p = _conv_params(call)
        spatial_in = x["shape"][2:]
        ks = w["shape"][2:]
        if p["transposed"]:
            # Each output position sees C_in x (k / stride) taps (workloads.md's ConvTranspose rows).
            out = [(i - 1) * s - 2 * pd + d * (k - 1) + op + 1
                   for i, k, s, pd, d, op in zip(spatial_in, ks, p["stride"], p["padding"], p["dilation"], p["output_padding"])]
            c_in = w["shape"][0]
            taps = math.prod(max(k // s, 1) for k, s in zip(ks, p["stride"]))
            return {"batch": 1, "M": x["shape"][0] * math.prod(out), "N": w["shape"][1] * p["groups"],
                    "K": c_in // p["groups"] * taps, "output_spatial": out}
        out = [_conv_out(i, k, s, pd, d) for i, k, s, pd, d in zip(spatial_in, ks, p["stride"], p["padding"], p["dilation"])]
        return {"batch": 1, "M": x["shape"][0] * math.prod(out), "N": w["shape"][0],
                "K": w["shape"][1] * math.prod(ks), "output_spatial": out}
    return None


def tf32_flags() -> tuple[bool, bool]:
    """(cuDNN conv TF32, cuBLAS matmul TF32) as this process has them; PyTorch's defaults if the
    flags cannot be read (torch 2.9+ warns about the legacy flags and can refuse mixed use)."""
    try:
        return bool(torch.backends.cudnn.allow_tf32), bool(torch.backends.cuda.matmul.allow_tf32)
    except RuntimeError:
        return True, False


def math_mode(kind, dtypes) -> str:
    """The arithmetic PyTorch's defaults select for fp32 (ncu-profiling.md section 5): cuDNN
    convolutions run TF32, cuBLAS matmuls run IEEE fp32."""
    if dtypes and all(d == "float32" for d in dtypes[:2]):
        conv_tf32, matmul_tf32 = tf32_flags()
        if kind.startswith("conv"):
            return "tf32" if conv_tf32 else "fp32"
        if kind in ("linear", "matmul", "batched_matmul"):
            return "tf32" if matmul_tf32 else "fp32"
        return "fp32"
    return dtypes[0] if dtypes else "unknown"


def kernel_role(kernel_name: str, kind: str) -> str:
    """What the kernel does for its operator: the operator's arithmetic ("compute"), or a
    layout change a library inserts around it ("layout_transform", e.g. cuDNN's nchwToNhwc on the
    input or the weight), or a separate reduction/epilogue pass ("split_k_reduction")."""
    name = kernel_name.lower()
    if any(t in name for t in ("nchwtonhwc", "nhwctonchw", "transpose", "layout")):
        return "layout_transform"
    gemm_like = kind in ("linear", "matmul", "batched_matmul") or kind.startswith("conv")
    if gemm_like and "splitk" in name.replace("_", "") and "reduce" in name:
        return "split_k_reduction"
    return "compute"


def context(call, op_chain, trace_op) -> dict:
    """The reference "op" object for a tracked call (may be None for kernels outside any op)."""
    if call is None:
        return {"kind": "unknown", "aten_op": trace_op.get("name") if trace_op else None}
    kind = op_kind(call, op_chain)
    tensors = _tensor_args(call)
    dtypes = [t["dtype"] for t in tensors]
    out = {
        "kind": kind,
        "aten_op": trace_op.get("name") if trace_op else None,   # innermost op in the trace
        "dispatch_op": call["op"],                               # what OpTracker saw
        "op_chain": list(op_chain),
        "module": call["module"],
        "input_shapes": [t["shape"] for t in tensors],
        "dtypes": dtypes,
        "strides": [t["stride"] for t in tensors],
        "layouts": [tensor_layout(t) for t in tensors],
        "math": math_mode(kind, dtypes),
        "fused_activation": "none",
    }
    if kind.startswith("conv"):
        out.update(_conv_params(call))
        out["layout"] = {3: "NCW", 4: "NCHW"}.get(len(tensors[0]["shape"]), "unknown")
    elif kind in ("linear", "matmul", "batched_matmul"):
        out["layout"] = "row-major; B " + out["layouts"][-1]
        if call["op"].startswith("aten.addmm") or call["op"].startswith("aten.baddbmm"):
            out["bias"] = True
    gemm = gemm_view(call, kind)
    if gemm is not None:
        out["gemm"] = gemm
    return out
