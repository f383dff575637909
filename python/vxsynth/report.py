"""The suite report: a static HTML page with figures, from a locked suite's committed files.

    python3 -m vxsynth.report SUITE_DIR -o OUT_DIR        (what `vxsynth report` runs)

Reads only files: SUITE_DIR/suite.json (the plan), SUITE_DIR/*.coverage.json (each workload's
ranked hot kernels), and per benchmark reference.json, signature.json, validation.json and
revisions.jsonl (a benchmark without signature.json is not locked), and vortex-signature.json (the
Vortex side's signature, `vxsynth suite run --signature`) where it exists. Writes OUT_DIR/index.html
and OUT_DIR/figures/*.svg and *.png. The page needs no server and no network: figures are
files beside it, the table's sorting is a few lines of inline script. docs/report.md says what
each figure shows and how to read it.
"""
from __future__ import annotations

import argparse
import html
import json
import math
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from . import reference

# The four pressure groups of the ten metrics (docs/signature.md), in display order.
GROUPS = (
    ("where traffic is served", ("l1_hit_rate", "l2_hit_rate", "coalescing")),
    ("engine and commit", ("compute_throughput", "tensor_utilization", "atomics_per_instruction")),
    ("work per byte", ("arithmetic_intensity", "dram_bandwidth")),
    ("machine busy", ("active_lane_fraction", "occupancy")),
)
METRICS = tuple(m for _, ms in GROUPS for m in ms)
GROUP_OF = {m: g for g, ms in GROUPS for m in ms}
GROUP_COLOR = {"where traffic is served": "#1f77b4", "engine and commit": "#d62728",
               "work per byte": "#2ca02c", "machine busy": "#9467bd"}
# Display unit and scale of each metric's value.
UNIT = {"l1_hit_rate": ("%", 1), "l2_hit_rate": ("%", 1), "coalescing": ("%", 1),
        "compute_throughput": ("%", 1), "tensor_utilization": ("%", 1),
        "atomics_per_instruction": ("ratio", 1), "arithmetic_intensity": ("FLOP/byte", 1),
        "dram_bandwidth": ("GB/s", 1e-9), "active_lane_fraction": ("fraction", 1), "occupancy": ("%", 1)}
PERCENT = {"l1_hit_rate", "l2_hit_rate", "coalescing", "compute_throughput", "tensor_utilization", "occupancy"}
LOG_RATIO = {"arithmetic_intensity", "dram_bandwidth"}
FAMILY = {"linear": "matmul (linear, batched_matmul)", "batched_matmul": "matmul (linear, batched_matmul)",
          "matmul": "matmul (linear, batched_matmul)", "conv1d": "convolution (conv1d, conv2d)",
          "conv2d": "convolution (conv1d, conv2d)"}
BENCH_FILES = ("reference.json", "design.json", "signature.json", "validation.json", "revisions.jsonl",
               "vortex-signature.json", "cuda/", "vortex/")
VORTEX_COLOR = "#17becf"
# What each metric means on the Vortex side (docs/vxsim-timing.md, docs/suite.md), shown beside
# its value: where the number is computed differently from the H200's or cannot be alike.
VORTEX_MEANING = {
    "l1_hit_rate": "data-cache read hit rate of the L1 shared by the socket (16 KiB, 4 ways, write-through)",
    "l2_hit_rate": "not measured: Vortex 2.x has no L2 by default, so the metric is left out of D",
    "coalescing": "bytes asked / 32-byte sectors touched per warp load (the ncu definition)",
    "compute_throughput": "issued warp micro-instructions per issue slot (all units), not the SM's busiest pipe",
    "tensor_utilization": "tensor micro-ops per issue slot of the Vortex TCU",
    "atomics_per_instruction": "atomic warp instructions per warp instruction",
    "arithmetic_intensity": "FP32 FLOPs (+ tensor FLOPs) per byte between the L1 and memory",
    "dram_bandwidth": "memory bytes per second at the assumed core clock: a 1-core machine, not an H200",
    "active_lane_fraction": "thread-instructions per warp instruction and warp width",
    "occupancy": "active warps per warp slot of the design's Vortex cores, over the run's cycles",
}


class ReportError(ValueError):
    pass


# ---- reading ---------------------------------------------------------------------------------

def _load_json(path: Path, schema: str | None = None) -> dict:
    try:
        with open(path) as f:
            obj = json.load(f)
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file")
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not JSON ({e})")
    if schema and obj.get("schema") != schema:
        raise ReportError(f"{path}: field 'schema': expected {schema!r}, found {obj.get('schema')!r}")
    return obj


def _load_revisions(path: Path) -> list[dict]:
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                raise ReportError(f"{path}:{n}: not JSON ({e})")
            for field in ("revision", "decision", "d", "distances", "kind"):
                if field not in r:
                    raise ReportError(f"{path}:{n}: field {field!r} missing (expected a vxsynth.revision/1 line)")
            rows.append(r)
    return rows


def load_vortex_side(path: Path) -> dict:
    """A benchmark's vortex-signature.json (a vxsynth.signature/1 with a "vortex_side" record)."""
    doc = _load_json(path, "vxsynth.signature/1")
    side = doc.get("vortex_side")
    if not isinstance(side, dict) or side.get("schema") != "vxsynth.vortex-side/1":
        raise ReportError(f"{path}: field 'vortex_side.schema': expected 'vxsynth.vortex-side/1' "
                          "(written by `vxsynth suite run --signature`)")
    kernels = doc.get("kernels")
    if not isinstance(kernels, list) or len(kernels) != 1 or not isinstance(kernels[0].get("metrics"), dict):
        raise ReportError(f"{path}: field 'kernels': expected one kernel with its metrics")
    for field in ("machine", "cycles", "ipc", "distance_to_cuda", "distance_to_reference", "clock_mhz"):
        if field not in side:
            raise ReportError(f"{path}: field 'vortex_side.{field}' missing")
    return {"metrics": kernels[0]["metrics"], "side": side}


