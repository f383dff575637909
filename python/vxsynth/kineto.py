"""Reads a Kineto (torch.profiler) trace and joins every GPU kernel to the ATen operator that
launched it, then aggregates GPU time by hot-kernel identity.

Join rule (ncu-profiling.md section 3): kernel.args["External id"] == cpu_op.args["External id"]
gives the innermost ATen op active at launch. When a kernel carries no usable External id, the
launch call (cudaLaunchKernel* in `cuda_runtime` *or* cuLaunchKernel* in `cuda_driver`: cuBLAS
nvjet, CUTLASS and cuDNN launch through the driver API) is found by its correlation id and the
innermost op enclosing that call on its thread is used.

Hot-kernel identity = (kernel name, operator, operator input shapes).
"""
from __future__ import annotations

import bisect
import gzip
import json
import statistics
from dataclasses import dataclass, field

from .optrace import ANNOTATION_PREFIX

_CONTAIN_EPS_US = 1e-3
_LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")
_CPU_RANGE_CATEGORIES = ("cpu_op", "user_annotation")


class TraceError(ValueError):
    """A trace that cannot be read or joined; the message names the file and what was wrong."""


def load_trace(path: str) -> dict:
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            trace = json.load(f)
    except (OSError, json.JSONDecodeError, EOFError) as e:
        raise TraceError(f"{path}: not a readable Kineto JSON trace ({e})") from e
    if isinstance(trace, list):  # torch 1.13 CPU-only traces are a bare event list
        trace = {"traceEvents": trace}
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise TraceError(f"{path}: field 'traceEvents': expected a list of events")
    return trace


@dataclass
class CpuRange:
    event: dict
    parent: "CpuRange | None" = None

    @property
    def name(self) -> str:
        return self.event.get("name", "")

    @property
    def cat(self) -> str:
        return self.event.get("cat", "")

    def chain(self) -> list["CpuRange"]:
        """This range and its ancestors, innermost first."""
        out, node = [], self
        while node is not None:
            out.append(node)
            node = node.parent
        return out


@dataclass
class KernelLaunch:
    name: str
    ts_us: float
    dur_ns: float
    correlation: int | None
    grid: list
    block: list
    registers_per_thread: int | None
    shared_memory: int | None
    stream: int | None
    external_id: int | None
    join: str                      # "external_id", "launch_call" or "none"
    op: dict | None = None         # the innermost ATen op: name, input dims/types/strides, concrete inputs
    op_chain: list = field(default_factory=list)   # enclosing op/annotation names, outermost first
    op_call: int | None = None     # OpTracker call index (from the vxop:<n> annotation), if annotated

    @property
    def op_name(self) -> str:
        return self.op["name"] if self.op else "(no operator)"

    @property
    def input_dims(self) -> list:
        return self.op["input_dims"] if self.op else []


def _is_range(e) -> bool:
    return e.get("ph") == "X" and "dur" in e and "ts" in e


def _contains(outer: dict, inner: dict) -> bool:
    return (inner["ts"] >= outer["ts"] - _CONTAIN_EPS_US
            and inner["ts"] + inner.get("dur", 0) <= outer["ts"] + outer["dur"] + _CONTAIN_EPS_US)


def _build_ranges(events):
    """CPU ranges (ops and annotations) per thread with parent links, plus a per-thread index
    used to find the innermost range around a timestamp."""
    per_thread: dict = {}
    for e in events:
        if _is_range(e) and e.get("cat") in _CPU_RANGE_CATEGORIES:
            per_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    ranges_by_id: dict = {}
    index: dict = {}
    for key, evs in per_thread.items():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack: list[CpuRange] = []
        nodes = []
        for e in evs:
            while stack and not _contains(stack[-1].event, e):
                stack.pop()
            node = CpuRange(e, stack[-1] if stack else None)
            stack.append(node)
            nodes.append(node)
            ranges_by_id[id(e)] = node
        index[key] = ([n.event["ts"] for n in nodes], nodes)
    return ranges_by_id, index


