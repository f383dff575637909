"""Stage 3 of the capture (ncu rows -> `vxsynth signature --json` -> reference.json), a platform
without DRAM counters, and the committed H200 suite."""
import json
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, SUITE

import synthetic
from vxsynth import capture, kineto, reference, suite_table

TEMPLATE = FIXTURES / "ncu-probe-bf16-matmul-linear-conv.csv"
WORKLOADS = ("act", "diffusion_policy", "pi0")


def counters_for(vxsynth_bin, seed):
    """A value for every counter of the project's metric list (nothing hard-coded here: the list
    comes from `vxsynth signature --metrics-list`)."""
    names = subprocess.run([vxsynth_bin, "signature", "--metrics-list"], capture_output=True, text=True,
                           check=True).stdout.strip().split(",")
    import random
    rng = random.Random(seed)
    out = {}
    for n in names:
        if n.startswith("launch__"):
            continue
        if n.endswith(".pct") or "pct_of_peak" in n:
            out[n] = round(rng.uniform(1, 99), 2)
        elif n == "smsp__average_thread_inst_executed_per_inst_executed.ratio":
            out[n] = round(rng.uniform(20, 32), 3)
        elif n.endswith(".ratio"):
            out[n] = round(rng.uniform(4, 32), 3)
        elif n.endswith("per_second"):
            out[n] = rng.uniform(1e11, 4e12)
        else:
            out[n] = float(rng.randint(1000, 10 ** 9))
    return out


def make_capture(tmp_path, meta_calls, vxsynth_bin, platform_id="h200", drop_prefixes=()):
    calls = meta_calls["act"]
    trace = synthetic.trace_from_calls(calls, seed=11)
    launches = kineto.join_kernels(trace)
    hot = kineto.aggregate(launches)
    windows, targets = capture.select_targets(hot, launches, calls, 5)
    out = tmp_path / "cap"
    ctx = {"workload": {"name": "act", "config": "aloha-sim", "dtype": "float32", "batch": 1, "seed": 0},
           "platform": {"id": platform_id, "gpu": "test GPU", "unmeasurable": reference.unmeasurable_for(platform_id)},
           "latency_ms": {"warmup": [3.0, 2.0, 2.0], "median_after_first": 2.0},
           "total_kernel_ns": sum(k.dur_ns for k in launches), "kernel_launches": len(launches),
           "unjoined_kernels": 0, "other_gpu_time": {}, "hot_kernels": len(hot), "coverage": kineto.coverage(hot),
           "windows": windows, "targets": targets, "ncu_version": "test"}
    capture.write_json(out / "context.json", ctx)
    capture.write_json(out / "act.kernels.json", {"kernels": [h.summary() for h in hot]})
    kernels = [(k["name"], k["grid"], k["block"]) for w in windows for k in w["kernels"]]
    (out / "ncu.csv").write_text(synthetic.ncu_csv_for(str(TEMPLATE), kernels, counters_for(vxsynth_bin, 3),
                                                       drop_prefixes))
    return out, targets


def test_finalize_writes_references_from_the_cpp_signatures(tmp_path, meta_calls, vxsynth_bin):
    out, targets = make_capture(tmp_path, meta_calls, vxsynth_bin)
    written = capture.stage_finalize(out, tmp_path / "suite", vxsynth_bin, None)
    assert len(written) == 5
    printed = json.loads(subprocess.run([vxsynth_bin, "signature", str(out / "ncu.csv"), "--json"],
                                        capture_output=True, text=True, check=True).stdout)
    by_id = {k["ncu_id"]: k for k in printed["kernels"]}
    for path, t in zip(written, targets):
        ref = reference.load_reference(path)
        assert path.parent.name == f"act-{t['rank']}-{t['op']['kind'].replace('_', '-')}"
        assert reference.measured_metrics(ref) == list(reference.METRIC_IDS)
        # The signature is the C++ object, verbatim: for a compute kernel the one printed with the
        # operator's GEMM shape (--problem), which only adds the tile check to the name reading.
        ncu_id = ref["kernel"]["profiled_instance"]["ncu_id"]
        assert ref["signature"]["metrics"] == by_id[ncu_id]["metrics"]
        g = ref["op"].get("gemm")
        if g and ref["op"]["kernel_role"] == "compute":
            with_problem = json.loads(subprocess.run(
                [vxsynth_bin, "signature", str(out / "ncu.csv"), "--json", "--problem", f"{g['M']},{g['N']},{g['batch']}"],
                capture_output=True, text=True, check=True).stdout)
            assert ref["signature"] == next(k for k in with_problem["kernels"] if k["ncu_id"] == ncu_id)
            tile = next(p for p in ref["signature"]["kernel_name_reading"]["properties"] if p["key"] == "tile")
            # unchecked: a persistent launch (fewer blocks than tiles) cannot confirm a tile
            assert tile["check"] in ("agrees", "contradicted", "unchecked")
        else:
            assert ref["signature"] == by_id[ncu_id]
        assert ref["kernel"]["rank"] == t["rank"] and ref["kernel"]["calls"] == t["hot"]["calls"]
        # The operator is every kernel of the target's call, the target among them.
        op = ref["operator"]
        assert ncu_id in [k["ncu_id"] for k in op["kernels"]]
        assert op["duration_ns"] == pytest.approx(sum(k["duration_ns"] for k in op["kernels"]))
        assert ref["launch"]["grid"] == ref["signature"]["launch"]["grid"]
        assert ref["fixed_properties"]["block_size"] == ref["signature"]["launch"]["block_size"]
    cov = json.loads((tmp_path / "suite" / "h200" / "act.coverage.json").read_text())
    assert cov["schema"] == reference.COVERAGE_SCHEMA and cov["signatures_complete"] is True
    assert cov["top_cumulative_share"] == pytest.approx(targets[-1]["hot"]["cumulative_share"])


