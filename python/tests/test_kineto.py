"""Kernel-to-operator join and hot-kernel ranking on the real H200 Kineto trace, and on traces
shaped like it around a real OpTracker call log."""
import copy
import gzip
import json

import pytest
from conftest import FIXTURES

import synthetic
from vxsynth import capture, kineto


@pytest.fixture(scope="module")
def h200_trace():
    return kineto.load_trace(str(FIXTURES / "torch-profiler-trace.json.gz"))


EXPECTED_OPS = [  # launch order in the fixture: (kernel name prefix, innermost ATen op)
    ("nvjet_sm90_tst_256x128", "aten::mm"),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm", "aten::mm"),
    ("sm90_xmma_gemm_f32f32_tf32f32", "aten::mm"),
    ("void cudnn::engines_precompiled::nchwToNhwcKernel", "aten::cudnn_convolution"),
    ("void cudnn::engines_precompiled::nchwToNhwcKernel", "aten::cudnn_convolution"),
    ("sm80_xmma_fprop_implicit_gemm_tf32f32", "aten::cudnn_convolution"),
    ("sm80_xmma_fprop_implicit_gemm_f32f32", "aten::cudnn_convolution"),
    ("void at::native::indexFuncLargeIndex", "aten::index_add_"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add", "aten::add"),
    ("void at::native::elementwise_kernel<128, 2", "aten::copy_"),
    ("cudnn_generated_fort_native_sdpa_sm90", "aten::_cudnn_attention_forward"),
]


def test_join_by_external_id(h200_trace):
    launches = kineto.join_kernels(h200_trace)
    assert [(k.name[:len(p)], k.op_name) for k, (p, _) in zip(launches, EXPECTED_OPS)] == EXPECTED_OPS
    assert all(k.join == "external_id" for k in launches)
    nvjet = launches[0]
    assert nvjet.op["input_dims"] == [[2048, 2048], [2048, 2048]]
    assert nvjet.op["input_types"] == ["c10::BFloat16", "c10::BFloat16"]
    assert nvjet.grid == [2, 64, 1] and nvjet.block == [384, 1, 1] and nvjet.registers_per_thread == 168
    assert nvjet.op_chain == ["OP:mm_bf16", "aten::matmul", "aten::mm"]
    assert launches[10].op_chain[-3:] == ["aten::scaled_dot_product_attention",
                                          "aten::_scaled_dot_product_cudnn_attention", "aten::_cudnn_attention_forward"]


def test_join_through_launch_calls_when_external_ids_are_missing(h200_trace):
    """Kernels without an External id are joined through their launch call, found by correlation
    in cuda_runtime *and* cuda_driver (nvjet, CUTLASS and SDPA launch through the driver API)."""
    trace = copy.deepcopy(h200_trace)
    for e in trace["traceEvents"]:
        if e.get("cat") == "kernel":
            e["args"].pop("External id")
    launches = kineto.join_kernels(trace)
    assert [(k.name[:len(p)], k.op_name) for k, (p, _) in zip(launches, EXPECTED_OPS)] == EXPECTED_OPS
    assert all(k.join == "launch_call" for k in launches)
    # ...and with only runtime launch events, the driver-API kernels are not joined.
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("cat") != "cuda_driver"]
    unjoined = [k.name[:5] for k in kineto.join_kernels(trace) if k.join == "none"]
    assert unjoined == ["nvjet", "void ", "cudnn"]


