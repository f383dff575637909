#!/usr/bin/env python3
"""Writes docs/measurements-style markdown from one scripts/h200-gpu-measure work folder.

Usage: gpu-measure-summary.py WORK_DIR SUMMARY.md
Reads the JSON files `vxsynth gpu run/profile` wrote (result.json, builds.json,
profile-summary.json) and the *.status lines of the script; standard library only.
"""
import datetime
import json
import math
import os
import statistics
import sys

MARGIN = 0.005


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return "(missing)"


def worst_ratio(e):
    """|actual - expected| / (atol + rtol |expected|) at the worst element (inf for NaN)."""
    try:
        x, y = float(e["worst_actual"]), float(e["worst_expected"])
        allowed = e["atol"] + e["rtol"] * abs(y)
        d = abs(x - y)
        return float("inf") if math.isnan(d) else (d / allowed if allowed > 0 else float("inf"))
    except (KeyError, TypeError, ValueError):
        return float("nan")


def short(name, n=70):
    return name if len(name) <= n else name[: n - 1] + "…"


def main(work, out_path):
    lines = []
    w = lines.append
    w("# GPU part on the H200: measurements")
    w("")
    w(f"Written by `scripts/h200-gpu-measure` on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC "
      "(summary by `scripts/gpu-measure-summary.py`). ncu ran with `--clock-control none --cache-control all`.")
    w("")
    w("## Machine")
    w("")
    w("```")
    w(text(os.path.join(work, "machine.txt")))
    w("```")
    w("")
    w("## Commands and times")
    w("")
    for name in ("test-gpu", "run", "profile", "noise"):
        w(f"- `{name}`: {text(os.path.join(work, name + '.status'))}")
    prof = load(os.path.join(work, "profile", "profile-summary.json"))
    builds = load(os.path.join(work, "profile", "builds.json")) or []
    if prof:
        t = prof.get("timing_seconds", {})
        cands = [s for s in prof["segments"] if s["candidate"] != "reference"]
        refs = [s for s in prof["segments"] if s["candidate"] == "reference"]
        built = [b for b in builds if not b.get("cache_hit")]
        w("")
        w(f"**Build + check + profile of {len(cands)} (candidate, op) pairs plus {len(refs)} vendor references, "
          f"one command from a cold cache: {t.get('total', float('nan')):.1f} s** "
          f"({len(built)} nvcc builds in parallel: {t.get('build_and_sandbox', float('nan')):.1f} s; "
          f"one ncu process over the harness, which also checks every candidate against the vendor operator "
          f"on fresh inputs: {t.get('ncu_with_harness', float('nan')):.1f} s). "
          f"Slowest single build: {max([b.get('seconds', 0) for b in builds] or [0]):.1f} s.")
    run = load(os.path.join(work, "run", "result.json"))
    if run:
        w("")
        w("## Source-output equivalence (`vxsynth gpu run`, seed 20261129)")
        w("")
        w("| op | candidate | result | elements | max abs err | max rel err | worst / allowed |")
        w("|---|---|---|---|---|---|---|")
        for c in run["checks"]:
            if c["status"] == "unsupported":
                continue
            e = c.get("equivalence", {})
            w(f"| {c['op']} | {c['candidate']} | {c['status']} | {e.get('count', '')} | "
              f"{e.get('max_abs_error', float('nan')):.3g} | {e.get('max_rel_error', float('nan')):.3g} | "
              f"{worst_ratio(e):.3g} |")
        declined = sum(1 for c in run["checks"] if c["status"] == "unsupported")
        w("")
        w(f"({declined} (candidate, op) pairs were declined by the candidate: a linear kernel on a convolution, ...)")
        w("")
        w("Vendor operator and the kernels CUPTI saw it launch:")
        w("")
        w("| op | library, math mode | kernels |")
        w("|---|---|---|")
        for v in run["vendors"]:
            w(f"| {v['op']} | {v['library']}, {v['math']} | {'; '.join(short(k, 110) for k in v['kernels']) or v['kernels_note']} |")
    if prof:
        w("")
        w("## Signature distance D between each candidate and the vendor kernel it replaces")
        w("")
        ref_of = {s["op"]: s for s in prof["segments"] if s["candidate"] == "reference"}
        w("| op | candidate | candidate µs | vendor kernel (longest of the call) | vendor µs | D |")
        w("|---|---|---|---|---|---|")
        for s in prof["segments"]:
            if s["candidate"] == "reference":
                continue
            r = ref_of.get(s["op"])
            d = s.get("d_to_reference", [float("nan")])[0]
            w(f"| {s['op']} | {s['candidate']} | {s['duration_ns_mean'] / 1000:.1f} | "
              f"{short(r['primary_kernel'], 90) if r else '-'} | {r['duration_ns_mean'] / 1000 if r else float('nan'):.1f} | "
              f"{d:.3f} |")
    noise = load(os.path.join(work, "noise", "profile-summary.json"))
    if noise:
        segs = noise["segments"]
        reps = max((s["repeats"] for s in segs), default=0)
        w("")
        w(f"## Noise: {reps} profiles of each kernel (`gpu profile --repeat {reps}`), fresh inputs each")
        w("")
        w("Per metric, the spread (max − min over the repeats) expressed in D's own units (the metric's "
          "distance between its largest and smallest value), over all profiled kernels:")
        w("")
        w("| metric | median spread | largest spread | kernel with the largest |")
        w("|---|---|---|---|")
        metric_keys = list(segs[0]["metrics"].keys()) if segs else []
        for key in metric_keys:
            vals = [(s["metrics"][key]["spread_distance"], s["segment"]) for s in segs if s["metrics"].get(key)]
            if not vals:
                w(f"| {key} | unmeasured | | |")
                continue
            med = statistics.median(v for v, _ in vals)
            big = max(vals)
            w(f"| {key} | {med:.5f} | {big[0]:.5f} | {big[1]} |")
        between = [d for s in segs for d in s.get("d_between_repeats", [])]
        spreads = []
        w("")
        w("D of each candidate to its reference, per repeat (repeat i of both):")
        w("")
        w("| candidate | D per repeat | spread | D of the mean signatures |")
        w("|---|---|---|---|")
        for s in segs:
            ds = s.get("d_to_reference")
            if not ds:
                continue
            spreads.append(max(ds) - min(ds))
            dm = s.get("d_of_means")
            w(f"| {s['segment']} | {', '.join(f'{d:.4f}' for d in ds)} | {max(ds) - min(ds):.4f} | "
              f"{'' if dm is None else f'{dm:.4f}'} |")
        floor = max(between + spreads + [0.0])
        w("")
        w(f"D between two profiles of the same kernel: median {statistics.median(between) if between else float('nan'):.4f}, "
          f"largest {max(between) if between else float('nan'):.4f} over {len(between)} pairs; "
          f"largest spread of a candidate's D to its reference: {max(spreads) if spreads else float('nan'):.4f}.")
        w("")
        if floor < MARGIN:
            w(f"**Verdict:** the largest D noise seen ({floor:.4f}) is below the retention margin {MARGIN}: a "
              f"revision that lowers D by more than {MARGIN} is not explained by profiling noise on this machine.")
        else:
            proposed = math.ceil(floor * 1.25 * 1000) / 1000
            w(f"**Verdict:** the largest D noise seen ({floor:.4f}) is not below the retention margin {MARGIN}: a "
              f"D change of {MARGIN} can be noise. The data supports a margin of {proposed:.3f} (1.25 × the largest "
              f"noise seen, rounded up), or keeping {MARGIN} with D averaged over several profiles per revision.")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
