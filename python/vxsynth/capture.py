"""Reference capture of one workload on the GPU machine.

    python3 -m vxsynth.capture --workload act|diffusion_policy|pi0 --out DIR [--suite SUITE]

1. profile (this process): build the model (random weights, fixed seed), warm up, run one
   inference under torch.profiler with shapes recorded and every ATen call annotated by
   OpTracker; join each kernel to its operator (External id), aggregate GPU time by
   (kernel name, operator, input shapes), rank, and keep the top k with their context.
2. ncu (a separate process: torch.profiler and ncu cannot share CUPTI): the same program runs
   under `ncu --profile-from-start off`; OpTracker opens a CUDA profiler window around exactly
   the ATen calls that launched the chosen kernel instances, so ncu collects the project's metric
   list (`vxsynth signature --metrics-list`) for those launches only.
3. finalize (no GPU needed; `--finalize` re-runs it from DIR): find the chosen launches among
   ncu's rows, derive their signatures with `vxsynth signature --json` (the one derivation), and
   write SUITE/<platform>/<workload>-<rank>-<op>/reference.json and
   SUITE/<platform>/<workload>.coverage.json.

Everything raw (trace, ranked table, ncu CSV and log, context) stays in DIR.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import kineto, models, ncu_rows, opcontext, reference
from .optrace import OpTracker

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_CONTROL = "all"
CLOCK_CONTROL = "none"


def log(msg: str):
    print(f"[capture] {msg}", file=sys.stderr, flush=True)


def find_vxsynth(explicit: str | None) -> str:
    candidates = [explicit] if explicit else [
        os.environ.get("VXSYNTH"), str(REPO_ROOT / ".device-bin" / "vxsynth"), str(REPO_ROOT / "build" / "vxsynth"),
        shutil.which("vxsynth")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise SystemExit(f"capture: no vxsynth binary (tried {', '.join(str(c) for c in candidates if c)}); "
                     f"build it (make build) or pass --vxsynth PATH")


def write_json(path: Path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


# --- shared by both processes -------------------------------------------------------------

def prepare(args):
    import torch
    workload = models.get(args.workload)
    cfg = workload.config(args.config)
    if not torch.cuda.is_available():
        raise SystemExit("capture: needs a CUDA GPU; without one, `python3 -m vxsynth.optrace --workload NAME` is a "
                         "dry run that ranks the workload's operators by FLOPs and bytes (docs/capture.md)")
    model = workload.build(cfg, "cuda", args.seed)
    inputs = workload.make_inputs(cfg, "cuda", args.seed)
    return torch, workload, cfg, model, inputs


def warm_up(torch, workload, model, inputs, count, outputs=None):
    """Runs `count` inferences; returns each one's GPU-synchronised latency in ms (and appends
    the last output's summary to `outputs` when given)."""
    times = []
    out = None
    for _ in range(count):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        out = workload.infer(model, inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    if outputs is not None and out is not None:
        outputs.append(models.summarize_output(out))
    return times


def platform_info(torch) -> dict:
    gpu = torch.cuda.get_device_name(0)
    pid = reference.platform_id_for(gpu)
    driver = None
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    return {
        "id": pid,
        "gpu": gpu,
        "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
        "driver": driver,
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "tf32": dict(zip(("cudnn_conv", "cuda_matmul"), opcontext.tf32_flags())),
        "unmeasurable": reference.unmeasurable_for(pid),
    }


def ncu_version(ncu: str) -> str | None:
    try:
        out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60).stdout
        return out.strip().splitlines()[-1] if out.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


# --- stage 1: torch.profiler ----------------------------------------------------------------