def suite_status(suite_dir: Path, status_file: Path | None = None) -> dict:
    """The suite table as `vxsynth suite status SUITE --json` computes it (the one source of the
    per-benchmark figures both show: tried/retained, seed D, final D, device seconds, the Vortex
    side's D): read from status_file (`vxsynth report` writes it), else asked of the binary
    (VXSYNTH, else build/vxsynth of this source tree)."""
    if status_file is not None:
        return _load_json(status_file, "vxsynth.suite-status/1")
    binary = os.environ.get("VXSYNTH") or str(Path(__file__).resolve().parents[2] / "build" / "vxsynth")
    if not os.path.isfile(binary):
        raise ReportError(f"{binary}: not found: the report takes the suite table from `vxsynth suite status --json` "
                          "(build vxsynth, set VXSYNTH, or pass --status FILE)")
    run = subprocess.run([binary, "suite", "status", str(suite_dir), "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise ReportError(f"`{binary} suite status {suite_dir} --json` failed: {run.stdout.strip()} {run.stderr.strip()}")
    return json.loads(run.stdout)


def load_suite(suite_dir: Path, status_file: Path | None = None) -> dict:
    """Everything the report shows, from the suite folder's files and the suite table."""
    plan = _load_json(suite_dir / "suite.json", "vxsynth.suite-plan/1")
    for b in plan.get("benchmarks", []):
        for field in ("name", "workload", "op", "share", "serves"):
            if field not in b:
                raise ReportError(f"{suite_dir / 'suite.json'}: benchmark {b.get('name', '?')}: field {field!r} missing")
    rows = {r["benchmark"]: r for r in suite_status(suite_dir, status_file).get("rows", [])}
    coverage = {}
    for p in sorted(suite_dir.glob("*.coverage.json")):
        c = _load_json(p, reference.COVERAGE_SCHEMA)
        coverage[c["workload"]["name"]] = c
    benches = []
    for b in plan.get("benchmarks", []):
        bdir = suite_dir / b["name"]
        ref = reference.load_reference(bdir / "reference.json")
        entry = {"plan": b, "dir": bdir, "reference": ref, "locked": (bdir / "signature.json").is_file(),
                 "status": rows.get(b["name"], {})}
        if entry["locked"]:
            entry["signature"] = _load_json(bdir / "signature.json", "vxsynth.locked-signature/1")
            entry["validation"] = _load_json(bdir / "validation.json", "vxsynth.validation/1")
            entry["design"] = _load_json(bdir / "design.json", "vxsynth.design/1")
            entry["revisions"] = _load_revisions(bdir / "revisions.jsonl")
            if (bdir / "vortex-signature.json").is_file():
                entry["vortex"] = load_vortex_side(bdir / "vortex-signature.json")
        benches.append(entry)
    if not benches:
        raise ReportError(f"{suite_dir / 'suite.json'}: field 'benchmarks': empty (nothing to report)")
    return {"dir": suite_dir, "plan": plan, "coverage": coverage, "benches": benches}


# ---- the distance (docs/signature.md), for the matrix and the spread over profiles ------------

def metric_distance(m: str, c: float, r: float) -> float:
    if m in PERCENT:
        d = abs(c - r) / 100.0
    elif m in LOG_RATIO:
        e = 1e-12
        if c + e <= 0 or r + e <= 0:
            return 1.0
        d = abs(math.log2((c + e) / (r + e))) / 5.0
    else:
        d = abs(c - r)
    return 1.0 if math.isnan(d) else min(max(d, 0.0), 1.0)


def distance(cand: dict, ref: dict) -> float | None:
    ds = [metric_distance(m, cand[m], ref[m]) for m in METRICS
          if cand.get(m) is not None and ref.get(m) is not None]
    return sum(ds) / len(ds) if ds else None


# ---- figures ----------------------------------------------------------------------------------

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.hashsalt": "vxsynth", "font.size": 9, "axes.titlesize": 10,
                                "figure.dpi": 100})
    import matplotlib.pyplot as plt
    return plt


class Figures:
    def __init__(self, out: Path, png: bool = True):
        self.dir = out / "figures"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.png = png
        self.written: list[str] = []
        self.size: dict[str, tuple[int, int]] = {}  # stem -> (width, height) in CSS pixels

    def save(self, fig, name: str) -> str:
        plt = _plt()
        w, h = fig.get_size_inches() * 96
        self.size[f"figures/{name}"] = (round(w), round(h))
        fig.savefig(self.dir / f"{name}.svg", format="svg", metadata={"Date": None})
        self.written.append(f"figures/{name}.svg")
        if self.png:
            fig.savefig(self.dir / f"{name}.png", format="png", dpi=110)
            self.written.append(f"figures/{name}.png")
        plt.close(fig)
        return f"figures/{name}"


def bench_of_rank(suite: dict) -> dict:
    """(workload, kernel rank) -> (benchmark name serving it, locked?)."""
    by_folder = {}
    for e in suite["benches"]:
        for s in e["plan"]["serves"]:
            by_folder[s["folder"]] = (e["plan"]["name"], e["locked"])
    out = {}
    for e in suite["benches"]:
        for s in e["plan"]["serves"]:
            ref_path = suite["dir"] / s["folder"] / "reference.json"
            rank = (reference.load_reference(ref_path)["kernel"]["rank"]
                    if s["folder"] != e["plan"]["name"] else e["reference"]["kernel"]["rank"])
            out[(e["plan"]["workload"], rank)] = by_folder[s["folder"]]
    return out