def test_platform_without_dram_counters(tmp_path, meta_calls, vxsynth_bin):
    """Jetson AGX Orin (ga10b has no dram__* metrics): the two DRAM-based metrics are recorded as
    unmeasured, the other eight are measured."""
    out, _ = make_capture(tmp_path, meta_calls, vxsynth_bin, platform_id="jetson-agx-orin",
                          drop_prefixes=("dram__", "gpu__dram"))
    written = capture.stage_finalize(out, tmp_path / "suite", vxsynth_bin, None)
    assert all(p.parts[-3] == "jetson-agx-orin" for p in written)
    for p in written:
        ref = reference.load_reference(p)
        metrics = ref["signature"]["metrics"]
        assert metrics["arithmetic_intensity"] is None and metrics["dram_bandwidth"] is None
        assert set(ref["signature"]["unmeasured"]) == {"arithmetic_intensity", "dram_bandwidth"}
        assert len(reference.measured_metrics(ref)) == 8
        assert ref["platform"]["unmeasurable"] == ["arithmetic_intensity", "dram_bandwidth"]


def test_platform_ids():
    assert reference.platform_id_for("NVIDIA H200") == "h200"
    assert reference.platform_id_for("Orin (nvgpu)") == "jetson-agx-orin"
    assert reference.unmeasurable_for("h200") == []


def test_validate_reference_names_the_field(tmp_path):
    ref = json.loads(next((SUITE / "h200").glob("*/reference.json")).read_text())
    ref["signature"]["metrics"]["occupancy"] = None
    with pytest.raises(reference.ReferenceError, match="x.json: field 'signature.metrics.occupancy': null"):
        reference.validate_reference(ref, "x.json")
    del ref["kernel"]["rank"]
    with pytest.raises(reference.ReferenceError, match="field 'kernel.rank': missing"):
        reference.validate_reference(ref, "x.json")


PLATFORMS = [("h200", "NVIDIA H200"), ("h100", "NVIDIA H100 80GB HBM3")]


def committed(platform="h200"):
    return sorted((SUITE / platform).glob("*/reference.json"))


@pytest.mark.parametrize("platform,gpu", PLATFORMS)
def test_committed_suite_has_fifteen_complete_references(platform, gpu):
    refs = [reference.load_reference(p) for p in committed(platform)]
    assert len(refs) == 15
    for w in WORKLOADS:
        mine = sorted((r for r in refs if r["workload"]["name"] == w), key=lambda r: r["kernel"]["rank"])
        assert [r["kernel"]["rank"] for r in mine] == [1, 2, 3, 4, 5]
        shares = [r["kernel"]["gpu_time_share"] for r in mine]
        assert shares == sorted(shares, reverse=True)
        cov = json.loads((SUITE / platform / f"{w}.coverage.json").read_text())
        assert cov["top_cumulative_share"] == pytest.approx(mine[-1]["kernel"]["cumulative_share"])
        assert cov["references"] == [p.parent.name for p in committed(platform) if p.parent.name.startswith(w + "-")]
        for r in mine:
            assert reference.measured_metrics(r) == list(reference.METRIC_IDS), r["kernel"]["name"]
            # torch.profiler's launch of the chosen instance and ncu's agree on the geometry
            assert r["launch"]["grid"] == r["signature"]["launch"]["grid"]
            assert r["launch"]["block"] == r["signature"]["launch"]["block"]
            assert r["launch"]["registers_per_thread"] == r["signature"]["launch"]["registers_per_thread"]
            assert r["platform"]["gpu"] == gpu and r["platform"]["id"] == platform
            assert r["platform"]["cache_control"] == "all"


