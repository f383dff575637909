#!/usr/bin/env python3
"""Axis -> metric responses over refinement records: for every single-axis revision whose parent
was profiled too, the signed change of each metric's distance to the reference (positive: the
move took that metric away from the reference). Prints, per axis, the number of moves, how they
ended, and the three largest mean responses (docs/measurements/h200-suite.md).
Usage: scripts/axis-responses.py RUN_DIR [RUN_DIR...]   (a run folder: worker-*/<chain>/revisions.jsonl)
Records whose source check did not pass count in the outcome but not in the responses."""
import collections, glob, json, os, sys

SHORT = {"l1_hit_rate": "L1", "l2_hit_rate": "L2", "coalescing": "coalescing", "compute_throughput": "SM",
         "tensor_utilization": "TC", "atomics_per_instruction": "atomics", "arithmetic_intensity": "AI",
         "dram_bandwidth": "DRAM", "active_lane_fraction": "lanes", "occupancy": "occupancy"}
moves = collections.defaultdict(int)
outcome = collections.defaultdict(collections.Counter)
resp = collections.defaultdict(lambda: collections.defaultdict(list))
chains = set()
for run in sys.argv[1:]:
    for rec in sorted(glob.glob(os.path.join(run, "worker-*", "*", "revisions.jsonl"))):
        chains.add((run, rec))
        by_rev = {}
        rows = []
        for line in open(rec):
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a kill
            by_rev[r["revision"]] = r
            rows.append(r)
        for r in rows:
            if r.get("kind") != "single" or len(r.get("moves", [])) != 1:
                continue
            axis = r["moves"][0]["axis"]
            moves[axis] += 1
            outcome[axis][r.get("decision", "?")] += 1
            p = by_rev.get(r.get("parent"))
            if not p or not r.get("distances") or not p.get("distances"):
                continue
            if r["checks"]["source"].get("status") != "passed":
                continue
            for m, v in r["distances"].items():
                if v is not None and p["distances"].get(m) is not None:
                    resp[axis][m].append(v - p["distances"][m])
print(f"{len(chains)} chain records, {sum(moves.values())} single-axis moves")
print("| axis | moves | outcome | largest mean responses (distance units) |")
print("|---|---|---|---|")
for axis in sorted(moves, key=lambda a: -moves[a]):
    means = [(sum(v) / len(v), SHORT.get(m, m)) for m, v in resp[axis].items() if v]
    top = sorted(means, key=lambda t: -abs(t[0]))[:3]
    shown = ", ".join(f"{n} {'+' if d >= 0 else '−'}{abs(d):.2f}" for d, n in top if abs(d) >= 0.005) or "(all below 0.005)"
    out = ", ".join(f"{k} {outcome[axis][k]}" for k in ("retained", "reverted", "rejected") if outcome[axis][k])
    print(f"| {axis} | {moves[axis]} | {out} | {shown} |")