def test_aggregate_ranks_by_gpu_time(h200_trace):
    hot = kineto.aggregate(kineto.join_kernels(h200_trace))
    assert [h.rank for h in hot] == list(range(1, 11))  # the two nchwToNhwc launches are one identity
    assert hot[0].name.startswith("void cutlass::Kernel2<cutlass_80_simt_sgemm") and hot[0].total_ns == 342494.0
    totals = [h.total_ns for h in hot]
    assert totals == sorted(totals, reverse=True)
    assert sum(h.share for h in hot) == pytest.approx(1.0)
    assert hot[-1].cumulative_share == pytest.approx(1.0)
    transform = next(h for h in hot if "nchwToNhwc" in h.name)
    assert transform.calls == 2
    configs = transform.launch_configs()
    assert [c["grid"] for c in configs] == [[98, 2, 32], [1, 2, 64]]  # most GPU time first
    assert transform.representative().grid == [98, 2, 32]
    cov = kineto.coverage(hot)
    assert [c["k"] for c in cov] == [1, 3, 5, 10, 20]
    assert cov[2]["cumulative_share"] == pytest.approx(hot[4].cumulative_share)


def test_representative_comes_from_the_dominant_launch_configuration():
    """Like cuDNN's nchwToNhwc in the Diffusion Policy U-Net: as many cheap input transforms as
    costly weight transforms; the median of all calls would pick a cheap one."""
    def launch(i, grid, dur):
        return kineto.KernelLaunch(name="t", ts_us=i, dur_ns=dur, correlation=i, grid=grid, block=[256, 1, 1],
                                   registers_per_thread=32, shared_memory=0, stream=7, external_id=1,
                                   join="external_id", op={"name": "aten::cudnn_convolution", "input_dims": []})
    ks = []
    for i in range(50):
        ks.append(launch(2 * i, [1, 64, 1], 1500.0 + i))
        ks.append(launch(2 * i + 1, [1, 64, 2048], 200000.0 + 10 * i))
    (h,) = kineto.aggregate(ks)
    rep = h.representative()
    assert rep.grid == [1, 64, 2048]
    assert abs(rep.dur_ns - 200245.0) <= 5.0


def test_bad_traces_are_reported_with_the_file(tmp_path):
    bad = tmp_path / "trace.json"
    bad.write_text("{not json")
    with pytest.raises(kineto.TraceError, match="trace.json: not a readable Kineto JSON trace"):
        kineto.load_trace(str(bad))
    bad.write_text(json.dumps({"traceEvents": 3}))
    with pytest.raises(kineto.TraceError, match="field 'traceEvents'"):
        kineto.load_trace(str(bad))
    gz = tmp_path / "t.json.gz"
    with gzip.open(gz, "wt") as f:
        json.dump({"traceEvents": []}, f)
    assert kineto.load_trace(str(gz)) == {"traceEvents": []}


def test_select_targets_on_an_annotated_trace(meta_calls):
    calls = meta_calls["diffusion_policy"]
    trace = synthetic.trace_from_calls(calls, seed=7)
    launches = kineto.join_kernels(trace)
    assert all(k.op_call is not None for k in launches)
    hot = kineto.aggregate(launches)
    windows, targets = capture.select_targets(hot, launches, calls, 5)
    assert [t["rank"] for t in targets] == [1, 2, 3, 4, 5]
    assert [w["op_call"] for w in windows] == sorted(w["op_call"] for w in windows)
    for t in targets:
        window = next(w for w in windows if w["op_call"] == t["op_call"])
        assert window["kernels"][t["position"]]["name"] == t["hot"]["kernel"]
        call = calls[t["op_call"]]
        assert call["op"] in ("aten.convolution.default", "aten.addmm.default", "aten.mm.default")
        op = t["op"]
        assert op["module"] == call["module"] and op["module"] in op["modules"]
        if op["kind"] == "conv1d":
            g = op["gemm"]
            assert g["N"] == call["args"][1]["shape"][0]
            assert g["K"] == call["args"][1]["shape"][1] * call["args"][1]["shape"][2]
            assert op["layout"] == "NCW" and op["math"] == "tf32" and op["groups"] == 1
        assert t["op"]["kernel_role"] == ("layout_transform" if "nchwToNhwc" in t["hot"]["kernel"] else "compute")


def test_window_needs_annotations(h200_trace):
    launches = kineto.join_kernels(h200_trace)
    with pytest.raises(kineto.TraceError, match="not inside a 'vxop:<n>' range"):
        kineto.window_of(launches[0], launches)
