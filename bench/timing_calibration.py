#!/usr/bin/env python3
"""Calibration of the vortex2 timing model against SimX v2: cycles of the same kernels at
1x4x4, 1x4x32 and 2x8x16 (cores x warps x threads), ours vs SimX, with the error per kernel,
the geometric mean of |error| per shape and overall, and the worst case.

  /usr/bin/python3 bench/timing_calibration.py --vxsynth build/vxsynth --simx-dir DIR [--out FILE.json]

Rows can be picked with --only KERNEL,... and --shapes CxWxT,... (e.g. to rerun a few rows on SimX;
--simx-timeout SECONDS bounds each SimX run, 0 for none).

DIR/<C>x<W>x<T>/simx is SimX built for that shape (NUM_CORES/NUM_WARPS/NUM_THREADS are SimX
build-time constants; its tensor unit needs -DEXT_TCU_ENABLE). SimX's standalone runner prints
no counters: the one used here prints its cycle count as `SIMX-CALIB: cycles=N` (see
docs/vxsim-timing.md). Without --simx-dir only our cycles are listed (with --simx-json, the
SimX cycles of an earlier run are reused).
Kernels: bench/timing_kernels/*.cpp and the standalone vortex-rt examples (hello, cta,
intrinsics, tensor_formats); each exits 0 when its self-check passes on both simulators.
Probes: bench/timing_kernels/probes/*.cpp (rows `probe_<name>`, at 1x4x4 and 1x4x32 only: the
memory path at wide warps, docs/vxsim-timing.md "Calibration"); they are listed with their
error but kept out of the per-shape summary, which is the calibration target (issue 15: geometric
mean of |error| within 10 % per shape, no kernel beyond 25 %).

Without SimX: --simx-json docs/measurements/vxsim-timing-simx-v2.json (SimX v2's committed figures).
Each row records bin_sha256, the digest of the flat image both simulators ran; with --simx-json a
row whose image differs from the one SimX ran (the kernels, vortex-rt or sim cc changed since) is
flagged `simx_binary_differs` and counted in the summary: its SimX figure is of another program
and needs measuring again."""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = [(1, 4, 4), (1, 4, 32), (2, 8, 16)]
EXAMPLES = ["hello", "cta", "intrinsics", "tensor_formats"]
PROBE_SHAPES = [(1, 4, 4), (1, 4, 32)]


def kernels():
    out = []
    kdir = os.path.join(ROOT, "bench", "timing_kernels")
    for f in sorted(os.listdir(kdir)):
        if f.endswith(".cpp"):
            out.append((f[:-4], [os.path.join(kdir, f)], [kdir]))
    for e in EXAMPLES:
        d = os.path.join(ROOT, "vortex-rt", "examples", e)
        out.append((e, [os.path.join(d, "kernel.cpp")], [d]))
    pdir = os.path.join(kdir, "probes")
    for f in sorted(os.listdir(pdir)):
        if f.endswith(".cpp"):
            out.append(("probe_" + f[:-4], [os.path.join(pdir, f)], [kdir]))
    return out


def build(vx, name, sources, includes, work):
    vxbin = os.path.join(work, name + ".vxbin")
    cmd = [vx, "sim", "cc", *sources, "-o", vxbin]
    for i in includes:
        cmd += ["-I", i]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    # SimX takes a flat .bin loaded at the start address: the .vxbin image without its
    # 16-byte (min_vma, max_vma) header.
    with open(vxbin, "rb") as f:
        data = f.read()
    min_vma = int.from_bytes(data[0:8], "little")
    if min_vma != 0x80000000:
        sys.exit(f"{vxbin}: image starts at {min_vma:#x}, SimX loads .bin at 0x80000000")
    binf = os.path.join(work, name + ".bin")
    with open(binf, "wb") as f:
        f.write(data[16:])
    return vxbin, binf, hashlib.sha256(data[16:]).hexdigest()


def ours(vx, vxbin, shape, params):
    c, w, t = shape
    cmd = [vx, "sim", "run", vxbin, "--cores", str(c), "--warps", str(w), "--threads", str(t),
           "--local-mem", "16384", "--timing", "vortex2", "--json"]
    for p in params:
        cmd += ["--timing-param", p]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.time() - t0
    doc = json.loads(r.stdout)
    return {"cycles": doc["cycles"], "instrs": doc["instrs"], "exit": doc["exit_code"], "seconds": dt}


def simx(simx_dir, binf, shape, timeout):
    c, w, t = shape
    exe = os.path.join(simx_dir, f"{c}x{w}x{t}", "simx")
    t0 = time.time()
    try:
        r = subprocess.run([exe, binf], capture_output=True, text=True, cwd=os.path.dirname(exe),
                           timeout=timeout if timeout > 0 else None)
    except subprocess.TimeoutExpired:
        return {"cycles": None, "exit": None, "seconds": time.time() - t0,
                "output": f"timed out after {timeout} s"}
    dt = time.time() - t0
    m = re.search(r"cycles=(\d+)", r.stdout)
    if not m:
        return {"cycles": None, "exit": r.returncode, "seconds": dt, "output": r.stdout[-400:] + r.stderr[-400:]}
    return {"cycles": int(m.group(1)), "exit": r.returncode, "seconds": dt}


