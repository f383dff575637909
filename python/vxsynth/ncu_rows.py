"""Finds which rows of an ncu raw CSV are the kernel instances the capture asked for.

Only row identity is read here (ID, kernel name, grid, block): every metric is derived by the
C++ side (`vxsynth signature`), so the derivation exists once.
"""
from __future__ import annotations

import csv
import io
import re


class NcuRowError(ValueError):
    pass


def read_rows(path: str) -> list[dict]:
    """Rows of `ncu --csv --page raw` output as dicts (ncu's ==PROF== lines and program output
    before the header are skipped; the units row is dropped)."""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise NcuRowError(f"{path}: cannot read ({e})") from e
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise NcuRowError(f"{path}: no header row starting with \"ID\" (did ncu profile any kernel? "
                          f"see the ==PROF==/==ERROR== lines in the file)")
    # ncu's own ==PROF==/==WARNING== lines can also follow the table.
    body = [line for line in lines[start:] if not line.startswith("==")]
    rows = list(csv.reader(io.StringIO("\n".join(body))))
    header = rows[0]
    for needed in ("ID", "Kernel Name", "Grid Size", "Block Size"):
        if needed not in header:
            raise NcuRowError(f"{path}: header has no column {needed!r}")
    data = rows[2:] if len(rows) > 1 else []
    out = []
    for r in data:
        if len(r) != len(header):
            raise NcuRowError(f"{path}: a row has {len(r)} fields, the header {len(header)}")
        out.append(dict(zip(header, r)))
    return out


def parse_dim3(text: str) -> list[int]:
    """'(2, 64, 1)' -> [2, 64, 1]."""
    nums = re.findall(r"\d+", text.replace(",", " "))
    return [int(n) for n in nums]


def base_name(kernel_name: str) -> str:
    """The kernel's function identifier, comparable between torch.profiler's full demangled
    names and ncu's simplified ones: `void at::native::f<4, ...>(...)` and `at::f<4, ...>(...)`
    both give `f`; `nvjet_sm90_...` stays as it is."""
    name = kernel_name.strip()
    if name.startswith("void "):
        name = name[5:]
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        if ch in "<(" and depth == 0:
            cut = i
            break
    name = name[:cut]
    return name.split("::")[-1].strip()


def same_kernel(trace_kernel: dict, row: dict) -> bool:
    return (base_name(trace_kernel["name"]) == base_name(row["Kernel Name"])
            and list(trace_kernel["grid"]) == parse_dim3(row["Grid Size"])
            and list(trace_kernel["block"]) == parse_dim3(row["Block Size"]))


def match_targets(rows: list[dict], windows: list[dict], targets: list[dict]) -> dict:
    """Maps each target (rank) to its CSV row.

    `windows`: [{"op_call": n, "kernels": [{"name", "grid", "block"}, ...]}] in the order the
    profiled program opened them; `targets`: [{"rank", "op_call", "position"}]. The rows should
    be exactly the windows' kernels in order; if they are not (a kernel ncu did not see, or an
    extra one), each target is looked up by name and geometry instead and the match says so.
    Each result also holds "operator_rows": the rows of every kernel the target's ATen call ran
    (its window), in launch order: the operator's reference is all of them.
    """
    expected = [(w["op_call"], i, k) for w in windows for i, k in enumerate(w["kernels"])]
    result = {}
    if len(expected) == len(rows) and all(same_kernel(k, r) for (_, _, k), r in zip(expected, rows)):
        position = {(call, i): r for (call, i, _), r in zip(expected, rows)}
        for t in targets:
            window = next(w for w in windows if w["op_call"] == t["op_call"])
            result[t["rank"]] = {"row": position[(t["op_call"], t["position"])], "match": "sequence",
                                 "operator_rows": [position[(t["op_call"], i)] for i in range(len(window["kernels"]))]}
        return result
    used = set()

    def find(want, rank):
        hit = next((i for i, r in enumerate(rows) if i not in used and same_kernel(want, r)), None)
        if hit is None:
            raise NcuRowError(
                f"ncu profiled {len(rows)} kernel(s), expected {len(expected)}; no row matches target rank "
                f"{rank} ({base_name(want['name'])}, grid {want['grid']}, block {want['block']})")
        used.add(hit)
        return rows[hit]

    found = {}  # (op_call, position) -> row: the targets' own rows first, then their calls' others
    for t in targets:
        window = next(w for w in windows if w["op_call"] == t["op_call"])
        found[(t["op_call"], t["position"])] = find(window["kernels"][t["position"]], t["rank"])
        result[t["rank"]] = {"row": found[(t["op_call"], t["position"])], "match": "name+geometry"}
    for t in targets:
        window = next(w for w in windows if w["op_call"] == t["op_call"])
        for i, k in enumerate(window["kernels"]):
            if (t["op_call"], i) not in found:
                found[(t["op_call"], i)] = find(k, t["rank"])
        result[t["rank"]]["operator_rows"] = [found[(t["op_call"], i)] for i in range(len(window["kernels"]))]
    return result
