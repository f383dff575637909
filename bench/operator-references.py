#!/usr/bin/python3
"""How far each committed reference's whole call is from its hot kernel.

  bench/operator-references.py [SUITE_PLATFORM_DIR ...] [--vxsynth BUILD/vxsynth]

Per reference (default: suite/vx-robotics/h200 and h100): the kernels its ATen call runs, the
call's summed time, the share of the call's time and DRAM bytes outside the hot kernel, and D
between the operator signature and the hot kernel's (`vxsynth distance`): what moving the suite's
target from the paper's one kernel to the operator changes. Markdown table on stdout.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def distance(vx, a, b):
    out = subprocess.run([vx, "distance", a, b], capture_output=True, text=True, check=True).stdout
    line = next(l for l in reversed(out.splitlines()) if l.startswith("D "))
    return float(line.split()[2])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suites", nargs="*", default=["suite/vx-robotics/h200", "suite/vx-robotics/h100"])
    ap.add_argument("--vxsynth", default="build/vxsynth")
    a = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="operator-references-"))
    for suite in a.suites:
        print(f"\n{suite}\n")
        print("| reference | kernels | call us | time outside hot kernel | bytes outside | D(operator, hot kernel) |")
        print("|---|---:|---:|---:|---:|---:|")
        for ref in sorted(Path(suite).glob("*/reference.json")):
            j = json.loads(ref.read_text())
            if "operator" not in j:
                raise SystemExit(f"{ref}: no 'operator' (capture --finalize writes it)")
            op, hot = j["operator"], j["signature"]
            main_k = next(k for k in op["kernels"] if k["ncu_id"] == hot["ncu_id"])
            files = []
            for name, kernel in (("op", dict(op, ncu_id="")), ("hot", hot)):
                f = tmp / f"{ref.parent.name}-{name}.json"
                f.write_text(json.dumps({"schema": "vxsynth.signature/1", "source": str(ref), "kernels": [kernel]}))
                files.append(str(f))
            d = distance(a.vxsynth, *files)
            outside_t = 1 - main_k["duration_ns"] / op["duration_ns"]
            outside_b = 1 - (main_k["dram_bytes"] or 0) / op["dram_bytes"] if op["dram_bytes"] else 0
            print(f"| {ref.parent.name} | {len(op['kernels'])} | {op['duration_ns'] / 1000:.1f} | {100 * outside_t:.0f} % | "
                  f"{100 * outside_b:.0f} % | {d:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