def select_targets(hot, launches, calls, top):
    """The top `top` hot kernels: for each, the instance to profile (duration closest to the
    median), the ATen call that launched it (its profiler window) and its operator context.
    Returns (windows, targets): windows sorted by call index, as the ncu child opens them."""
    windows: dict = {}
    targets = []
    for h in hot[:top]:
        rep = h.representative()
        window, position = kineto.window_of(rep, launches)
        windows[rep.op_call] = [{"name": k.name, "grid": k.grid, "block": k.block} for k in window]
        call = calls[rep.op_call]
        op = opcontext.context(call, rep.op_chain, rep.op)
        op["modules"] = sorted({calls[k.op_call]["module"] for k in h.launches if k.op_call is not None})
        op["kernel_role"] = opcontext.kernel_role(h.name, op["kind"])
        instance = next(i for i, k in enumerate(h.launches) if k is rep)
        targets.append({
            "rank": h.rank, "op_call": rep.op_call, "position": position,
            "hot": h.summary(), "op": op,
            "launch": {"grid": rep.grid, "block": rep.block, "registers_per_thread": rep.registers_per_thread,
                       "shared_memory_bytes": rep.shared_memory, "stream": rep.stream},
            "profiled_instance": {"call": instance + 1, "of_calls": h.calls, "op_call": rep.op_call,
                                  "kernel_in_op": position + 1, "kernels_in_op": len(window),
                                  "duration_ns_torch_profiler": rep.dur_ns,
                                  "chosen_as": "duration closest to the median of the launch configuration "
                                               "(grid, block) holding most of this kernel's GPU time"},
        })
    return [{"op_call": c, "kernels": ks} for c, ks in sorted(windows.items())], targets