@pytest.mark.parametrize("platform", [p for p, _ in PLATFORMS])
def test_committed_references_rederive_from_the_raw_captures(tmp_path, vxsynth_bin, platform):
    """The committed references are what today's `vxsynth signature` derives from the committed
    ncu CSVs. If the derivation changes, re-run the documented --finalize command."""
    for w in WORKLOADS:
        capture.stage_finalize(SUITE / "captures" / platform / w, tmp_path, vxsynth_bin, None, quiet=True)
    for p in committed(platform):
        fresh = json.loads((tmp_path / platform / p.parent.name / "reference.json").read_text())
        old = json.loads(p.read_text())
        assert fresh["signature"]["metrics"] == pytest.approx(old["signature"]["metrics"], rel=1e-9), p.parent.name
        assert fresh["fixed_properties"]["engine_class"] == old["fixed_properties"]["engine_class"], p.parent.name
        assert fresh["op"] == old["op"] and fresh["kernel"] == old["kernel"]
        assert fresh["operator"]["metrics"] == pytest.approx(old["operator"]["metrics"], rel=1e-9), p.parent.name
        assert fresh["operator"]["kernels"] == old["operator"]["kernels"], p.parent.name


def _num(text):
    return float(text.replace(",", ""))


@pytest.mark.parametrize("platform", [p for p, _ in PLATFORMS])
def test_operator_references_agree_with_sums_of_the_raw_counters(platform):
    """Every committed reference's operator (all kernels of its ATen call) recomputed here from
    the raw ncu rows, by sums of counters rather than the C++ side's weighted means: time, DRAM
    bytes, bandwidth as bytes over time, occupancy over time, lanes over instructions."""
    from vxsynth import ncu_rows
    multi = 0
    for w in WORKLOADS:
        rows = {r["ID"]: r for r in ncu_rows.read_rows(str(SUITE / "captures" / platform / w / "ncu.csv"))}
        for p in committed(platform):
            if not p.parent.name.startswith(w + "-"):
                continue
            op = json.loads(p.read_text())["operator"]
            mine = [rows[k["ncu_id"]] for k in op["kernels"]]
            assert ref_id(p) in [k["ncu_id"] for k in op["kernels"]], p.parent.name
            ns = sum(_num(r["gpu__time_duration.sum"]) for r in mine)
            dram = sum(_num(r["dram__bytes_read.sum"]) + _num(r["dram__bytes_write.sum"]) for r in mine)
            inst = sum(_num(r["smsp__inst_executed.sum"]) for r in mine)
            lanes = sum(_num(r["smsp__thread_inst_executed.sum"]) for r in mine) / (32 * inst)
            occupancy = sum(_num(r["gpu__time_duration.sum"]) * _num(r["sm__warps_active.avg.pct_of_peak_sustained_active"])
                            for r in mine) / ns
            assert op["duration_ns"] == pytest.approx(ns) and op["dram_bytes"] == pytest.approx(dram)
            m = op["metrics"]
            assert m["dram_bandwidth"] == pytest.approx(dram / (ns * 1e-9), rel=0.01), p.parent.name
            assert m["occupancy"] == pytest.approx(occupancy, rel=1e-9), p.parent.name
            assert m["active_lane_fraction"] == pytest.approx(lanes, rel=0.002), p.parent.name
            multi += len(mine) > 1
    assert multi >= 5  # ACT's conv and addmm with a reduction, Diffusion Policy's convolutions


def ref_id(path):
    return json.loads(path.read_text())["kernel"]["profiled_instance"]["ncu_id"]


def test_suite_table_prints_every_reference(capsys):
    assert suite_table.main(["--suite", str(SUITE)]) == 0
    text = capsys.readouterr().out
    for w in WORKLOADS:
        assert f"== {w} " in text
    rows = [line for line in text.splitlines() if line.strip()[:2] in ("1 ", "2 ", "3 ", "4 ", "5 ")]
    assert len(rows) == 15
    assert suite_table.main(["--suite", str(SUITE), "--platform", "nowhere"]) == 2


def test_capture_cli_reports_bad_input(tmp_path, vxsynth_bin, capsys):
    assert capture.main(["--workload", "act", "--out", str(tmp_path), "--finalize", "--vxsynth", vxsynth_bin]) == 2
    assert "--finalize needs context.json and ncu.csv" in capsys.readouterr().err
    assert capture.main(["--workload", "act", "--config", "nope", "--out", str(tmp_path), "--skip-ncu",
                         "--vxsynth", vxsynth_bin]) == 2
    assert "unknown config 'nope'" in capsys.readouterr().err
    (tmp_path / "context.json").write_text("{}")
    (tmp_path / "ncu.csv").write_text("==PROF== nothing\n")
    assert capture.main(["--workload", "act", "--out", str(tmp_path), "--finalize", "--vxsynth", vxsynth_bin]) == 2
    assert "capture:" in capsys.readouterr().err
