#!/usr/bin/python3
"""Whole-operator figures of the locked proxies (issue 47's "before" and "after" tables).

  bench/operator-baseline.py match LOCKS FRESH OUT
      For every locked benchmark of LOCKS (e.g. suite/vx-robotics/h200), the reference of FRESH (a
      capture on the card the profile runs on) of the same workload, operator kind and shape,
      as OUT/<benchmark>/reference.json: `gpu profile --suite OUT` then compares each proxy with
      the vendor call of its own operator on that card (ranks differ between cards: act-1 and
      act-2 swap on the H100). Prints the pairing.

  bench/operator-baseline.py table PROFILE_DIR [--markdown]
      From a `gpu profile --suite ... --scope operator` folder: per benchmark the hot-kernel D,
      the operator D, the operator's time and DRAM bytes over the reference call's, and the share
      of the proxy's time and bytes outside its longest kernel (medians over repeats).
"""
import argparse
import json
import statistics
import sys
from pathlib import Path


def op_key(ref):
    op = ref["op"]
    g = op.get("gemm") or {}
    return (ref["workload"]["name"], op["kind"], g.get("batch"), g.get("M"), g.get("N"), g.get("K"))


def match(locks, fresh, out):
    fresh_refs = {}
    for p in sorted(Path(fresh).glob("*/reference.json")):
        fresh_refs.setdefault(op_key(json.loads(p.read_text())), []).append(p)
    out = Path(out)
    status = 0
    for lock in sorted(Path(locks).glob("*/validation.json")):
        bench = lock.parent.name
        key = op_key(json.loads((lock.parent / "reference.json").read_text()))
        found = fresh_refs.get(key, [])
        # Several calls of one shape (Diffusion Policy's repeated blocks): the same folder name if
        # there is one, else the first (one operator, within noise of the others).
        pick = next((p for p in found if p.parent.name == bench), found[0] if found else None)
        if pick is None:
            print(f"{bench}: no reference of {key} in {fresh}", file=sys.stderr)
            status = 1
            continue
        (out / bench).mkdir(parents=True, exist_ok=True)
        (out / bench / "reference.json").write_text(pick.read_text())
        print(f"{bench} <- {pick.parent.name}")
    return status


def table(profile_dir, markdown):
    d = Path(profile_dir)
    summary = json.loads((d / "profile-summary.json").read_text())
    if summary.get("scope") != "operator":
        raise SystemExit(f"{d}/profile-summary.json: scope {summary.get('scope')!r}, expected 'operator'")
    rows = []
    for s in summary["segments"]:
        if s["candidate"] == "reference" or "workload_reference" not in s:
            continue
        sig = json.loads((d / "signatures" / f"{s['segment']}.json").read_text())
        outside_t, outside_b = [], []
        for op in sig["operators"]:
            main = max(op["kernels"], key=lambda k: k["duration_ns"])
            outside_t.append(1 - main["duration_ns"] / op["duration_ns"])
            if op["dram_bytes"]:
                outside_b.append(1 - (main["dram_bytes"] or 0) / op["dram_bytes"])
        rows.append({
            "benchmark": s["op"],
            "kernels": sorted({k["name"].split("(")[0].split("::")[-1] for op in sig["operators"] for k in op["kernels"]}),
            "kernel_d": statistics.mean(s["d_to_workload_kernel"]) if s.get("d_to_workload_kernel") else None,
            "operator_d": statistics.mean(s["d_to_workload"]),
            "time_ratio": s.get("workload_time_ratio"),
            "dram_ratio": s.get("workload_dram_ratio"),
            "outside_time": statistics.median(outside_t),
            "outside_bytes": statistics.median(outside_b) if outside_b else None,
        })
    rows.sort(key=lambda r: r["benchmark"])

    def f(v, p=4):
        return "-" if v is None else f"{v:.{p}f}"

    head = ["benchmark", "kernel D", "operator D", "time x", "bytes x", "outside: time", "bytes", "kernels"]
    lines = []
    if markdown:
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
    else:
        lines.append("  ".join(head))
    for r in rows:
        cells = [r["benchmark"], f(r["kernel_d"]), f(r["operator_d"]), f(r["time_ratio"], 2), f(r["dram_ratio"], 2),
                 f"{100 * r['outside_time']:.0f} %", "-" if r["outside_bytes"] is None else f"{100 * r['outside_bytes']:.0f} %",
                 ", ".join(r["kernels"])]
        lines.append(("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells))
    ods = [r["operator_d"] for r in rows]
    within = sum(1 for r in rows if r["time_ratio"] and r["dram_ratio"] and 0.8 <= r["time_ratio"] <= 1.25
                 and 0.8 <= r["dram_ratio"] <= 1.25)
    lines.append(f"\n{len(rows)} benchmarks: operator D median {statistics.median(ods):.4f}, "
                 f"{sum(d <= 0.05 for d in ods)} at or below 0.05; time and bytes both within [0.8, 1.25]: {within}")
    print("\n".join(lines))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("match")
    m.add_argument("locks")
    m.add_argument("fresh")
    m.add_argument("out")
    t = sub.add_parser("table")
    t.add_argument("profile_dir")
    t.add_argument("--markdown", action="store_true")
    a = ap.parse_args(argv)
    return match(a.locks, a.fresh, a.out) if a.cmd == "match" else table(a.profile_dir, a.markdown)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