def _innermost_at(index, key, event):
    """Innermost CPU range on thread `key` that contains `event` (a launch call)."""
    if key not in index:
        return None
    starts, nodes = index[key]
    i = bisect.bisect_right(starts, event["ts"] + _CONTAIN_EPS_US) - 1
    # Walk back to the latest-starting range that contains the event, then it is the innermost
    # one among those that contain it (ranges nest).
    while i >= 0:
        node = nodes[i]
        if _contains(node.event, event):
            return node
        i -= 1
    return None


def _op_description(event: dict) -> dict:
    args = event.get("args", {})
    return {
        "name": event.get("name", ""),
        "input_dims": args.get("Input Dims", []),
        "input_types": args.get("Input type", []),
        "input_strides": args.get("Input Strides", []),
        "concrete_inputs": args.get("Concrete Inputs", []),
    }


def _innermost_op(node: CpuRange | None) -> CpuRange | None:
    while node is not None and node.cat != "cpu_op":
        node = node.parent
    return node


def join_kernels(trace: dict) -> list[KernelLaunch]:
    """Every `kernel` event of the trace joined to its operator, in launch order."""
    events = trace["traceEvents"]
    ranges_by_id, index = _build_ranges(events)
    ops_by_external: dict = {}
    for e in events:
        if _is_range(e) and e.get("cat") == "cpu_op":
            ext = e.get("args", {}).get("External id")
            if ext is not None and ext not in ops_by_external:
                ops_by_external[ext] = ranges_by_id[id(e)]
    launches_by_corr = {}
    for e in events:
        if _is_range(e) and e.get("cat") in _LAUNCH_CATEGORIES:
            corr = e.get("args", {}).get("correlation")
            if corr is not None:
                launches_by_corr[corr] = e

    out = []
    for e in events:
        if e.get("cat") != "kernel" or not _is_range(e):
            continue
        args = e.get("args", {})
        ext = args.get("External id")
        corr = args.get("correlation")
        node, how = None, "none"
        if ext and ext in ops_by_external:
            node, how = ops_by_external[ext], "external_id"
        elif corr in launches_by_corr:
            call = launches_by_corr[corr]
            node = _innermost_op(_innermost_at(index, (call.get("pid"), call.get("tid")), call))
            how = "launch_call" if node is not None else "none"
        launch = KernelLaunch(
            name=e.get("name", ""), ts_us=e["ts"], dur_ns=float(e["dur"]) * 1000.0, correlation=corr,
            grid=list(args.get("grid", [])), block=list(args.get("block", [])),
            registers_per_thread=args.get("registers per thread"), shared_memory=args.get("shared memory"),
            stream=args.get("stream"), external_id=ext, join=how)
        if node is not None:
            launch.op = _op_description(node.event)
            chain = node.chain()
            launch.op_chain = [n.name for n in reversed(chain)]
            for n in chain:
                if n.cat == "user_annotation" and n.name.startswith(ANNOTATION_PREFIX):
                    launch.op_call = int(n.name[len(ANNOTATION_PREFIX):])
                    break
        out.append(launch)
    out.sort(key=lambda k: (k.correlation if k.correlation is not None else float("inf"), k.ts_us))
    return out


def gpu_time_other(trace: dict) -> dict:
    """GPU time outside kernels (memcpy, memset), reported beside the kernel total."""
    totals = {"gpu_memcpy": 0.0, "gpu_memset": 0.0}
    for e in trace["traceEvents"]:
        if e.get("cat") in totals and _is_range(e):
            totals[e["cat"]] += float(e["dur"]) * 1000.0
    return {k + "_ns": v for k, v in totals.items()}


