"""Records the ATen operator calls of one inference, with their shapes, and marks them.

`OpTracker` is a TorchDispatchMode, so it sees every operator below autograd (aten.addmm,
aten.convolution, aten.bmm, ...) with its real arguments, on any device including meta. It can

- log each call: its index, the op, the innermost nn.Module that issued it, and every argument
  (tensor shape/dtype/stride, ints, lists, flags);
- annotate each call with a profiler range `vxop:<index>` so that a Kineto trace can tell which
  call launched which kernel;
- open a CUDA profiler window (cudaProfilerStart/Stop) around chosen calls, so that an
  `ncu --profile-from-start off` process profiles exactly those calls' kernels.

The call index is deterministic for a given model, config and inputs, which is what lets a
second process (ncu) find the instance the first one (torch.profiler) ranked.

Run as a program it is a dry run of capture that needs no GPU: one inference on the meta device
(shapes only, no arithmetic, no memory), its ATen calls grouped by op and shapes and ranked by
FLOPs or bytes:

    python3 -m vxsynth.optrace --workload act [--config small] [--sort flops|bytes] [--top N] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

ANNOTATION_PREFIX = "vxop:"


def describe_value(value):
    """A JSON-friendly description of one operator argument."""
    if isinstance(value, torch.Tensor):
        return {"shape": list(value.shape), "dtype": dtype_name(value.dtype), "stride": list(value.stride())}
    if isinstance(value, (list, tuple)):
        return [describe_value(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, torch.dtype):
        return dtype_name(value)
    return repr(value)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


# Ops that return an alias of their input without saying so in their schema.
UNANNOTATED_VIEWS = ("aten._unsafe_view.default", "aten.lift_fresh.default")


def is_view_op(func) -> bool:
    """True when the op returns an alias of an input (t, view, expand, slice, ...): no data moves."""
    if str(func) in UNANNOTATED_VIEWS:
        return True
    return any(r.alias_info is not None and not r.alias_info.is_write for r in func._schema.returns)


class OpTracker(TorchDispatchMode):
    def __init__(self, model: torch.nn.Module | None = None, *, log: bool = True,
                 annotate: bool = False, profile_windows=None):
        super().__init__()
        self.model = model
        self.log_calls = log
        self.annotate = annotate
        self.profile_windows = set(profile_windows or ())
        self.calls: list[dict] = []
        self.count = 0
        self.window_ops: dict[int, str] = {}  # the op each profiler window wrapped
        self._module_stack: list[str] = []
        self._hooks = []

    # nn.Module hooks keep a stack of qualified module names ("backbone.layer1.0.conv1").
    def _install_hooks(self):
        if self.model is None:
            return
        for name, module in self.model.named_modules():
            def pre(_m, _inp, name=name):
                self._module_stack.append(name)
            def post(_m, _inp, _out):
                self._module_stack.pop()
            self._hooks.append(module.register_forward_pre_hook(pre))
            self._hooks.append(module.register_forward_hook(post))

    def __enter__(self):
        self._install_hooks()
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            for h in self._hooks:
                h.remove()
            self._hooks.clear()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        index = self.count
        self.count += 1
        if self.log_calls:
            self.calls.append({
                "index": index,
                "op": str(func),
                "module": self._module_stack[-1] if self._module_stack else "",
                "args": [describe_value(a) for a in args],
                "kwargs": {k: describe_value(v) for k, v in kwargs.items()},
                # A view (t, view, expand, slice, ...) returns an alias of an input: no data moves.
                "view": is_view_op(func),
            })
        window = index in self.profile_windows
        if window:
            self.window_ops[index] = str(func)
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
        try:
            if self.annotate:
                with torch.profiler.record_function(f"{ANNOTATION_PREFIX}{index}"):
                    out = func(*args, **kwargs)
            else:
                out = func(*args, **kwargs)
            if self.log_calls:
                self.calls[-1]["out"] = describe_value(out)
            return out
        finally:
            if window:
                torch.cuda.synchronize()
                torch.cuda.profiler.stop()


def trace_ops(workload, config=None, device="meta", seed=0):
    """Builds a workload and runs one inference under the tracker; returns the call log."""
    cfg = workload.config(config)
    model = workload.build(cfg, device, seed)
    inputs = workload.make_inputs(cfg, device, seed)
    with OpTracker(model) as tracker:
        workload.infer(model, inputs)
    return tracker.calls


# Operators that do the arithmetic the suite reconstructs (GEMM-like and convolutions).
GEMM_OPS = ("aten.mm.default", "aten.addmm.default", "aten.bmm.default", "aten.baddbmm.default",
            "aten.convolution.default")


def gemm_calls(calls):
    return [c for c in calls if c["op"] in GEMM_OPS]


# ---- the dry run: FLOPs and bytes per call, grouped and ranked ----

def _element_size(dtype: str) -> int:
    return torch.empty((), dtype=getattr(torch, dtype)).element_size()


def _tensors(value):
    if isinstance(value, dict) and "shape" in value:
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _tensors(v)


def tensor_bytes(t: dict) -> int:
    """Bytes of the distinct elements of a described tensor: a broadcast (stride 0) dimension is
    stored once, so an expanded view counts what is really there."""
    n = math.prod(size for size, stride in zip(t["shape"], t["stride"]) if stride != 0)
    return n * _element_size(t["dtype"])


def call_cost(call) -> dict:
    """FLOPs and bytes of one logged call.

    FLOPs are counted for the GEMM-like ops and convolutions (2 * batch * M * N * K of their GEMM
    view, the convention of the workload tables); other ops get 0 (their arithmetic is a few
    operations per element and is not what the suite reconstructs). Bytes are the distinct
    bytes of every tensor argument and output: what the call must at least read and write; a
    view moves nothing and counts 0."""
    from . import opcontext  # opcontext imports nothing from here; late to keep import order simple
    flops = 0
    kind = opcontext.op_kind(call, ["aten::linear"])
    if call["op"] in GEMM_OPS:
        g = opcontext.gemm_view(call, kind)
        if g:
            flops = 2 * g["batch"] * g["M"] * g["N"] * g["K"]
    nbytes = 0
    if not call.get("view"):
        nbytes = sum(tensor_bytes(t) for t in _tensors(call["args"]))
        nbytes += sum(tensor_bytes(t) for t in _tensors(list(call.get("kwargs", {}).values())))
        nbytes += sum(tensor_bytes(t) for t in _tensors(call.get("out")))
    return {"kind": kind, "flops": flops, "bytes": nbytes}


def rank_ops(calls, sort="flops"):
    """Calls grouped by (op, input shapes), with their count, FLOPs and bytes, largest first."""
    groups = {}
    for c in calls:
        shapes = tuple(tuple(t["shape"]) for t in _tensors(c["args"]))
        key = (c["op"], shapes)
        cost = call_cost(c)
        g = groups.setdefault(key, {"op": c["op"], "kind": cost["kind"], "shapes": [list(s) for s in shapes],
                                    "module": c["module"], "calls": 0, "flops": 0, "bytes": 0})
        g["calls"] += 1
        g["flops"] += cost["flops"]
        g["bytes"] += cost["bytes"]
    other = "bytes" if sort == "flops" else "flops"
    return sorted(groups.values(), key=lambda g: (-g[sort], -g[other], g["op"]))


def dry_run(workload: str, config=None, sort="flops"):
    from . import models
    w = models.get(workload)
    calls = trace_ops(w, config)
    ranked = rank_ops(calls, sort)
    return {
        "schema": "vxsynth.optrace/1",
        "workload": workload,
        "config": config or w.module.DEFAULT_CONFIG,
        "device": "meta",
        "calls": len(calls),
        "flops": sum(g["flops"] for g in ranked),
        "bytes": sum(g["bytes"] for g in ranked),
        "sort": sort,
        "ops": ranked,
    }


def _print_table(result, top, out):
    ops = result["ops"][:top] if top else result["ops"]
    total_f, total_b = result["flops"], result["bytes"]
    print(f"dry run of {result['workload']} (config {result['config']}, meta device, one inference): "
          f"{result['calls']} ATen calls in {len(result['ops'])} groups, {total_f / 1e9:.2f} GFLOP in GEMM/conv ops, "
          f"{total_b / 1e6:.1f} MB of operands and results; top {len(ops)} by {result['sort']}", file=out)
    print(f"{'rank':>4} {'calls':>6} {'GFLOP':>10} {'flop%':>6} {'MB':>10} {'byte%':>6}  {'kind':<16} shapes  "
          f"[first module]", file=out)
    for i, g in enumerate(ops, 1):
        shapes = " ".join("x".join(map(str, s)) or "()" for s in g["shapes"])
        print(f"{i:>4} {g['calls']:>6} {g['flops'] / 1e9:>10.3f} {100 * g['flops'] / max(total_f, 1):>5.1f}% "
              f"{g['bytes'] / 1e6:>10.2f} {100 * g['bytes'] / max(total_b, 1):>5.1f}%  {g['kind']:<16} {shapes}  "
              f"[{g['module'] or '-'}]", file=out)


def main(argv=None):
    from . import models
    ap = argparse.ArgumentParser(prog="python3 -m vxsynth.optrace",
                                 description="Dry run of reference capture, no GPU needed: the ATen calls of "
                                             "one inference on the meta device, grouped by op and shapes, "
                                             "ranked by FLOPs or bytes.")
    ap.add_argument("--workload", "--model", required=True, choices=sorted(models.WORKLOADS))
    ap.add_argument("--config", help="model config (default: the workload's published one)")
    ap.add_argument("--sort", choices=("flops", "bytes"), default="flops")
    ap.add_argument("--top", type=int, default=15, help="rows to print (0: all)")
    ap.add_argument("--json", action="store_true", help="print vxsynth.optrace/1 JSON (all groups)")
    args = ap.parse_args(argv)
    try:
        result = dry_run(args.workload, args.config, args.sort)
    except ValueError as e:  # an unknown config
        print(f"optrace: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    else:
        _print_table(result, args.top, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