def parse_shapes(text):
    """'1x4x32,2x8x16' -> [(1, 4, 32), (2, 8, 16)]; each must be one of SHAPES."""
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", item.strip())
        if not m:
            raise argparse.ArgumentTypeError(f"shape {item!r}: expected CxWxT, e.g. 1x4x32")
        shape = tuple(int(g) for g in m.groups())
        if shape not in SHAPES:
            raise argparse.ArgumentTypeError(
                f"shape {item!r}: not one of {', '.join('x'.join(map(str, s)) for s in SHAPES)}")
        out.append(shape)
    return out


def gmean(xs):
    xs = [max(x, 1e-6) for x in xs]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vxsynth", default=os.path.join(ROOT, "build", "vxsynth"))
    ap.add_argument("--simx-dir")
    ap.add_argument("--simx-json", help="reuse SimX cycles from an earlier --out file")
    ap.add_argument("--work", default="/tmp/vxsynth-timing-calibration")
    ap.add_argument("--out")
    ap.add_argument("--timing-param", action="append", default=[])
    ap.add_argument("--only", help="comma-separated kernel names")
    ap.add_argument("--shapes", type=parse_shapes, default=SHAPES,
                    help="comma-separated shapes CxWxT (default: " + ",".join("x".join(map(str, s)) for s in SHAPES) + ")")
    ap.add_argument("--simx-timeout", type=float, default=1800, help="seconds per SimX run, 0 for no limit (default 1800)")
    ap.add_argument("--no-probes", action="store_true", help="leave out the probe_* rows")
    ap.add_argument("--jobs", type=int, default=1, help="our runs at once (2 at most on a shared machine)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    previous = {}
    if args.simx_json:
        with open(args.simx_json) as f:
            for row in json.load(f)["rows"]:
                previous[(row["kernel"], row["shape"])] = (row.get("simx_cycles"), row.get("bin_sha256"))
    only = set(args.only.split(",")) if args.only else None
    rows = []
    todo = []
    if only:
        unknown = only - {k[0] for k in kernels()}
        if unknown:
            sys.exit(f"--only: no kernel named {', '.join(sorted(unknown))}")
    for name, sources, includes in kernels():
        if only and name not in only:
            continue
        probe = name.startswith("probe_")
        if probe and args.no_probes and not only:
            continue
        shapes = [s for s in (PROBE_SHAPES if probe else SHAPES) if s in args.shapes]
        if not shapes:
            continue
        vxbin, binf, digest = build(args.vxsynth, name, sources, includes, args.work)
        for shape in shapes:
            todo.append((name, probe, vxbin, binf, digest, shape))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda t: ours(args.vxsynth, t[2], t[5], args.timing_param), todo))
    for (name, probe, vxbin, binf, digest, shape), o in zip(todo, results):
        key = "x".join(map(str, shape))
        row = {"kernel": name, "shape": key, "ours_cycles": o["cycles"], "instrs": o["instrs"],
               "ours_exit": o["exit"], "ours_seconds": round(o["seconds"], 2), "bin_sha256": digest}
        if probe:
            row["probe"] = True
        if args.simx_dir:
            s = simx(args.simx_dir, binf, shape, args.simx_timeout)
            row.update({"simx_cycles": s["cycles"], "simx_exit": s["exit"], "simx_seconds": round(s["seconds"], 2)})
            if s["cycles"] is None:
                row["simx_output"] = s.get("output", "")
        elif (name, key) in previous:
            row["simx_cycles"], simx_digest = previous[(name, key)]
            if simx_digest and simx_digest != digest:
                row["simx_binary_differs"] = True
        if row.get("simx_cycles"):
            row["error"] = (row["ours_cycles"] - row["simx_cycles"]) / row["simx_cycles"]
        rows.append(row)
        err = f"{100 * row['error']:+.1f}%" if "error" in row else "n/a"
        took = f" simx_seconds={row['simx_seconds']}" if "simx_seconds" in row else ""
        if row.get("simx_binary_differs"):
            took += " (SimX ran another binary)"
        print(f"{name:16s} {key:7s} ours={row['ours_cycles']:>10} simx={row.get('simx_cycles')!s:>10} error={err}{took}",
              flush=True)
    summary = {}
    for shape in SHAPES + [None]:
        key = "x".join(map(str, shape)) if shape else "all"
        errs = [abs(r["error"]) for r in rows
                if "error" in r and not r.get("probe") and (shape is None or r["shape"] == key)]
        if errs:
            summary[key] = {"kernels": len(errs), "gmean_abs_error": gmean(errs), "max_abs_error": max(errs)}
    for key, s in summary.items():
        print(f"{key:7s}: {s['kernels']} kernels, geometric mean |error| {100 * s['gmean_abs_error']:.1f}%, "
              f"worst {100 * s['max_abs_error']:.1f}%")
    for shape in PROBE_SHAPES:
        key = "x".join(map(str, shape))
        errs = [abs(r["error"]) for r in rows if "error" in r and r.get("probe") and r["shape"] == key]
        if errs:
            summary["probes " + key] = {"kernels": len(errs), "gmean_abs_error": gmean(errs), "max_abs_error": max(errs)}
            print(f"probes {key}: {len(errs)} probes, geometric mean |error| {100 * gmean(errs):.1f}%, "
                  f"worst {100 * max(errs):.1f}% (not in the target)")
    stale = [f"{r['kernel']} {r['shape']}" for r in rows if r.get("simx_binary_differs")]
    if stale:
        summary["simx_binary_differs"] = stale
        print(f"{len(stale)} rows compare with SimX figures of another binary (kernel, vortex-rt or sim cc changed "
              f"since SimX ran): measure them again with --simx-dir", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": rows, "summary": summary, "timing_params": args.timing_param}, f, indent=1)


if __name__ == "__main__":
    main()
