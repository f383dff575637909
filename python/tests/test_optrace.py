"""OpTracker: call log, module attribution, determinism, and the CUDA profiler windows the ncu
process relies on (checked on the CPU with the CUDA calls recorded instead of made)."""
import json

import torch

from vxsynth import models, optrace


def test_call_log_is_deterministic_and_attributed(meta_calls):
    w = models.get("act")
    again = optrace.trace_ops(w)
    first = meta_calls["act"]
    assert [(c["op"], c["args"]) for c in again] == [(c["op"], c["args"]) for c in first]
    assert [c["index"] for c in first] == list(range(len(first)))
    convs = [c for c in first if c["op"] == "aten.convolution.default"]
    assert convs[0]["module"] == "backbone.conv1"
    assert convs[-1]["module"] == "encoder_img_feat_input_proj"
    assert any(c["module"] == "encoder.3.linear2" for c in first if c["op"] == "aten.addmm.default")


def test_describe_value():
    t = torch.zeros(2, 3).t()
    assert optrace.describe_value(t) == {"shape": [3, 2], "dtype": "float32", "stride": [1, 3]}
    assert optrace.describe_value([1, (2, 3), None, True]) == [1, [2, 3], None, True]
    assert optrace.describe_value(torch.bfloat16) == "bfloat16"


def test_profiler_windows_wrap_exactly_the_chosen_calls(monkeypatch):
    w = models.get("act")
    cfg = w.config("small")
    model = w.build(cfg, "cpu")
    inputs = w.make_inputs(cfg, "cpu")
    with optrace.OpTracker(model) as tracker:
        w.infer(model, inputs)
    wanted = [c["index"] for c in tracker.calls if c["op"] == "aten.convolution.default"][3:5]
    wanted.append(next(c["index"] for c in tracker.calls if c["op"] == "aten.bmm.default"))

    events = []
    state = {"tracker": None}
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(torch.cuda.profiler, "start", lambda: events.append(("start", state["tracker"].count - 1)))
    monkeypatch.setattr(torch.cuda.profiler, "stop", lambda: events.append(("stop", state["tracker"].count - 1)))
    tracker2 = optrace.OpTracker(None, log=False, profile_windows=wanted)
    state["tracker"] = tracker2
    with tracker2:
        w.infer(model, inputs)
    assert tracker2.calls == []
    assert tracker2.count == len(tracker.calls)
    assert events == [(kind, i) for i in sorted(wanted) for kind in ("start", "stop")]


def test_annotations_name_the_call_index():
    w = models.get("diffusion_policy")
    cfg = w.config("small")
    model = w.build(cfg, "cpu")
    inputs = w.make_inputs(cfg, "cpu")
    names = []
    real = torch.profiler.record_function

    class Spy(real):
        def __init__(self, name, *a, **k):
            names.append(name)
            super().__init__(name, *a, **k)

    try:
        torch.profiler.record_function = Spy
        with optrace.OpTracker(model, annotate=True) as tracker:
            w.infer(model, inputs)
    finally:
        torch.profiler.record_function = real
    assert names == [f"vxop:{i}" for i in range(len(tracker.calls))]


def test_ncu_child_windows_are_checked_against_the_ranking_run(monkeypatch):
    import pytest
    from vxsynth import capture, ncu_rows
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(torch.cuda.profiler, "start", lambda: None)
    monkeypatch.setattr(torch.cuda.profiler, "stop", lambda: None)
    w = models.get("pi0")
    cfg = w.config("small")
    model = w.build(cfg, "cpu")
    inputs = w.make_inputs(cfg, "cpu")
    with optrace.OpTracker(model) as ranking:
        w.infer(model, inputs)
    chosen = [c["index"] for c in ranking.calls if c["op"] == "aten.bmm.default"][:3]
    ctx = {"op_count": ranking.count,
           "windows": [{"op_call": i, "op": ranking.calls[i]["op"], "kernels": []} for i in chosen]}
    record = capture.run_windows(w, model, inputs, chosen)
    assert record["op_count"] == ranking.count
    assert record["window_ops"] == {str(i): "aten.bmm.default" for i in chosen}
    capture.check_same_program(ctx, record)
    with pytest.raises(ncu_rows.NcuRowError, match="field 'op_count'"):
        capture.check_same_program(dict(ctx, op_count=ranking.count + 1), record)
    shifted = dict(record, window_ops={str(i): "aten.mm.default" for i in chosen})
    with pytest.raises(ncu_rows.NcuRowError, match=f"field 'window_ops.{chosen[0]}'"):
        capture.check_same_program(ctx, shifted)


def test_dry_run_ranks_acts_ops_by_flops_and_bytes(capsys):
    """`python3 -m vxsynth.optrace`: no GPU, the meta device, ops grouped by shapes and ranked."""
    assert optrace.main(["--workload", "act", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["schema"] == "vxsynth.optrace/1" and r["device"] == "meta" and r["config"] == "aloha-sim"
    assert abs(r["flops"] / 1e9 - 34.93) < 0.01  # workloads.md: ACT's GEMM + conv total
    ops = r["ops"]
    assert [g["flops"] for g in ops] == sorted((g["flops"] for g in ops), reverse=True)
    top = ops[0]  # ResNet-18 layer1: four 3x3 convs 64 -> 64 at 120x160
    assert top["kind"] == "conv2d" and top["calls"] == 4 and top["shapes"] == [[1, 64, 120, 160], [64, 64, 3, 3]]
    assert top["flops"] == 4 * 2 * (120 * 160) * 64 * (64 * 9)
    # Bytes: input, weight and output at fp32, each call.
    assert top["bytes"] == 4 * 4 * (64 * 120 * 160 + 64 * 64 * 9 + 64 * 120 * 160)
    assert sum(g["calls"] for g in ops) == r["calls"]
    # Views move nothing; non-GEMM ops have bytes but no FLOPs.
    views = [g for g in ops if g["kind"] in ("t", "view", "expand", "_unsafe_view", "permute", "transpose")]
    assert views and all(g["bytes"] == 0 for g in views)
    assert any(g["kind"] == "relu_" and g["flops"] == 0 and g["bytes"] > 0 for g in ops)

    assert optrace.main(["--workload", "act", "--sort", "bytes", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "dry run of act (config aloha-sim, meta device" in text and "top 3 by bytes" in text
    assert len(text.strip().splitlines()) == 2 + 3


def test_dry_run_rejects_an_unknown_config(capsys):
    assert optrace.main(["--workload", "act", "--config", "huge"]) == 2
    assert "unknown config 'huge'" in capsys.readouterr().err