def coverage_figure(suite: dict, figs: Figures) -> tuple[str, list[dict]]:
    plt = _plt()
    owner = bench_of_rank(suite)
    workloads = sorted(suite["coverage"])
    fig, axes = plt.subplots(1, len(workloads), figsize=(4.6 * len(workloads), 3.8), squeeze=False)
    summary = []
    for ax, w in zip(axes[0], workloads):
        c = suite["coverage"][w]
        ranked = c["ranked"]
        ks = [r["rank"] for r in ranked]
        shares = [100 * r["share"] for r in ranked]
        colors, locked_share, ref_share = [], 0.0, 0.0
        for r in ranked:
            o = owner.get((w, r["rank"]))
            if o and o[1]:
                colors.append("#2ca02c")
                locked_share += r["share"]
                ref_share += r["share"]
            elif o:
                colors.append("#ff7f0e")
                ref_share += r["share"]
            else:
                colors.append("#c7c7c7")
        ax.bar(ks, shares, color=colors, edgecolor="black", linewidth=0.3)
        ax2 = ax.twinx()
        ax2.plot(ks, [100 * r["cumulative_share"] for r in ranked], "k.-", lw=1)
        ax2.set_ylim(0, 100)
        ax2.set_ylabel("cumulative share of GPU kernel time (%)")
        ax.set_xlabel("hot kernel, ranked by GPU time")
        ax.set_ylabel("share of GPU kernel time (%)")
        ax.set_title(f"{w}: suite covers {100 * locked_share:.1f}% (locked)")
        ax.set_xticks(ks[::2] if len(ks) > 12 else ks)
        summary.append({"workload": w, "locked_share": locked_share, "reference_share": ref_share,
                        "ranked": len(ranked), "total_ms": c["total_kernel_ns"] / 1e6,
                        "identities": c["hot_kernel_identities"]})
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    fig.legend(handles=[Patch(color="#2ca02c", label="served by a locked benchmark"),
                        Patch(color="#ff7f0e", label="suite reference, not locked"),
                        Patch(color="#c7c7c7", label="not in the suite"),
                        Line2D([], [], color="k", marker=".", label="cumulative share (right axis)")],
               loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0), frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return figs.save(fig, "coverage"), summary


def bench_figure(e: dict, figs: Figures) -> str:
    """Left: reference vs proxy for each metric, as bars relative to the larger of the two (the
    metrics have different units; the labels give the values with units). Right: the remaining
    per-metric distance and D."""
    plt = _plt()
    ref = e["reference"]["signature"]["metrics"]
    sig = e["signature"]["signature"]
    dist = e["signature"]["distances"]
    fig, (ax, axd) = plt.subplots(1, 2, figsize=(12, 5.2), sharey=True, gridspec_kw={"width_ratios": [1.6, 1]})
    ys = list(range(len(METRICS)))
    h = 0.38
    for y, m in zip(ys, METRICS):
        unit, scale = UNIT[m]
        r, c = ref.get(m), sig.get(m)
        top = max(abs(r or 0), abs(c or 0)) or 1.0
        for off, v, col in ((-h / 2, r, "#7f7f7f"), (h / 2, c, GROUP_COLOR[GROUP_OF[m]])):
            ax.barh(y + off, 0 if v is None else 100 * v / top, height=h, color=col)
            ax.text(1 + (0 if v is None else 100 * v / top), y + off,
                    "not measured" if v is None else f"{v * scale:.3g} {unit}", va="center", fontsize=7.5)
    ax.set_yticks(ys, [f"{m}" for m in METRICS])
    for t, m in zip(ax.get_yticklabels(), METRICS):
        t.set_color(GROUP_COLOR[GROUP_OF[m]])
    ax.invert_yaxis()
    ax.set_xlim(0, 135)
    ax.set_xlabel("value, % of the larger of reference and proxy (labels: the values with units)")
    ax.set_title("reference (grey, upper bar) vs locked CUDA proxy (colour, lower bar)")
    for y in (2.5, 5.5, 7.5):
        ax.axhline(y, color="#bbbbbb", lw=0.6)
        axd.axhline(y, color="#bbbbbb", lw=0.6)
    axd.barh(ys, [dist.get(m) or 0 for m in METRICS], color=[GROUP_COLOR[GROUP_OF[m]] for m in METRICS], height=0.6)
    for y, m in zip(ys, METRICS):
        axd.text((dist.get(m) or 0), y, f" {_fmt(dist.get(m))}", va="center", fontsize=7.5)
    d = e["signature"]["d"]
    axd.axvline(d, color="black", ls="--", lw=1)
    axd.set_xlim(0, max(0.1, max(dist.get(m) or 0 for m in METRICS) * 1.3))
    axd.set_xlabel("remaining distance to the reference (0 = same, 1 = max)")
    axd.set_title(f"per-metric distance; dashed: D = {d:.3f}")
    from matplotlib.patches import Patch
    fig.legend(handles=[Patch(color=GROUP_COLOR[g], label=g) for g, _ in GROUPS]
               + [Patch(color="#7f7f7f", label="reference")],
               loc="lower center", ncol=5, bbox_to_anchor=(0.5, 0), frameon=False, title="pressure group")
    fig.suptitle(f"{e['plan']['name']}: profile signature, reference vs proxy", fontsize=11)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return figs.save(fig, f"bench-{e['plan']['name']}")


