#!/usr/bin/env python3
"""Makes one SYNTHETIC replay-store entry for a two-axis design (docs/refine.md, "Test data").

The measured round-2 store holds only one-axis moves from each parent, so no recorded design is
a two-axis revision. The loop test needs one to exercise pairs: this writes an entry for
PARENT --set A --set B whose profile is the metric-wise mean of the two measured single-axis
entries (PARENT --set A and PARENT --set B). It is not a measurement, and says so in "origin".

Usage: make-pair.py VXSYNTH STORE PARENT_DESIGN A=VALUE B=VALUE OUT_DIR
"""
import hashlib
import json
import subprocess
import sys
import tempfile


def design_of(vx, parent, settings):
    with tempfile.TemporaryDirectory() as tmp:
        args = [vx, "gen", "--design", parent, "--out", tmp]
        for s in settings:
            args += ["--set", s]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        with open(f"{tmp}/design.json") as f:
            return json.load(f)


def key_of(design):
    # The same as refine::design_key: the design's JSON without "reference", compact, hashed.
    d = dict(design)
    d.pop("reference", None)
    text = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
    return "design-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def main():
    vx, store, parent, a, b, out = sys.argv[1:7]
    singles = []
    for s in (a, b):
        with open(f"{store}/{key_of(design_of(vx, parent, [s]))}.json") as f:
            singles.append(json.load(f))
    pair = design_of(vx, parent, [a, b])
    metrics = list(singles[0]["profiles"][0].keys())
    mean = {}
    for m in metrics:
        values = [e["profiles"][0][m] for e in singles]
        mean[m] = None if None in values else sum(values) / 2
    entry = {
        "schema": "vxsynth.evaluation/1",
        "key": key_of(pair),
        "design_name": pair["name"],
        "origin": f"SYNTHETIC (tests only, not a measurement): mean of the measured profiles of --set {a} and --set {b}",
        "source_check": {"status": "passed", "against": "vendor operator",
                         "message": "synthetic entry: both single moves passed their measured checks"},
        "profiles": [mean],
        "launch_block_size": singles[0]["launch_block_size"],
        "device_seconds": (singles[0]["device_seconds"] + singles[1]["device_seconds"]) / 2,
        "candidate_check": None,
        "sim_seconds": 0.0,
        "cuda_sha256": "",
        "vortex_sha256": "",
    }
    with open(f"{out}/{entry['key']}.json", "w") as f:
        json.dump(entry, f, indent=2)
        f.write("\n")
    print(entry["key"], pair["name"])


if __name__ == "__main__":
    main()
