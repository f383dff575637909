#!/usr/bin/env python3
"""The design of each chain's lowest-D revision in a run folder, retained or not, rebuilt from its
parent's design and the revision record's moves (`vxsynth gen --move`), and checked against the
record's procedural name. A retention margin decides on one profile; a revision that fell by less
than the margin may still be the better proxy: start an averaged-retention chain there.
Usage: scripts/best-seen-designs.py VXSYNTH RUN_WORKER_DIR OUT_DIR CHAIN [CHAIN...]
Writes OUT_DIR/<chain>.json; prints chain, start D, best D, moves."""
import json, os, subprocess, sys, tempfile

vx, worker, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
for chain in sys.argv[4:]:
    recs = [json.loads(l) for l in open(os.path.join(worker, chain, "revisions.jsonl"))]
    by_rev = {r["revision"]: r for r in recs}
    ok = [r for r in recs if r.get("d") is not None and r["checks"]["source"]["status"] == "passed"]
    best = min(ok, key=lambda r: r["d"])
    start = [r for r in recs if r["kind"] == "start"][0]
    if best["kind"] == "start":
        print(f"{chain}: the start is the lowest ({best['d']:.4f}); nothing to rebuild")
        continue
    parent = best["parent"]
    pfile = os.path.join(worker, chain, "designs", f"r{parent}.json")
    if not os.path.isfile(pfile):
        sys.exit(f"{chain}: r{best['revision']}'s parent r{parent} has no design file {pfile} (only retained revisions are kept)")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [vx, "gen", "--design", pfile, "--out", tmp]
        for m in best["moves"]:
            cmd += ["--move", f"{m['axis']}:{m['direction']}"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        design = json.load(open(os.path.join(tmp, "design.json")))
    if design["name"] != best["design"]:
        sys.exit(f"{chain}: rebuilt {design['name']}, the record says {best['design']}")
    json.dump(design, open(os.path.join(out, chain + ".json"), "w"), indent=2)
    print(f"{chain}: start {start['d']:.4f} -> r{best['revision']} {best['d']:.4f} ({best['move']})")
