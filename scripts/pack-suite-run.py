#!/usr/bin/env python3
"""Shrinks a `vxsynth suite refine` run folder for the way back from a GPU machine (which
returns at most 64 MiB): the candidate checks' tensors become sha256 digests, except the CUDA
output of each chain's three best kept revisions, which the candidate check on a machine with
the Vortex toolchain compares with the Vortex benchmark's output.

- inputs (`x.tensor`): `x.tensor.sha256`, the digest of the file. The Vortex benchmark regenerates
  them from the seed; `vxsynth suite lock` requires the same digest.
- a CUDA output of an exact-check op (layout transforms: outputs up to 80 MiB) or over 30 MiB:
  `y_candidate.payload.sha256`, the digest of its data bytes. For an exact op the check then
  runs the Vortex side against the CPU reference bit for bit and requires the CPU reference's
  data digest to equal the CUDA output's; a tolerance op over 30 MiB cannot be checked and is
  reported so.

Usage: pack-suite-run.py RUN
Environment: PACK_KEEP (default 3): how many of each chain's best kept revisions keep their CUDA
output (1 when a chain's outputs are large: pi0-2's are 27 MB each, three of them would not fit
the way back).
"""
import glob
import hashlib
import json
import os
import struct
import sys

run = sys.argv[1]
keep = set()
for rec in glob.glob(f"{run}/worker-*/*/revisions.jsonl"):
    lines = []
    for l in open(rec):
        try:
            lines.append(json.loads(l))
        except json.JSONDecodeError:
            pass  # a line cut by a kill: resume writes it again
    ok = [l for l in lines if l.get("decision") in ("start", "retained")
          and l["checks"]["source"].get("status") == "passed" and isinstance(l.get("d"), (int, float))]
    for l in sorted(ok, key=lambda l: l["d"])[:int(os.environ.get("PACK_KEEP", "3"))]:
        keep.add((os.path.dirname(os.path.dirname(rec)), l["key"]))


def payload_digest(path):
    with open(path, "rb") as f:
        head = f.read(16)
        (length,) = struct.unpack("<Q", head[8:16])
        f.seek(16 + length)
        h = hashlib.sha256()
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


for w in glob.glob(f"{run}/worker-*/checks/*"):
    wdir, key = os.path.dirname(os.path.dirname(w)), os.path.basename(w)
    exact = False
    try:
        exact = json.load(open(f"{w}/design.json"))["op"]["kind"] == "layout_transform"
    except (OSError, KeyError, ValueError):
        pass
    for f in glob.glob(f"{w}/*.tensor"):
        if f.endswith("/y_candidate.tensor"):
            if (wdir, key) in keep and not exact and os.path.getsize(f) <= 30 << 20:
                continue
            if (wdir, key) in keep:
                open(f"{w}/y_candidate.payload.sha256", "w").write(payload_digest(f) + "\n")
        else:
            open(f + ".sha256", "w").write(hashlib.sha256(open(f, "rb").read()).hexdigest() + "\n")
        os.remove(f)
