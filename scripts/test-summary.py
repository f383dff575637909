#!/usr/bin/env python3
"""Closing lines of `make test`: how many tests ran, failed and were skipped, and why each skip.

Reads CTest's JUnit file (ctest --output-junit) and pytest's output (run with -rs, so skips are
listed with their reasons). The last line has the plain form `total: N passed, N failed, N skipped`.
Exits 1 when either runner ran no test at all (a run that tested nothing is not a pass).
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET


def ctest_counts(path):
    """(passed, failed, [(name, reason)] skipped) from CTest's JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        return None, f"cannot read {path}: {e}"
    passed, failed, skipped = 0, 0, []
    for case in root.iter("testcase"):
        name = case.get("name", "?")
        out = case.findtext("system-out") or ""
        skip = case.find("skipped")
        if skip is not None or case.get("status") == "notrun":
            skipped.append((name, skip_reason(out, skip.get("message") if skip is not None else "not run")))
        elif case.find("failure") is not None or case.get("status") == "fail":
            failed += 1
        else:
            passed += 1
    return (passed, failed, skipped), None


def skip_reason(out, fallback):
    lines = out.splitlines()
    for i, line in enumerate(lines):
        # googletest: "file:line: Skipped" then the message on the next line
        if line.rstrip().endswith(": Skipped") and i + 1 < len(lines) and lines[i + 1].strip():
            return lines[i + 1].strip()
        if "skipped:" in line:
            return line.split("skipped:", 1)[1].strip()
    return fallback


def pytest_counts(path):
    """(passed, failed, [(name, reason)] skipped) from pytest -rs output."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        return None, f"cannot read {path}: {e}"
    skipped = []
    for m in re.finditer(r"^SKIPPED \[(\d+)\] ([^:]+:\d+): (.*)$", text, re.M):
        skipped.extend([(m.group(2), m.group(3).strip())] * int(m.group(1)))
    final = None
    for line in text.splitlines():
        if re.search(r"\d+ (passed|failed|skipped|error)", line) and " in " in line:
            final = line
    if final is None:
        return None, "no pytest summary line found"
    def count(word):
        m = re.search(r"(\d+) " + word, final)
        return int(m.group(1)) if m else 0
    n_skipped = count("skipped")
    while len(skipped) < n_skipped:
        skipped.append(("?", "reason not listed"))
    return (count("passed"), count("failed") + count("error"), skipped), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("junit")
    ap.add_argument("pytest_log")
    ap.add_argument("--ctest-exit", type=int, default=0)
    ap.add_argument("--pytest-exit", type=int, default=0)
    a = ap.parse_args()
    status = 0
    total = [0, 0, 0]
    print("=== make test summary")
    for label, (res, err), rc in (("ctest", ctest_counts(a.junit), a.ctest_exit),
                                  ("pytest", pytest_counts(a.pytest_log), a.pytest_exit)):
        if res is None:
            print(f"{label}: FAILED: {err} (exit {rc})")
            status = 1
            continue
        passed, failed, skipped = res
        print(f"{label}: {passed} passed, {failed} failed, {len(skipped)} skipped (exit {rc})")
        reasons = {}
        for name, why in skipped:
            reasons.setdefault(why, []).append(name)
        for why, names in sorted(reasons.items()):
            shown = ", ".join(names[:4]) + (f", ... ({len(names)} in all)" if len(names) > 4 else "")
            print(f"  skipped {len(names)}: {why}  [{shown}]")
        if passed + failed == 0:
            print(f"{label}: FAILED: no test ran")
            status = 1
        total[0] += passed
        total[1] += failed
        total[2] += len(skipped)
    print(f"total: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return status


if __name__ == "__main__":
    sys.exit(main())
