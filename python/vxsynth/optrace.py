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
"""
from __future__ import annotations

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
            })
        window = index in self.profile_windows
        if window:
            self.window_ops[index] = str(func)
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
        try:
            if self.annotate:
                with torch.profiler.record_function(f"{ANNOTATION_PREFIX}{index}"):
                    return func(*args, **kwargs)
            return func(*args, **kwargs)
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
