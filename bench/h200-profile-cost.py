#!/usr/bin/env python3
"""Where the time of one profiled round goes (issue 23's candidates per device-minute), on a GPU
machine: the same harness job (one refine round: its candidates, already built) run
  harness      without ncu (inputs, vendor reference, candidate launch, check, the profile launch)
  ncu-1        under ncu with one metric (gpu__time_duration.sum: one replay pass per kernel)
  ncu-full     under ncu with the project's metrics (the refine loop's command)
  ncu-nocache  the same with --cache-control none (no cache flush between passes)
each timed, with the number of profiled kernels and their replay passes read from the CSV.
Usage: bench/h200-profile-cost.py HARNESS_JOB_JSON NCU_COMMAND_TXT OUT_DIR [MAX_CANDIDATES]
(the two files are what `vxsynth gpu profile` / a refine round writes in its profile folder);
one profile per candidate (repeat 1), the first MAX_CANDIDATES (default 12) of the job."""
import csv, io, json, os, shlex, subprocess, sys, time

job_path, cmd_path, out = sys.argv[1:4]
max_candidates = int(sys.argv[4]) if len(sys.argv) > 4 else 12
os.makedirs(out, exist_ok=True)
base = shlex.split(open(cmd_path).read().strip())
job = json.load(open(job_path))
job["repeat"] = 1
job["candidates"] = job.get("candidates", [])[:max_candidates]
harness = base[-2]


def variant(name, argv_fn):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    j = dict(job)
    j["out_dir"] = d
    jp = os.path.join(d, "job.json")
    json.dump(j, open(jp, "w"))
    argv = argv_fn(jp)
    t = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t
    open(os.path.join(d, "stderr.txt"), "w").write(r.stderr[-20000:])
    kernels, passes = 0, []
    lines = [l for l in r.stdout.splitlines() if l.startswith('"')]
    if lines:
        rows = list(csv.reader(io.StringIO("\n".join(lines))))
        head = rows[0]
        body = [x for x in rows[2:] if len(x) == len(head)]
        kernels = len(body)
        if "profiler__replayer_passes" in head:
            i = head.index("profiler__replayer_passes")
            passes = sorted({x[i] for x in body})
    return {"variant": name, "seconds": round(secs, 2), "exit": r.returncode, "kernels": kernels, "passes": passes}


def with_metrics(metrics, extra=()):
    def f(jp):
        argv = list(base[:-1]) + [jp]
        i = argv.index("--metrics")
        argv[i + 1] = metrics
        out_argv = argv[:-2] + list(extra) + argv[-2:]
        return out_argv
    return f


metrics_full = base[base.index("--metrics") + 1]
results = [
    variant("harness", lambda jp: [harness, jp]),
    variant("ncu-1", with_metrics("gpu__time_duration.sum")),
    variant("ncu-full", with_metrics(metrics_full)),
]
cc = base.index("--cache-control")
def nocache(jp):
    argv = list(base[:-1]) + [jp]
    argv[cc + 1] = "none"
    return argv
results.append(variant("ncu-nocache", nocache))
n = len(job.get("candidates", [])) * len(job.get("ops", []))
summary = {"job": job_path, "candidates_x_ops": n, "repeat": job.get("repeat"), "results": results}
json.dump(summary, open(os.path.join(out, "profile-cost.json"), "w"), indent=2)
for r in results:
    print(f"{r['variant']:12s} {r['seconds']:7.1f} s  exit {r['exit']}  kernels {r['kernels']}  passes {r['passes']}")
