"""Prints the suite's reference table from committed files (no GPU):

    python3 -m vxsynth.suite_table [--suite suite/vx-robotics] [--platform h200] [--json]

One block per workload: its coverage (share of GPU time the top kernels hold, latency, capture
time), then one row per hot kernel with its operator, GEMM view, engine class, time share and
the ten signature metrics.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import reference

REPO_ROOT = Path(__file__).resolve().parents[2]
SHORT = {"l1_hit_rate": "L1%", "l2_hit_rate": "L2%", "coalescing": "coal%", "compute_throughput": "SM%",
         "tensor_utilization": "TC%", "atomics_per_instruction": "atom/i", "arithmetic_intensity": "AI",
         "dram_bandwidth": "DRAM GB/s", "active_lane_fraction": "lanes", "occupancy": "occ%"}


def fmt_metric(mid, v):
    if v is None:
        return "n/m"
    if mid == "dram_bandwidth":
        return f"{v / 1e9:.0f}"
    if mid == "arithmetic_intensity":
        return f"{v:.3g}"
    if mid == "atomics_per_instruction":
        return f"{v:.2g}"
    if mid == "active_lane_fraction":
        return f"{v:.3f}"
    return f"{v:.1f}"


def shape_text(op):
    g = op.get("gemm")
    if g:
        b = f"{g['batch']}x" if g.get("batch", 1) != 1 else ""
        return f"{b}{g['M']}x{g['N']}x{g['K']}"
    shapes = op.get("input_shapes") or []
    return "x".join(str(d) for d in shapes[0]) if shapes else "-"


def load_suite(suite: Path, platform: str):
    pdir = suite / platform
    if not pdir.is_dir():
        raise reference.ReferenceError(f"{pdir}: no such folder (expected the committed references)")
    refs = [reference.load_reference(p) for p in sorted(pdir.glob("*/reference.json"))]
    coverage = {}
    for p in sorted(pdir.glob("*.coverage.json")):
        with open(p) as f:
            c = json.load(f)
        if c.get("schema") != reference.COVERAGE_SCHEMA:
            raise reference.ReferenceError(f"{p}: field 'schema': expected {reference.COVERAGE_SCHEMA!r}")
        coverage[c["workload"]["name"]] = c
    return refs, coverage


def render(refs, coverage) -> str:
    lines = []
    workloads = sorted({r["workload"]["name"] for r in refs} | set(coverage))
    header = ["#", "op", "role", "GEMM MxNxK", "math", "engine", "share", "cum", "calls", "kernel"]
    mids = list(reference.METRIC_IDS)
    for w in workloads:
        c = coverage.get(w)
        rs = sorted((r for r in refs if r["workload"]["name"] == w), key=lambda r: r["kernel"]["rank"])
        plat = (c or (rs[0] if rs else {})).get("platform", {})
        lines.append(f"== {w} ({(c or {}).get('workload', {}).get('config', '?')}) on {plat.get('gpu', '?')}, "
                     f"driver {plat.get('driver')}, CUDA {plat.get('cuda')}, torch {plat.get('torch')}, "
                     f"ncu {plat.get('ncu_version')} (cache-control {plat.get('cache_control')}) ==")
        if c:
            lat = c.get("latency_ms", {}).get("median_after_first")
            secs = c.get("capture_seconds", {}).get("total")
            lat_text = f"{lat:.1f} ms" if lat is not None else "n/a"
            lines.append(f"   top {c['top']} cover {100 * c['top_cumulative_share']:.1f}% of GPU kernel time "
                         f"({c['total_kernel_ns'] / 1e6:.2f} ms in {c['kernel_launches']} launches, "
                         f"{c['hot_kernel_identities']} identities); eager latency {lat_text}; "
                         f"capture took {secs} s")
        rows = [header + [SHORT[m] for m in mids]]
        for r in rs:
            k, op = r["kernel"], r["op"]
            name = r["signature"].get("name") or k["name"]
            role = {"layout_transform": "layout", "split_k_reduction": "splitk"}.get(op.get("kernel_role"), "compute")
            rows.append([str(k["rank"]), op["kind"], role, shape_text(op), op.get("math") or "-",
                         r["fixed_properties"]["engine_class"], f"{100 * k['gpu_time_share']:.1f}%",
                         f"{100 * k['cumulative_share']:.1f}%", str(k["calls"]),
                         name if len(name) <= 48 else name[:45] + "..."]
                        + [fmt_metric(m, r["signature"]["metrics"].get(m)) for m in mids])
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            lines.append("   " + "  ".join(cell.ljust(wd) for cell, wd in zip(row, widths)).rstrip())
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m vxsynth.suite_table", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=str(REPO_ROOT / "suite" / "vx-robotics"))
    ap.add_argument("--platform", default="h200")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON instead")
    args = ap.parse_args(argv)
    try:
        refs, coverage = load_suite(Path(args.suite), args.platform)
    except reference.ReferenceError as e:
        print(f"suite_table: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([{"bench": f"{r['workload']['name']}-{r['kernel']['rank']}-{r['op']['kind']}",
                           "share": r["kernel"]["gpu_time_share"], "metrics": r["signature"]["metrics"]}
                          for r in refs], indent=1))
    else:
        print(render(refs, coverage))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `... | head`: stop quietly
        sys.stderr.close()
        sys.exit(0)