def stage_profile(args, out: Path) -> dict:
    torch, workload, cfg, model, inputs = prepare(args)
    from torch.profiler import ProfilerActivity, profile

    outputs = []
    warm = warm_up(torch, workload, model, inputs, args.warmup, outputs)
    log(f"{args.workload}: warm-up latencies (ms) {[round(t, 2) for t in warm]}; output {outputs}")
    if outputs and outputs[0]["finite"] is False:
        log("warning: the model's output is not finite (random weights overflowed?)")
    tracker = OpTracker(model, annotate=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        with tracker:
            workload.infer(model, inputs)
        torch.cuda.synchronize()
    trace_path = out / "trace.json"
    prof.export_chrome_trace(str(trace_path))
    with open(trace_path, "rb") as src, gzip.open(str(trace_path) + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    trace_path.unlink()
    trace = kineto.load_trace(str(trace_path) + ".gz")
    launches = kineto.join_kernels(trace)
    if not launches:
        raise SystemExit("capture: the trace holds no kernels (CUDA activity was not recorded)")
    unjoined = [k for k in launches if k.join == "none"]
    if unjoined:
        log(f"warning: {len(unjoined)} kernel(s) could not be joined to an operator, e.g. {unjoined[0].name[:80]}")
    hot = kineto.aggregate(launches)
    total_ns = sum(k.dur_ns for k in launches)

    windows, targets = select_targets(hot, launches, tracker.calls, args.top)
    for w in windows:
        w["op"] = tracker.calls[w["op_call"]]["op"]
    context = {
        "workload": {"name": args.workload, "config": args.config or workload.module.DEFAULT_CONFIG,
                     "dtype": str(workload.dtype).replace("torch.", ""), "batch": 1, "seed": args.seed,
                     "parameters": sum(p.numel() for p in model.parameters())},
        "platform": platform_info(torch),
        "output": outputs[0] if outputs else None,
        "latency_ms": {"warmup": warm, "median_after_first": statistics.median(warm[1:]) if len(warm) > 1 else None},
        "total_kernel_ns": total_ns,
        "kernel_launches": len(launches),
        "unjoined_kernels": len(unjoined),
        "other_gpu_time": kineto.gpu_time_other(trace),
        "hot_kernels": len(hot),
        "coverage": kineto.coverage(hot),
        "op_count": tracker.count,
        "windows": windows,
        "targets": targets,
    }
    with gzip.open(out / "calls.json.gz", "wt") as f:  # the tracked ATen calls, for offline re-analysis
        json.dump(tracker.calls, f)
    write_json(out / f"{args.workload}.kernels.json", {"schema": "vxsynth.kernel-table/1",
                                                      "workload": args.workload,
                                                      "total_kernel_ns": total_ns,
                                                      "kernels": [h.summary() for h in hot]})
    return context


# --- stage 2: ncu ---------------------------------------------------------------------------

def ncu_child(args):
    """Runs under ncu: the same model, inputs and warm-up, then one inference whose chosen ATen
    calls are wrapped in cudaProfilerStart/Stop. Prints nothing on stdout (ncu's CSV goes there)."""
    with open(args.targets) as f:
        targets = json.load(f)
    torch, workload, cfg, model, inputs = prepare(args)
    warm_up(torch, workload, model, inputs, args.warmup)
    record = run_windows(workload, model, inputs, [w["op_call"] for w in targets["windows"]])
    torch.cuda.synchronize()
    write_json(Path(args.out) / "ncu_child.json", record)
    log(f"{args.workload}: ncu child opened {len(record['window_ops'])} profiler window(s) in {record['op_count']} ops")


def run_windows(workload, model, inputs, op_calls) -> dict:
    """One inference with profiler windows around the given ATen calls; returns what the windows
    wrapped and how many calls the inference made, to be checked against the ranking run."""
    with OpTracker(None, log=False, profile_windows=op_calls) as tracker:
        workload.infer(model, inputs)
    return {"op_count": tracker.count, "window_ops": {str(k): v for k, v in sorted(tracker.window_ops.items())}}


def check_same_program(ctx: dict, record: dict):
    """The ncu process must have run the same ATen call sequence as the ranking run, or its
    windows wrapped other calls."""
    want_count = ctx.get("op_count")
    if want_count is not None and record["op_count"] != want_count:
        raise ncu_rows.NcuRowError(f"ncu_child.json: field 'op_count': the ncu process made {record['op_count']} "
                                   f"ATen calls, the ranking run {want_count}; the program is not deterministic")
    for w in ctx["windows"]:
        got = record["window_ops"].get(str(w["op_call"]))
        if "op" in w and got != w["op"]:
            raise ncu_rows.NcuRowError(f"ncu_child.json: field 'window_ops.{w['op_call']}': the ncu process wrapped "
                                       f"{got}, the ranking run saw {w['op']} at that call")


def stage_ncu(args, out: Path, vxsynth: str) -> None:
    metrics = subprocess.run([vxsynth, "signature", "--metrics-list"], capture_output=True, text=True,
                             check=True).stdout.strip()
    cmd = [args.ncu, "--target-processes", "all", "--profile-from-start", "off",
           "--clock-control", CLOCK_CONTROL, "--cache-control", CACHE_CONTROL,
           "--csv", "--page", "raw", "--print-units", "base", "--metrics", metrics,
           sys.executable, "-m", "vxsynth.capture", "--ncu-child", "--workload", args.workload,
           "--targets", str(out / "targets.json"), "--warmup", str(args.warmup), "--seed", str(args.seed),
           "--out", str(out)]
    if args.config:
        cmd += ["--config", args.config]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT / "python") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    with open(out / "ncu.csv", "w") as stdout, open(out / "ncu.log", "w") as stderr:
        stderr.write("$ " + " ".join(cmd) + "\n")
        stderr.flush()
        proc = subprocess.run(cmd, stdout=stdout, stderr=stderr, env=env, timeout=args.ncu_timeout)
    if proc.returncode != 0:
        raise SystemExit(f"capture: ncu exited {proc.returncode}; see {out / 'ncu.log'}")


# --- stage 3: references ----------------------------------------------------------------------

def run_signature(vxsynth: str, csv_path: Path, unmeasurable: list[str], problem: dict | None = None) -> tuple[dict, bool]:
    """`vxsynth signature --json` on the whole CSV. With `problem` (the operator's GEMM view), the
    C++ side also checks the tile it reads from each kernel name against the grid."""
    base = [vxsynth, "signature", str(csv_path), "--json"]
    if unmeasurable:
        base += ["--unmeasurable", ",".join(unmeasurable)]
    if problem:
        base += ["--problem", f"{problem['M']},{problem['N']},{problem.get('batch', 1)}"]
    proc = subprocess.run(base, capture_output=True, text=True)
    if proc.returncode == 0:
        return json.loads(proc.stdout), True
    log(f"warning: vxsynth signature failed ({proc.stderr.strip()[:400]}); retrying with --partial")
    proc = subprocess.run(base + ["--partial"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"capture: vxsynth signature {csv_path} failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout), False


def run_operator(vxsynth: str, csv_path: Path, unmeasurable: list[str], rows: list[dict]) -> dict:
    """The operator signature of one ATen call: `vxsynth signature --operator` over its rows."""
    cmd = [vxsynth, "signature", str(csv_path), "--json", "--operator", "--partial",
           "--ids", ",".join(str(r["ID"]) for r in rows)]
    if unmeasurable:
        cmd += ["--unmeasurable", ",".join(unmeasurable)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"capture: vxsynth signature --operator {csv_path} failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)["operator"]


def stage_finalize(out: Path, suite: Path, vxsynth: str, ncu: str | None, quiet: bool = False) -> list[Path]:
    with open(out / "context.json") as f:
        ctx = json.load(f)
    platform = dict(ctx["platform"])
    platform.update({"ncu_version": ctx.get("ncu_version") or (ncu_version(ncu) if ncu else None),
                     "cache_control": CACHE_CONTROL, "clock_control": CLOCK_CONTROL})
    if (out / "ncu_child.json").is_file():
        with open(out / "ncu_child.json") as f:
            check_same_program(ctx, json.load(f))
    rows = ncu_rows.read_rows(str(out / "ncu.csv"))
    matches = ncu_rows.match_targets(rows, ctx["windows"], ctx["targets"])
    signatures, complete = run_signature(vxsynth, out / "ncu.csv", platform["unmeasurable"])
    if signatures.get("schema") != reference.SIGNATURE_SCHEMA:
        raise SystemExit(f"capture: vxsynth signature printed schema {signatures.get('schema')!r}")
    by_id = {str(k["ncu_id"]): k for k in signatures["kernels"]}
    with_problem = {}
    for t in ctx["targets"]:  # again per compute kernel, with its GEMM shape, so the tile is checked too
        gemm = t["op"].get("gemm")
        if gemm and t["op"].get("kernel_role", "compute") == "compute":
            try:
                sigs, ok = run_signature(vxsynth, out / "ncu.csv", platform["unmeasurable"], gemm)
            except SystemExit as e:  # an older vxsynth without --problem: keep the plain signature
                log(f"warning: no tile check for rank {t['rank']}: {e}")
                continue
            complete = complete and ok
            row_id = str(matches[t["rank"]]["row"]["ID"])
            with_problem[t["rank"]] = next(k for k in sigs["kernels"] if str(k["ncu_id"]) == row_id)
    pdir = suite / platform["id"]
    written = []
    names = []
    for t in ctx["targets"]:
        m = matches[t["rank"]]
        sig = with_problem.get(t["rank"]) or by_id[str(m["row"]["ID"])]
        profiled = dict(t["profiled_instance"], ncu_id=sig["ncu_id"], ncu_match=m["match"])
        operator = run_operator(vxsynth, out / "ncu.csv", platform["unmeasurable"], m["operator_rows"])
        ref = reference.build_reference(workload=ctx["workload"], platform=platform, hot=t["hot"], op=t["op"],
                                        launch=t["launch"], signature=sig, profiled=profiled, operator=operator)
        reference.validate_reference(ref, "generated reference")
        name = reference.bench_dir_name(ctx["workload"]["name"], t["rank"], t["op"]["kind"])
        write_json(pdir / name / "reference.json", ref)
        written.append(pdir / name / "reference.json")
        names.append(name)
        missing = [mid for mid in reference.METRIC_IDS if sig["metrics"].get(mid) is None]
        if not quiet:
            log(f"{name}: share {t['hot']['share']:.3f}, measured {10 - len(missing)}/10, ncu {sig['duration_ns']:.0f} ns "
                f"vs torch {t['profiled_instance']['duration_ns_torch_profiler']:.0f} ns"
                + (f" (unmeasured: {', '.join(missing)})" if missing else ""))
    table_path = out / f"{ctx['workload']['name']}.kernels.json"
    if table_path.exists():
        with open(table_path) as f:
            table = json.load(f)
    else:  # committed captures keep it compressed
        with gzip.open(str(table_path) + ".gz", "rt") as f:
            table = json.load(f)
    coverage = {
        "schema": reference.COVERAGE_SCHEMA,
        "workload": ctx["workload"],
        "platform": platform,
        "latency_ms": ctx["latency_ms"],
        "output": ctx.get("output"),
        "total_kernel_ns": ctx["total_kernel_ns"],
        "kernel_launches": ctx["kernel_launches"],
        "unjoined_kernels": ctx["unjoined_kernels"],
        "other_gpu_time": ctx["other_gpu_time"],
        "hot_kernel_identities": ctx["hot_kernels"],
        "top": len(ctx["targets"]),
        "top_cumulative_share": ctx["targets"][-1]["hot"]["cumulative_share"] if ctx["targets"] else 0.0,
        "coverage": ctx["coverage"],
        "ranked": table["kernels"][:20],
        "references": names,
        "signatures_complete": complete,
        "capture_seconds": ctx.get("capture_seconds", {}),
    }
    write_json(pdir / f"{ctx['workload']['name']}.coverage.json", coverage)
    return written


def main(argv=None):
    try:
        return run(argv)
    except (OSError, ValueError, KeyError, ncu_rows.NcuRowError, kineto.TraceError,
            reference.ReferenceError, subprocess.SubprocessError) as e:
        what = f"missing field {e} in the capture's files" if isinstance(e, KeyError) else str(e)
        print(f"capture: {what}", file=sys.stderr)
        return 2


def run(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m vxsynth.capture", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", required=True, choices=sorted(models.WORKLOADS))
    ap.add_argument("--out", required=True, help="folder for the raw outputs (trace, tables, ncu CSV)")
    ap.add_argument("--config", help="workload config name (default: the published default)")
    ap.add_argument("--suite", help="suite root to write <platform>/<bench>/reference.json into (default OUT/suite)")
    ap.add_argument("--top", type=int, default=5, help="hot kernels to profile with ncu (default 5)")
    ap.add_argument("--warmup", type=int, default=3, help="inferences before the measured one (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vxsynth", help="the vxsynth binary (default .device-bin/vxsynth, build/vxsynth)")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--ncu-timeout", type=int, default=900, help="seconds before the ncu process is stopped")
    ap.add_argument("--skip-ncu", action="store_true", help="stop after the torch.profiler stage")
    ap.add_argument("--finalize", action="store_true",
                    help="only stage 3, from OUT's context.json and ncu.csv (runs without a GPU)")
    ap.add_argument("--ncu-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--targets", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.ncu_child:
        ncu_child(args)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    suite = Path(args.suite) if args.suite else out / "suite"
    vxsynth = find_vxsynth(args.vxsynth)
    if args.finalize:
        if not (out / "context.json").is_file() or not (out / "ncu.csv").is_file():
            raise OSError(f"{out}: --finalize needs context.json and ncu.csv from an earlier capture")
        for p in stage_finalize(out, suite, vxsynth, None):
            print(p)
        return 0
    t0 = time.monotonic()
    ctx = stage_profile(args, out)
    t1 = time.monotonic()
    ctx["ncu_version"] = ncu_version(args.ncu)
    ctx["capture_seconds"] = {"profile": round(t1 - t0, 1)}
    write_json(out / "targets.json", {"windows": ctx["windows"], "targets": [
        {k: t[k] for k in ("rank", "op_call", "position")} for t in ctx["targets"]]})
    write_json(out / "context.json", ctx)
    for t in ctx["targets"]:
        h = t["hot"]
        log(f"#{h['rank']} {h['share']:.3f} (cum {h['cumulative_share']:.3f}) x{h['calls']} "
            f"{t['op']['kind']}/{t['op']['kernel_role']} {h['kernel'][:90]}")
    if args.skip_ncu:
        return 0
    stage_ncu(args, out, vxsynth)
    t2 = time.monotonic()
    ctx["capture_seconds"].update({"ncu": round(t2 - t1, 1)})
    write_json(out / "context.json", ctx)
    written = stage_finalize(out, suite, vxsynth, args.ncu)
    ctx["capture_seconds"].update({"finalize": round(time.monotonic() - t2, 1),
                                   "total": round(time.monotonic() - t0, 1)})
    write_json(out / "context.json", ctx)
    stage_finalize(out, suite, vxsynth, args.ncu, quiet=True)  # again, so coverage.json carries the total time
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