@dataclass
class HotKernel:
    rank: int
    name: str
    op_name: str
    input_dims: list
    launches: list            # KernelLaunch, launch order
    total_ns: float
    share: float = 0.0
    cumulative_share: float = 0.0

    @property
    def calls(self) -> int:
        return len(self.launches)

    def launch_configs(self) -> list[dict]:
        """The identity's launches grouped by (grid, block), most GPU time first. One identity can
        hold different launches: cuDNN's nchwToNhwc runs on a convolution's input *and* on its
        weight, with the same name, op and op shapes but very different grids and costs."""
        groups: dict = {}
        for k in self.launches:
            groups.setdefault((tuple(k.grid), tuple(k.block)), []).append(k)
        out = [{"grid": list(g), "block": list(b), "calls": len(ks), "gpu_time_ns": sum(k.dur_ns for k in ks),
                "launches": ks} for (g, b), ks in groups.items()]
        out.sort(key=lambda c: -c["gpu_time_ns"])
        return out

    def representative(self) -> KernelLaunch:
        """The instance to profile: within the launch configuration that holds most of this
        identity's GPU time, the one whose duration is closest to that configuration's median
        (earliest on ties)."""
        dominant = self.launch_configs()[0]["launches"]
        med = statistics.median(k.dur_ns for k in dominant)
        return min(dominant, key=lambda k: abs(k.dur_ns - med))

    def summary(self) -> dict:
        durs = [k.dur_ns for k in self.launches]
        return {
            "rank": self.rank, "kernel": self.name, "operator": self.op_name, "input_dims": self.input_dims,
            "calls": self.calls, "gpu_time_ns": round(self.total_ns, 3),
            "mean_ns": round(self.total_ns / self.calls, 3), "median_ns": round(statistics.median(durs), 3),
            "min_ns": min(durs), "max_ns": max(durs),
            "share": self.share, "cumulative_share": self.cumulative_share,
            "launch_configs": [{"grid": c["grid"], "block": c["block"], "calls": c["calls"],
                                "gpu_time_ns": round(c["gpu_time_ns"], 3)} for c in self.launch_configs()],
        }


def identity(k: KernelLaunch) -> tuple:
    return (k.name, k.op_name, json.dumps(k.input_dims))


def aggregate(launches: list[KernelLaunch]) -> list[HotKernel]:
    """Groups launches by identity and ranks them by total GPU time (ties: first launched first)."""
    groups: dict = {}
    for k in launches:
        groups.setdefault(identity(k), []).append(k)
    total = sum(k.dur_ns for k in launches)
    hot = [HotKernel(0, key[0], key[1], ks[0].input_dims, ks, sum(k.dur_ns for k in ks))
           for key, ks in groups.items()]
    order = {key: i for i, key in enumerate(groups)}  # dicts keep first-launch order
    keys = {id(h): (h.name, h.op_name, json.dumps(h.input_dims)) for h in hot}
    hot.sort(key=lambda h: (-h.total_ns, order[keys[id(h)]]))
    acc = 0.0
    for rank, h in enumerate(hot, start=1):
        h.rank = rank
        h.share = h.total_ns / total if total > 0 else 0.0
        acc += h.total_ns
        h.cumulative_share = acc / total if total > 0 else 0.0
    return hot


def coverage(hot: list[HotKernel], ks=(1, 3, 5, 10, 20)) -> list[dict]:
    return [{"k": k, "cumulative_share": hot[min(k, len(hot)) - 1].cumulative_share}
            for k in ks if hot]


def window_of(launch: KernelLaunch, launches: list[KernelLaunch]) -> tuple[list[KernelLaunch], int]:
    """All kernels launched by the same tracked operator call (launch order) and the position of
    `launch` among them. Needs an annotated trace."""
    if launch.op_call is None:
        raise TraceError(f"kernel {launch.name!r} (correlation {launch.correlation}) is not inside a "
                         f"'{ANNOTATION_PREFIX}<n>' range: the trace was not recorded with OpTracker(annotate=True)")
    window = [k for k in launches if k.op_call == launch.op_call]
    position = next(i for i, k in enumerate(window) if k is launch)
    return window, position
