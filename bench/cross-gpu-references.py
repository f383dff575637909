#!/usr/bin/python3
"""Cross-GPU variation of the workload references (issue 40 item 3, first half): each hot
kernel captured on two platforms, matched by workload, operator, role and GEMM shape (the
benchmark names follow each platform's own ranking, so they need not agree), compared with
`vxsynth distance --cross-platform`. Prints D and the largest metric per pair, then the mean
distance per metric.

With PROXIES (the signatures/ folder of a `gpu profile` of SUITE_A's locked proxies made on
SUITE_B's GPU, files <bench with _>@<bench>.json), also each proxy's D on that GPU against
SUITE_B's workload reference of the same operator, beside its locked D on its own GPU.

Usage: bench/cross-gpu-references.py [SUITE_A] [SUITE_B] [BUILD] [PROXIES]
       (default suite/vx-robotics/h200 suite/vx-robotics/h100 build)"""
import glob
import json
import os
import statistics
import subprocess
import sys

a_dir = sys.argv[1] if len(sys.argv) > 1 else "suite/vx-robotics/h200"
b_dir = sys.argv[2] if len(sys.argv) > 2 else "suite/vx-robotics/h100"
vx = os.path.join(sys.argv[3] if len(sys.argv) > 3 else "build", "vxsynth")
proxies = sys.argv[4] if len(sys.argv) > 4 else None


def references(suite):
    out = {}
    for f in glob.glob(f"{suite}/*/reference.json"):
        j = json.load(open(f))
        op = j["op"]
        key = (j["workload"]["name"], op["kind"], op.get("kernel_role"), op["math"], json.dumps(op.get("gemm"), sort_keys=True),
               json.dumps(op.get("input_shapes")))
        out[key] = (f, j["kernel"]["name"])
    return out


a, b = references(a_dir), references(b_dir)
rows, per_metric = [], {}
for key in sorted(set(a) & set(b), key=lambda k: a[k][0]):
    (fa, ka), (fb, kb) = a[key], b[key]
    run = subprocess.run([vx, "distance", "--json", "--cross-platform", fb, fa], capture_output=True, text=True, check=True)
    d = json.loads(run.stdout)["distance"]
    for m, v in d["metrics"].items():
        if v is not None:
            per_metric.setdefault(m, []).append(v)
    top = max(((m, v) for m, v in d["metrics"].items() if v is not None), key=lambda kv: kv[1])
    rows.append((os.path.basename(os.path.dirname(fa)), os.path.basename(os.path.dirname(fb)), d["D"], ka == kb, top, kb))
name = lambda s: os.path.basename(s.rstrip("/"))
print(f"{name(a_dir) + ' reference':28s} {name(b_dir) + ' reference':28s} {'D':>7s}  kernel  largest metric distance")
for r in rows:
    print(f"{r[0]:28s} {r[1]:28s} {r[2]:7.4f}  {'same ' if r[3] else 'other'}   {r[4][0]} {r[4][1]:.4f}"
          + ("" if r[3] else f"  ({name(b_dir)}: {r[5][:48]})"))
for label, side, other in ((name(a_dir), a, b), (name(b_dir), b, a)):
    only = sorted(name(os.path.dirname(v[0])) for k, v in side.items() if k not in other)
    if only:
        print(f"only on {label}: {', '.join(only)}")
ds = [r[2] for r in rows]
print(f"D over {len(ds)} kernels: median {statistics.median(ds):.4f}, max {max(ds):.4f}")
print("mean per-metric distance between the two GPUs (max in brackets):")
for m, v in sorted(per_metric.items(), key=lambda kv: -statistics.mean(kv[1])):
    print(f"  {m:26s} {statistics.mean(v):.4f}  ({max(v):.4f})")

if proxies:
    by_name = {name(os.path.dirname(f)): key for key, (f, _) in a.items()}
    print(f"\nlocked {name(a_dir)} proxies profiled on {name(b_dir)}'s GPU, against its workload reference of the same operator:")
    print(f"{'benchmark':28s} {'D locked':>9s} {'D there':>9s}  {name(b_dir)} reference")
    moved = []
    for sig in sorted(glob.glob(f"{proxies}/*@*.json")):
        if os.path.basename(sig).startswith("reference@"):  # the vendor operator of the same job
            continue
        bench = os.path.basename(sig)[:-5].split("@")[1]
        if bench not in by_name or by_name[bench] not in b or not os.path.isfile(f"{a_dir}/{bench}/signature.json"):
            continue
        ref = b[by_name[bench]][0]
        kernels = json.load(open(sig))["kernels"]
        ds = []
        for k in kernels:
            one = f"/tmp/cross-gpu-{bench}.json"
            json.dump({"schema": "vxsynth.signature/1", "source": sig, "kernels": [k], "platform": json.load(open(sig)).get("platform")},
                      open(one, "w"))
            ds.append(json.loads(subprocess.run([vx, "distance", "--json", one, ref], capture_output=True, text=True,
                                                check=True).stdout)["distance"]["D"])
        locked = json.load(open(f"{a_dir}/{bench}/signature.json"))["d"]
        there = statistics.mean(ds)
        moved.append(there - locked)
        print(f"{bench:28s} {locked:9.4f} {there:9.4f}  {name(os.path.dirname(ref))}")
    if moved:
        print(f"median change {statistics.median(moved):+.4f} over {len(moved)} proxies")