def vortex_figure(e: dict, figs: Figures) -> str:
    """Left: the reference, the CUDA proxy and the Vortex side for each metric, as bars relative to
    the largest of the three (labels: the values with units). Right: the per-metric distance
    between the Vortex side and the CUDA proxy, and D."""
    plt = _plt()
    ref = e["reference"]["signature"]["metrics"]
    sig = e["signature"]["signature"]
    vx = e["vortex"]["metrics"]
    side = e["vortex"]["side"]
    dist = side["distance_to_cuda"]["distances"]
    fig, (ax, axd) = plt.subplots(1, 2, figsize=(12, 6.2), sharey=True, gridspec_kw={"width_ratios": [1.6, 1]})
    ys = list(range(len(METRICS)))
    h = 0.27
    for y, m in zip(ys, METRICS):
        unit, scale = UNIT[m]
        vals = (ref.get(m), sig.get(m), vx.get(m))
        top = max(abs(v or 0) for v in vals) or 1.0
        for off, v, col in ((-h, vals[0], "#7f7f7f"), (0, vals[1], GROUP_COLOR[GROUP_OF[m]]), (h, vals[2], VORTEX_COLOR)):
            ax.barh(y + off, 0 if v is None else 100 * v / top, height=h, color=col,
                    hatch="//" if col == VORTEX_COLOR else None, edgecolor="white" if col == VORTEX_COLOR else None)
            ax.text(1 + (0 if v is None else 100 * v / top), y + off,
                    "not measured" if v is None else f"{v * scale:.3g} {unit}", va="center", fontsize=7)
    ax.set_yticks(ys, list(METRICS))
    for t, m in zip(ax.get_yticklabels(), METRICS):
        t.set_color(GROUP_COLOR[GROUP_OF[m]])
    ax.invert_yaxis()
    ax.set_xlim(0, 140)
    ax.set_xlabel("value, % of the largest of the three (labels: the values with units)")
    ax.set_title("reference (grey, top), CUDA proxy on the H200 (colour, middle), Vortex side (cyan, bottom)")
    for y in (2.5, 5.5, 7.5):
        ax.axhline(y, color="#bbbbbb", lw=0.6)
        axd.axhline(y, color="#bbbbbb", lw=0.6)
    axd.barh(ys, [dist.get(m) or 0 for m in METRICS], color=VORTEX_COLOR, height=0.6)
    for y, m in zip(ys, METRICS):
        axd.text((dist.get(m) or 0), y, f" {_fmt(dist.get(m))}" if dist.get(m) is not None else " not scored",
                 va="center", fontsize=7.5)
    d = side["distance_to_cuda"]["d"]
    if d is not None:
        axd.axvline(d, color="black", ls="--", lw=1)
    axd.set_xlim(0, 1.25)
    axd.set_xlabel("distance, Vortex side to CUDA proxy (0 = same, 1 = max)")
    axd.set_title(f"per-metric distance; dashed: D = {_fmt(d)}")
    from matplotlib.patches import Patch
    fig.legend(handles=[Patch(color="#7f7f7f", label="reference (H200)"),
                        Patch(color="#555555", label="CUDA proxy (H200; colour = pressure group)"),
                        Patch(facecolor=VORTEX_COLOR, hatch="//", edgecolor="white",
                              label=f"Vortex side ({side['machine'].get('cores')}x{side['machine'].get('warps')}x"
                                    f"{side['machine'].get('threads')}, vortex2 timing, {side['clock_mhz']:g} MHz)")],
               loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0), frameon=False)
    fig.suptitle(f"{e['plan']['name']}: the Vortex side's signature beside the reference and the CUDA proxy",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return figs.save(fig, f"vortex-{e['plan']['name']}")


def _vortex_section(e: dict, vstem: str | None, figs: "Figures") -> str:
    name = e["plan"]["name"]
    if "vortex" not in e:
        return (f"<h3>The Vortex side</h3><p class='note'>No Vortex-side signature: "
                f"<code>vxsynth suite run SUITE --signature --bench {_e(name)}</code> makes it.</p>")
    side, vx = e["vortex"]["side"], e["vortex"]["metrics"]
    ref = e["reference"]["signature"]["metrics"]
    sig = e["signature"]["signature"]
    m_ = side["machine"]
    head = ("metric", "reference (H200)", "CUDA proxy (H200)", "Vortex side", "distance Vortex–CUDA",
            "what it means on Vortex")
    rows = []
    for m in METRICS:
        unit, scale = UNIT[m]
        cells = [m] + ["not measured" if v is None else f"{v * scale:.4g} {unit}" for v in (ref.get(m), sig.get(m), vx.get(m))]
        cells += [_fmt(side["distance_to_cuda"]["distances"].get(m)), VORTEX_MEANING[m]]
        rows.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    secs = side.get("wall_seconds", {}).get("simulate")
    return (f"<h3 id='vortex-{_e(name)}'>The Vortex side</h3>"
            f"<p>The committed Vortex benchmark at the profiled shape on the embedded simulator with the vortex2 "
            f"timing model: {m_.get('cores')} core(s) × {m_.get('warps')} warps × {m_.get('threads')} threads, "
            f"{side['cycles']:,} cycles, IPC {side['ipc']:.3f}, {side['clock_mhz']:g} MHz assumed"
            + (f", {secs:.0f} s to simulate" if secs is not None else "") + ". "
            f"D to the CUDA proxy {_fmt(side['distance_to_cuda']['d'], '.4f')} "
            f"({side['distance_to_cuda'].get('scored', '?')} metrics scored), to the reference "
            f"{_fmt(side['distance_to_reference']['d'], '.4f')}. The Vortex machine is not an H200: this D says how far "
            f"the shapes of pressure differ between the two machines running the same design, not how good the proxy is "
            f"(docs/report.md).</p>"
            + _fig(vstem, f"{name}: the Vortex side's ten metrics beside the reference and the CUDA proxy, and the "
                          f"distance between the Vortex side and the CUDA proxy", figs)
            + "<table class='small'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows)
            + "</table>")


def chain_figure(e: dict, figs: Figures) -> str:
    plt = _plt()
    rows = e["revisions"]
    fig, ax = plt.subplots(figsize=(9, 3.6))
    style = {"start": ("o", "#1f77b4", "start"), "retained": ("o", "#2ca02c", "retained"),
             "reverted": ("x", "#7f7f7f", "reverted"), "rejected": ("s", "#d62728", "rejected (check failed)")}
    for dec, (mk, col, label) in style.items():
        pts = [(r["revision"], r["d"]) for r in rows if r["decision"] == dec and r["d"] is not None]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=mk, color=col, label=label, zorder=3,
                       s=30 if mk != "x" else 24)
    # The chain's retained D over time: a step line through start and retained revisions.
    best_x, best_y, cur = [], [], None
    for r in rows:
        if r["decision"] in ("start", "retained") and r["d"] is not None:
            cur = r["d"]
        if cur is not None:
            best_x.append(r["revision"])
            best_y.append(cur)
    ax.step(best_x, best_y, where="post", color="#2ca02c", lw=1, label="retained D so far")
    for r in rows:
        if r["decision"] == "retained":
            ax.annotate(r["move"], (r["revision"], r["d"]), xytext=(4, -12), textcoords="offset points",
                        fontsize=7, color="#1a6e1a")
    nd = e["plan"].get("nearest_d")
    if nd:
        ax.axhline(nd, color="#ff7f0e", ls=":", lw=1, label=f"D to nearest other reference ({nd:.3f})")
    ax.set_xlabel("revision (attempt number in the chain)")
    ax.set_ylabel("D to the reference (unitless)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"{e['plan']['name']}: D per revision")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    fig.tight_layout()
    return figs.save(fig, f"chain-{e['plan']['name']}")


def responses(suite: dict) -> dict:
    """family -> axis -> metric -> list of changes in the metric's distance to the reference after
    a single-axis move (child distance - parent distance): negative = the move brought it closer."""
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for e in suite["benches"]:
        if not e["locked"]:
            continue
        fam = FAMILY.get(e["plan"]["op"], e["plan"]["op"])
        by_rev = {r["revision"]: r for r in e["revisions"]}
        for r in e["revisions"]:
            if r["kind"] != "single" or r.get("parent") is None or not r.get("moves"):
                continue
            p = by_rev.get(r["parent"])
            if not p or not p.get("distances") or not r.get("distances"):
                continue
            axis = r["moves"][0]["axis"]
            for m in METRICS:
                if r["distances"].get(m) is not None and p["distances"].get(m) is not None:
                    out[fam][axis][m].append(r["distances"][m] - p["distances"][m])
    return out


def heatmap_figures(suite: dict, figs: Figures) -> list[tuple[str, str, int]]:
    plt = _plt()
    import numpy as np
    res = responses(suite)
    made = []
    for i, fam in enumerate(sorted(res)):
        axes_ = sorted(res[fam])
        grid = np.full((len(axes_), len(METRICS)), np.nan)
        counts = np.zeros((len(axes_), len(METRICS)), dtype=int)
        for a, axis in enumerate(axes_):
            for j, m in enumerate(METRICS):
                v = res[fam][axis].get(m, [])
                counts[a, j] = len(v)
                if v:
                    grid[a, j] = sum(v) / len(v)
        lim = max(0.02, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 0.02)
        fig, ax = plt.subplots(figsize=(11, 0.55 * len(axes_) + 2.2))
        im = ax.imshow(grid, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
        for a in range(len(axes_)):
            for j in range(len(METRICS)):
                if counts[a, j]:
                    v = grid[a, j]
                    ax.text(j, a, f"{0.0 if abs(v) < 5e-4 else v:+.3f}\nn={counts[a, j]}", ha="center", va="center", fontsize=7,
                            color="white" if abs(v) > 0.6 * lim else "black")
        ax.set_xticks(range(len(METRICS)), METRICS, rotation=25, ha="right")
        for t, m in zip(ax.get_xticklabels(), METRICS):
            t.set_color(GROUP_COLOR[GROUP_OF[m]])
        ax.set_yticks(range(len(axes_)), axes_)
        ax.set_xlabel("metric (label colour = pressure group)")
        ax.set_ylabel("design axis moved")
        n = int(sum(len(res[fam][a][METRICS[0]]) for a in axes_))
        ax.set_title(f"{fam}: mean change of each metric's distance to the reference after one single-axis "
                     f"move ({n} moves)")
        cb = fig.colorbar(im, ax=ax, fraction=0.03, pad=0.01)
        cb.set_label("mean Δ distance (blue = closer)")
        fig.tight_layout()
        made.append((figs.save(fig, f"heatmap-{i}"), fam, n))
    return made


def matrix_figure(suite: dict, figs: Figures) -> tuple[str, list[dict]]:
    plt = _plt()
    import numpy as np
    refs = [e for e in suite["benches"]]
    proxies = [e for e in suite["benches"] if e["locked"]]
    grid = np.zeros((len(refs), len(proxies)))
    for i, r in enumerate(refs):
        for j, p in enumerate(proxies):
            d = distance(p["signature"]["signature"], r["reference"]["signature"]["metrics"])
            grid[i, j] = np.nan if d is None else d
    fig, ax = plt.subplots(figsize=(1.0 + 0.62 * len(proxies) + 3, 0.42 * len(refs) + 2.5))
    im = ax.imshow(grid, cmap="viridis_r", aspect="auto", vmin=0, vmax=float(np.nanmax(grid)))
    findings = []
    for j, p in enumerate(proxies):
        i_own = next(i for i, r in enumerate(refs) if r is p)
        i_min = int(np.nanargmin(grid[:, j]))
        findings.append({"proxy": p["plan"]["name"], "own_d": grid[i_own, j],
                         "nearest": refs[i_min]["plan"]["name"], "nearest_d": grid[i_min, j]})
        for i in range(len(refs)):
            bold = i == i_min
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=6.5,
                    fontweight="bold" if bold else "normal",
                    color="white" if grid[i, j] > 0.6 * np.nanmax(grid) else "black")
        ax.add_patch(plt.Rectangle((j - 0.5, i_own - 0.5), 1, 1, fill=False, edgecolor="red", lw=1.5))
    ax.set_xticks(range(len(proxies)), [p["plan"]["name"] for p in proxies], rotation=40, ha="right")
    ax.set_yticks(range(len(refs)), [r["plan"]["name"] for r in refs])
    ax.set_xlabel("locked CUDA proxy")
    ax.set_ylabel("suite reference")
    ax.set_title("D between every reference and every proxy (red box: the proxy's own reference; bold: nearest)")
    cb = fig.colorbar(im, ax=ax, fraction=0.03, pad=0.01)
    cb.set_label("D (unitless, 0 = same signature)")
    fig.tight_layout()
    return figs.save(fig, "distance-matrix"), findings


# ---- HTML -------------------------------------------------------------------------------------

def _e(x) -> str:
    return html.escape(str(x))


def _fig(stem: str, alt: str, figs: Figures) -> str:
    # width and height give the page its layout before the figures load (an #anchor lands right)
    w, h = figs.size[stem]
    return (f'<figure><img src="{stem}.svg" width="{w}" height="{h}" alt="{_e(alt)}">'
            f'<figcaption>{_e(alt)} (<a href="{stem}.svg">SVG</a>, <a href="{stem}.png">PNG</a>)</figcaption></figure>')


def _fmt(v, spec=".3f"):
    return "-" if v is None else format(v, spec)


def shape_of(e: dict) -> str:
    return e["plan"]["serves"][0].get("shape", "-") if e["plan"]["serves"] else "-"


def math_of(e: dict) -> str:
    return str(e["reference"]["op"].get("math", "-"))


def _checks_table(v: dict) -> str:
    rows = []
    for kind in ("source", "candidate"):
        c, t = v.get(f"{kind}_check", {}), v.get(f"{kind}_tolerance", {})
        rows.append("<tr>" + "".join(f"<td>{_e(x)}</td>" for x in (
            kind, c.get("status"), c.get("against"), _fmt(c.get("max_abs_error"), ".3g"),
            _fmt(c.get("max_rel_error"), ".3g"), _fmt(c.get("worst_ratio"), ".3f"),
            f"{c.get('failed')} of {c.get('count')}", _fmt(t.get("atol"), ".3g"), _fmt(t.get("rtol"), ".3g"),
            "yes" if t.get("exact") else "no")) + "</tr>")
    head = ("check", "status", "against", "max abs error", "max rel error", "worst error / allowed",
            "elements failed", "atol", "rtol", "exact")
    return ("<table class='small'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows)
            + "</table>")


def _spread(e: dict) -> str:
    s = e["signature"]
    ref = e["reference"]["signature"]["metrics"]
    ds = [distance(p, ref) for p in s.get("profile_values", [])]
    ds = [d for d in ds if d is not None]
    if len(ds) > 1:
        return f"D over {len(ds)} profiles: {min(ds):.4f} to {max(ds):.4f} (mean of profiles: {s['d']:.4f})"
    rep = s.get("repeats")
    if isinstance(rep, dict) and rep.get("d"):
        # Repeat profiles taken after the lock (scripts/h200-suite-repeats, docs/suite.md "Repeats").
        own = rep.get("nearest_is_own_reference")
        return (f"D over {len(rep['d'])} repeat profiles: {min(rep['d']):.4f} to {max(rep['d']):.4f}, mean "
                f"{sum(rep['d']) / len(rep['d']):.4f}; nearest its own reference in {own} of {len(rep['d'])}")
    return f"D from {s.get('profiles', len(ds))} profile (no repeats recorded, so no spread)"


def _revision_table(rows: list[dict]) -> str:
    head = ("rev", "parent", "kind", "move", "targets", "D", "ΔD", "decision", "reason")
    out = ["<details><summary>every revision of the chain</summary><table class='small'><tr>"
           + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in rows:
        out.append(f"<tr class='{_e(r['decision'])}'>" + "".join(f"<td>{_e(x)}</td>" for x in (
            r["revision"], r.get("parent"), r["kind"], r.get("move"), ", ".join(r.get("targets", [])),
            _fmt(r["d"], ".4f"), _fmt(r.get("delta_d"), "+.4f"), r["decision"], r.get("reason", ""))) + "</tr>")
    out.append("</table></details>")
    return "".join(out)


SORT_JS = """
for (const th of document.querySelectorAll('table.sortable th')) {
  th.addEventListener('click', () => {
    const table = th.closest('table'), idx = [...th.parentNode.children].indexOf(th);
    const body = table.tBodies[0], rows = [...body.rows];
    const asc = th.dataset.asc !== '1'; th.dataset.asc = asc ? '1' : '0';
    const key = r => { const c = r.cells[idx]; const v = c.dataset.v ?? c.textContent;
                       const n = parseFloat(v); return isNaN(n) ? v : n; };
    rows.sort((a, b) => { const x = key(a), y = key(b);
      const c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === 'number' ? -1 : 1);
      return asc ? c : -c; });
    for (const r of rows) body.appendChild(r);
  });
}
"""

CSS = """
body { font-family: sans-serif; max-width: 1250px; margin: 1em auto; padding: 0 1em; color: #222; }
img { max-width: 100%; height: auto; }
figure { margin: 0.5em 0 1.2em 0; }
figcaption { font-size: 0.85em; color: #555; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; font-size: 0.85em; text-align: left; }
table.sortable th { cursor: pointer; background: #eee; }
table.small td, table.small th { font-size: 0.78em; }
tr.retained td { background: #e5f5e0; } tr.rejected td { background: #fde0dd; }
.note { color: #555; font-size: 0.9em; }
section.bench { border-top: 2px solid #ddd; margin-top: 1.5em; }
"""


def _vortex_cell(e: dict) -> tuple:
    vortex = e["status"].get("vortex")
    if not vortex:
        return ("", "-")
    d = vortex.get("d_cuda")
    return (d if d is not None else "", _fmt(d) + ("!" if vortex.get("stale") else ""))


def suite_table(suite: dict, out: Path) -> str:
    head = ("benchmark", "workload", "op", "shape", "share %", "reference math", "proxy CUDA/Vortex", "tried/retained", "seed D", "final D",
            "scope", "time ×", "bytes ×", "nearest D", "Vortex–CUDA D", "checks", "device s", "files")
    rows = []
    for e in suite["benches"]:
        p = e["plan"]
        rel = os.path.relpath(e["dir"], out)
        links = [f'<a href="{_e(rel)}/{f}">{f.rstrip("/")}</a>' for f in BENCH_FILES if (e["dir"] / f.rstrip("/")).exists()]
        # Folded: the links would make every row several lines tall and the table wider than the page.
        files = f"<details><summary>{len(links)} files</summary>{'<br>'.join(links)}</details>"
        name = f'<a href="#{_e(p["name"])}">{_e(p["name"])}</a>' if e["locked"] else _e(p["name"])
        if len(p["serves"]) > 1:
            name += "<br><span class='note'>also serves " + ", ".join(
                _e(s["folder"]) for s in p["serves"] if s["folder"] != p["name"]) + "</span>"
        if e["locked"]:
            v, st = e["validation"], e["status"]
            final = st.get("final_d")
            cells = [(p["name"], name), (p["workload"], _e(p["workload"])), (p["op"], _e(p["op"])),
                     (shape_of(e), _e(shape_of(e))), (100 * p["share"], f"{100 * p['share']:.1f}"),
                     (math_of(e), _e(math_of(e))),
                     (v["precision"]["cuda"], _e(f"{v['precision']['cuda']}/{v['precision']['vortex']}")),
                     (st.get("revisions", ""), f"{st.get('revisions', '-')}/{st.get('retained', '-')}"),
                     (st.get("seed_d") or "", _fmt(st.get("seed_d"))),
                     (final if final is not None else "", _fmt(final)),
                     # What final D is of (kernel: a lock made before operator scope), and the proxy
                     # operator's time and DRAM bytes over the vendor call's where it was measured.
                     (st.get("scope", "kernel"), "op" if st.get("scope") == "operator" else "kern"),
                     (st.get("time_ratio") or "", _fmt(st.get("time_ratio"), ".2f")),
                     (st.get("dram_ratio") or "", _fmt(st.get("dram_ratio"), ".2f")),
                     (p.get("nearest_d"), _fmt(p.get("nearest_d"))),
                     _vortex_cell(e),
                     ("", f"{v['source_check']['status']}/{v['candidate_check']['status']}"),
                     (st.get("device_seconds", 0), f"{st.get('device_seconds', 0):.0f}"), ("", files)]
        else:
            cells = [(p["name"], name), (p["workload"], _e(p["workload"])), (p["op"], _e(p["op"])),
                     (shape_of(e), _e(shape_of(e))), (100 * p["share"], f"{100 * p['share']:.1f}"),
                     (math_of(e), _e(math_of(e))), ("", "-"), ("", "-"), ("", "-"), ("", "not locked"), ("", "-"), ("", "-"), ("", "-"),
                     (p.get("nearest_d"), _fmt(p.get("nearest_d"))),
                     ("", "-"), ("", "-"), ("", "-"), ("", files)]
        rows.append("<tr>" + "".join(f'<td data-v="{_e(v)}">{h}</td>' for v, h in cells) + "</tr>")
    return ("<table class='sortable'><thead><tr>" + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def write_report(suite_dir: Path, out: Path, png: bool = True, status_file: Path | None = None) -> dict:
    t0 = time.monotonic()
    suite = load_suite(suite_dir, status_file)
    out.mkdir(parents=True, exist_ok=True)
    figs = Figures(out, png)
    cov_stem, cov = coverage_figure(suite, figs)
    mat_stem, findings = matrix_figure(suite, figs)
    heat = heatmap_figures(suite, figs)
    locked = [e for e in suite["benches"] if e["locked"]]
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>vxsynth suite report: {_e(suite_dir)}</title><style>{CSS}</style></head><body>",
             f"<h1>Suite report: {_e(suite_dir)}</h1>",
             f"<p class='note'>{len(locked)} of {len(suite['benches'])} benchmarks locked. Made by "
             f"<code>vxsynth report</code> from the committed files only (suite.json, *.coverage.json, "
             f"each benchmark's reference.json, signature.json, validation.json, revisions.jsonl, vortex-signature.json). "
             f"How to read each figure: docs/report.md.</p>",
             "<nav><a href='#coverage'>coverage</a> · <a href='#table'>suite table</a> · "
             "<a href='#matrix'>distance matrix</a> · <a href='#heatmaps'>axis responses</a> · benchmarks: "
             + " ".join(f"<a href='#{_e(e['plan']['name'])}'>{_e(e['plan']['name'])}</a>" for e in locked)
             + "</nav>",
             "<h2 id='coverage'>Coverage of each workload</h2>",
             _fig(cov_stem, "GPU-time share of each workload's hot kernels (bars) and cumulative share (line); "
                            "green bars are served by a locked benchmark", figs),
             "<table><tr><th>workload</th><th>suite's part (locked)</th><th>suite references</th>"
             "<th>GPU kernel time per inference</th><th>kernel identities</th></tr>"
             + "".join(f"<tr><td>{_e(c['workload'])}</td><td>{100 * c['locked_share']:.1f}%</td>"
                       f"<td>{100 * c['reference_share']:.1f}%</td><td>{c['total_ms']:.2f} ms</td>"
                       f"<td>{c['identities']}</td></tr>" for c in cov) + "</table>",
             "<h2 id='table'>Suite table</h2><p class='note'>Click a column to sort. share = of the "
             "workload's GPU kernel time (merged references added); reference math = the vendor kernel's math path; proxy "
             "CUDA/Vortex = the precision each side of the locked pair computes in; tried/retained, seed D, final D, "
             "device s and Vortex–CUDA D are <code>vxsynth suite status</code>'s (designs over every committed run, the "
             "final D the mean over repeat profiles where there are); nearest D = D from the reference to the nearest other reference; Vortex–CUDA D = D "
             "between the Vortex side's signature (vortex2 timing model, the design's Vortex machine) and the CUDA "
             "proxy's, '-' where none was made.</p>",
             suite_table(suite, out),
             "<h2 id='matrix'>Distance matrix of references and proxies</h2>",
             _fig(mat_stem, "D of every locked proxy (columns) to every suite reference (rows)", figs),
             "<p>" + "; ".join(
                 f"{_e(f['proxy'])}: own {f['own_d']:.3f}" + ("" if f["nearest"] == f["proxy"] else
                                                                 f", <b>nearer to {_e(f['nearest'])} ({f['nearest_d']:.3f})</b>")
                 for f in findings) + "</p>",
             "<h2 id='heatmaps'>Which axes move which metrics</h2>"]
    for stem, fam, n in heat:
        parts.append(_fig(stem, f"{fam}: mean change of each metric's distance to the reference after a "
                                f"single-axis move, with counts ({n} moves)", figs))
    for e in locked:
        name = e["plan"]["name"]
        s, v = e["signature"], e["validation"]
        bstem = bench_figure(e, figs)
        vstem = vortex_figure(e, figs) if "vortex" in e else None
        cstem = chain_figure(e, figs)
        rel = os.path.relpath(e["dir"], out)
        parts += [f"<section class='bench' id='{_e(name)}'><h2>{_e(name)}</h2>",
                  f"<p>{_e(e['plan']['op'])} {_e(shape_of(e))}, {100 * e['plan']['share']:.1f}% of "
                  f"{_e(e['plan']['workload'])}'s GPU kernel time; reference kernel <code>{_e(e['reference']['kernel']['name'])}</code>."
                  f"<br>Locked revision {s['revision']} (<code>{_e(s['design'])}</code>): D {s['d']:.4f}, final D "
                  f"{_fmt(e['status'].get('final_d'), '.4f')} (seed D {_fmt(e['status'].get('seed_d'), '.4f')}; "
                  f"tried/retained {e['status'].get('revisions', '-')}/{e['status'].get('retained', '-')} over "
                  f"{_e(e['status'].get('effort', 'the lock'))}; nearest other reference {_e(s.get('nearest_reference'))} at "
                  f"{_fmt(s.get('nearest_reference_d'), '.4f')}). {_e(_spread(e))}. Files: "
                  + " ".join(f'<a href="{_e(rel)}/{f}">{f.rstrip("/")}</a>' for f in BENCH_FILES
                             if (e["dir"] / f.rstrip("/")).exists()) + "</p>",
                  _fig(bstem, f"{name}: reference vs proxy per metric (by pressure group) and the remaining distances", figs),
                  _vortex_section(e, vstem, figs),
                  "<h3>Both checks</h3>", _checks_table(v),
                  "<h3>The chain</h3>", _fig(cstem, f"{name}: D per revision, retained vs reverted", figs),
                  _revision_table(e["revisions"]), "</section>"]
    parts.append(f"<script>{SORT_JS}</script></body></html>")
    (out / "index.html").write_text("\n".join(parts))
    return {"index": str(out / "index.html"), "figures": figs.written, "seconds": time.monotonic() - t0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="vxsynth report", description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", metavar="SUITE_DIR", help="a locked suite folder (suite.json, benchmark folders)")
    ap.add_argument("-o", "--out", required=True, metavar="DIR", help="output folder (created; index.html, figures/)")
    ap.add_argument("--no-png", action="store_true", help="write SVG figures only")
    ap.add_argument("--status", metavar="FILE", help="the suite table (`vxsynth suite status SUITE --json`; default: asked "
                                                    "of the binary)")
    a = ap.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("vxsynth report: matplotlib is not installed for this Python "
              f"({sys.executable}); install Debian's python3-matplotlib (scripts/install-deps)", file=sys.stderr)
        return 2
    try:
        r = write_report(Path(a.suite), Path(a.out), png=not a.no_png, status_file=Path(a.status) if a.status else None)
    except (ReportError, reference.ReferenceError) as e:
        print(f"vxsynth report: {e}", file=sys.stderr)
        return 2
    print(f"report: {r['index']} ({len(r['figures'])} figure files, {r['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
