"""reference.json (schema vxsynth.reference/1): one hot kernel of one workload on one platform.

"signature" holds one kernel object exactly as `vxsynth signature --json` printed it, so that
`vxsynth distance` can read a reference.json directly.
"""
from __future__ import annotations

import json
import math

SCHEMA = "vxsynth.reference/1"
COVERAGE_SCHEMA = "vxsynth.coverage/1"
SIGNATURE_SCHEMA = "vxsynth.signature/1"
METRIC_IDS = ("l1_hit_rate", "l2_hit_rate", "coalescing", "compute_throughput", "tensor_utilization",
              "atomics_per_instruction", "arithmetic_intensity", "dram_bandwidth", "active_lane_fraction",
              "occupancy")

# Platforms the capture knows (the C++ side's table, src/signature/platform.cpp, names the same
# ids: python/tests/test_platforms.py). A platform without DRAM counters (Jetson's ga10b has no
# dram__* metrics in ncu 2025.3) records those two metrics as unmeasured.
PLATFORMS = {
    "h200": {"match": ("H200",), "unmeasurable": []},
    "h100": {"match": ("H100",), "unmeasurable": []},
    "jetson-agx-orin": {"match": ("Orin", "ga10b"), "unmeasurable": ["arithmetic_intensity", "dram_bandwidth"]},
}


class ReferenceError(ValueError):
    pass


def platform_id_for(gpu_name: str) -> str:
    for pid, spec in PLATFORMS.items():
        if any(m.lower() in gpu_name.lower() for m in spec["match"]):
            return pid
    return gpu_name.lower().replace("nvidia", "").strip().replace(" ", "-") or "unknown"


def unmeasurable_for(platform_id: str) -> list[str]:
    return list(PLATFORMS.get(platform_id, {}).get("unmeasurable", []))


def op_slug(kind: str) -> str:
    return kind.replace("_", "-").strip("-") or "op"


def bench_dir_name(workload: str, rank: int, kind: str) -> str:
    return f"{workload}-{rank}-{op_slug(kind)}"


def fixed_properties(op: dict, launch: dict, signature: dict) -> dict:
    reading = {p["key"]: p for p in signature.get("kernel_name_reading", {}).get("properties", [])}

    def read(key):
        p = reading.get(key)
        return p["value"] if p and p.get("check") != "contradicted" else None

    block = launch.get("block") or []
    role = op.get("kernel_role", "compute")
    out = {
        "engine_class": signature.get("engine", {}).get("class", "unknown"),
        "engine_basis": signature.get("engine", {}).get("basis", ""),
        "kernel_role": role,
        "data_types": {
            "inputs": op.get("dtypes", []),
            # A layout kernel moves the operator's data and does none of its arithmetic.
            "math": op.get("math") if role == "compute" else "none (data movement)",
            "accumulator": read("accumulator_type"),
            "kernel_input": read("input_type"),
        },
        "block_size": math.prod(block) if block else None,
        "shape": op.get("gemm") or {"input_shapes": op.get("input_shapes", [])},
    }
    if role == "layout_transform":
        out["note"] = ("a data-layout kernel the library runs for this operator (e.g. cuDNN's NCHW -> NHWC of "
                       "the input or weight); shape is the operator's")
    return out


def build_reference(*, workload: dict, platform: dict, hot: dict, op: dict, launch: dict,
                    signature: dict, profiled: dict, operator: dict | None = None) -> dict:
    """`signature` is the hot kernel's (the paper's scope); `operator` every kernel of the same
    ATen call aggregated (`vxsynth signature --operator`), the scope the suite's D is taken at."""
    ref = {
        "schema": SCHEMA,
        "workload": workload,
        "platform": platform,
        "kernel": {
            "name": hot["kernel"],
            "ncu_name": signature.get("name"),
            "rank": hot["rank"],
            "gpu_time_share": hot["share"],
            "cumulative_share": hot["cumulative_share"],
            "calls": hot["calls"],
            "gpu_time_ns_per_inference": hot["gpu_time_ns"],
            "mean_ns": hot["mean_ns"],
            "median_ns": hot["median_ns"],
            "launch_configs": hot.get("launch_configs", []),
            "profiled_instance": profiled,
        },
        "op": op,
        "launch": launch,
        "fixed_properties": fixed_properties(op, launch, signature),
        "signature": signature,
    }
    if operator is not None:
        ref["operator"] = operator
    return ref


def _require(obj, path, field, kind):
    cur = obj
    for part in field.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise ReferenceError(f"{path}: field '{field}': missing")
        cur = cur[part]
    if kind is not None and not isinstance(cur, kind):
        raise ReferenceError(f"{path}: field '{field}': expected {kind.__name__ if isinstance(kind, type) else kind}, "
                             f"got {type(cur).__name__}")
    return cur


def validate_reference(obj, path="reference.json") -> dict:
    if not isinstance(obj, dict):
        raise ReferenceError(f"{path}: expected a JSON object")
    schema = obj.get("schema")
    if schema != SCHEMA:
        raise ReferenceError(f"{path}: field 'schema': expected {SCHEMA!r}, got {schema!r}")
    for field, kind in (("workload.name", str), ("platform.id", str), ("kernel.name", str), ("kernel.rank", int),
                        ("kernel.gpu_time_share", (int, float)), ("kernel.cumulative_share", (int, float)),
                        ("kernel.calls", int), ("op.kind", str), ("launch.grid", list), ("launch.block", list),
                        ("fixed_properties.engine_class", str), ("signature.metrics", dict),
                        ("signature.unmeasured", dict)):
        _require(obj, path, field, kind)
    if "operator" in obj:
        for field, kind in (("operator.metrics", dict), ("operator.kernels", list), ("operator.duration_ns", (int, float))):
            _require(obj, path, field, kind)
        if not obj["operator"]["kernels"]:
            raise ReferenceError(f"{path}: field 'operator.kernels': empty (an operator runs at least one kernel)")
    metrics = obj["signature"]["metrics"]
    for m in METRIC_IDS:
        if m not in metrics:
            raise ReferenceError(f"{path}: field 'signature.metrics.{m}': missing")
        v = metrics[m]
        if v is None and m not in obj["signature"]["unmeasured"]:
            raise ReferenceError(f"{path}: field 'signature.metrics.{m}': null but not listed in signature.unmeasured")
        if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)):
            raise ReferenceError(f"{path}: field 'signature.metrics.{m}': expected a finite number or null")
    return obj


def load_reference(path) -> dict:
    try:
        with open(path) as f:
            obj = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ReferenceError(f"{path}: not readable JSON ({e})") from e
    return validate_reference(obj, str(path))


def measured_metrics(ref: dict) -> list[str]:
    return [m for m in METRIC_IDS if ref["signature"]["metrics"].get(m) is not None]
