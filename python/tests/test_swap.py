"""vxsynth.swap on the CPU: matching, ABI marshalling (through a stub candidate that computes the
op on host pointers), fallback, the dispatch log, and the errors a user meets."""
import ctypes
import json
import os
import sys
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from vxsynth import models, swap

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "suite" / "vx-robotics" / "h200"


def _cc(tmp_path, name, *defines):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("no C compiler: scripts/install-deps installs gcc")
    out = tmp_path / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", *defines, "-I", str(REPO / "src" / "gpu" / "abi"),
                    str(Path(__file__).parent / "data" / "stub_candidate.c"), "-o", str(out)], check=True)
    return out


@pytest.fixture(scope="module")
def stub(tmp_path_factory):
    return _cc(tmp_path_factory.mktemp("stub"), "stub")


class Recorder(torch.utils._python_dispatch.TorchDispatchMode):
    """Records the CallKey of every intercepted call, to make pairs for arbitrary test calls."""
    def __init__(self):
        super().__init__()
        self.keys = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in swap.INTERCEPTED:
            self.keys.append(swap.CallKey.of_call(func, args))
        return func(*args, **(kwargs or {}))


def pair_for(fn, so, name="p"):
    with Recorder() as rec:
        fn()
    assert rec.keys, "the call reached no intercepted ATen op"
    return swap.Pair(name, rec.keys[:1], so)


def test_abi_struct_layout_matches_the_c_header(stub):
    lib = ctypes.CDLL(str(stub))
    lib.vxsynth_stub_sizeof_problem.restype = ctypes.c_size_t
    lib.vxsynth_stub_sizeof_buffers.restype = ctypes.c_size_t
    lib.vxsynth_stub_offset.restype = ctypes.c_size_t
    assert lib.vxsynth_stub_sizeof_problem() == ctypes.sizeof(swap.Problem)
    assert lib.vxsynth_stub_sizeof_buffers() == ctypes.sizeof(swap.Buffers)
    fields = [swap.Problem.op_kind, swap.Problem.precision, swap.Problem.m, swap.Problem.transpose_b,
              swap.Problem.batch, swap.Problem.b_batch_stride, swap.Problem.batch_count, swap.Problem.n_img,
              swap.Problem.groups, swap.Buffers.workspace_bytes]
    for i, f in enumerate(fields):
        assert lib.vxsynth_stub_offset(i) == f.offset, f"field {i}"


def test_real_reference_matches_the_models_call_and_the_candidate_computes_it(stub):
    # act-1's reference: F.linear 302x512 -> 512 fp32 with bias, dispatched as aten.addmm
    pair = swap.Pair.from_folder(SUITE / "act-1-linear", stub)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(302, 512, generator=g)
    lin = torch.nn.Linear(512, 512)
    with swap.Swap([pair], allow_cpu=True) as s:
        y = lin(x)
    assert [r.decision for r in s.log] == ["swapped"], [r.as_dict() for r in s.log]
    assert s.log[0].pair == "act-1-linear" and s.log[0].copied == []
    torch.testing.assert_close(y, F.linear(x, lin.weight, lin.bias), rtol=1e-5, atol=1e-5)
    # another shape goes to the original operator, with the reason logged
    with swap.Swap([pair], allow_cpu=True) as s:
        lin(torch.randn(301, 512, generator=g))
    assert s.log[0].decision == "original" and "no pair" in s.log[0].reason


@pytest.mark.parametrize("transpose_b", [False, True])
def test_batched_matmul_with_transposed_and_broadcast_operands(stub, transpose_b):
    g = torch.Generator().manual_seed(5)
    a = torch.randn(3, 7, 13, generator=g)
    b = torch.randn(3, 11, 13, generator=g).transpose(1, 2) if transpose_b else torch.randn(3, 13, 11, generator=g)
    pair = pair_for(lambda: torch.bmm(a, b), stub)
    with swap.Swap([pair], allow_cpu=True) as s:
        y = torch.matmul(a, b)
    assert s.log[0].decision == "swapped"
    torch.testing.assert_close(y, torch.bmm(a, b), rtol=1e-5, atol=1e-5)
    # a strided A (rows not dense) is copied, and the copy is named in the log
    a_strided = torch.randn(3, 7, 26, generator=g)[:, :, ::2]
    pair = pair_for(lambda: torch.bmm(a_strided, b), stub)
    with swap.Swap([pair], allow_cpu=True) as s:
        y = torch.bmm(a_strided, b)
    assert s.log[0].copied == ["a"]
    torch.testing.assert_close(y, torch.bmm(a_strided.contiguous(), b), rtol=1e-5, atol=1e-5)


def test_convolutions(stub):
    g = torch.Generator().manual_seed(9)
    x1, w1, b1 = torch.randn(2, 6, 17, generator=g), torch.randn(10, 3, 5, generator=g), torch.randn(10, generator=g)
    x2, w2 = torch.randn(1, 4, 9, 11, generator=g), torch.randn(5, 4, 3, 3, generator=g)
    cases = [lambda: F.conv1d(x1, w1, b1, stride=2, padding=2, groups=2),
             lambda: F.conv2d(x2, w2, None, stride=(2, 1), padding=(1, 2), dilation=(1, 2))]
    for fn in cases:
        with torch.backends.cudnn.flags(allow_tf32=False):
            pair = pair_for(fn, stub)
            expected = fn()
            with swap.Swap([pair], allow_cpu=True) as s:
                y = fn()
        assert s.log[0].decision == "swapped", s.log[0].as_dict()
        torch.testing.assert_close(y, expected, rtol=1e-5, atol=1e-5)


def test_math_mode_is_part_of_the_match(stub):
    x, w = torch.randn(5, 8), torch.randn(4, 8)
    with torch.backends.cudnn.flags(allow_tf32=False):
        pass
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        pair = pair_for(lambda: F.linear(x, w), stub)
        torch.backends.cuda.matmul.allow_tf32 = True   # the same call now runs TF32: another op
        with swap.Swap([pair], allow_cpu=True) as s:
            F.linear(x, w)
        assert s.log[0].decision == "original"
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def test_declined_call_falls_back_and_is_logged(tmp_path):
    so = _cc(tmp_path, "decline", "-DSTUB_DECLINE")
    x, w = torch.randn(5, 8), torch.randn(4, 8)
    pair = pair_for(lambda: F.linear(x, w), so)
    with swap.Swap([pair], allow_cpu=True) as s:
        y = F.linear(x, w)
    assert s.log[0].decision == "declined"
    torch.testing.assert_close(y, x @ w.t())


def test_check_mode_keeps_both_outputs(stub):
    x, w = torch.randn(6, 9), torch.randn(3, 9)
    pair = pair_for(lambda: F.linear(x, w), stub)
    with swap.Swap([pair], allow_cpu=True, check=True) as s:
        for _ in range(3):
            F.linear(x, w)
    kept = s.checked["p"]
    assert len(kept) == 3 and "candidate" in kept[0] and "candidate" not in kept[2]
    assert kept[0]["max_abs_diff"] < 1e-5
    assert s.counts() == {"p": 3}


def test_errors_name_the_file_and_what_to_do(tmp_path, stub, monkeypatch):
    x, w = torch.randn(5, 8), torch.randn(4, 8)
    missing = swap.Pair("gone", pair_for(lambda: F.linear(x, w), stub).keys, tmp_path / "nope.so")
    with pytest.raises(swap.SwapError, match="nope.so: candidate shared object not found"):
        with swap.Swap([missing], allow_cpu=True):
            F.linear(x, w)
    (tmp_path / "empty.c").write_text("int unrelated(void) { return 0; }\n")
    foreign = tmp_path / "foreign.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(tmp_path / "empty.c"), "-o", str(foreign)], check=True)
    with pytest.raises(swap.SwapError, match="exports no vxsynth_candidate_launch"):
        swap.Candidate(foreign, check_arch=False)
    with pytest.raises(swap.SwapError, match="no reference.json"):
        swap.Pair.from_folder(tmp_path)
    # two pairs claiming one call
    with pytest.raises(swap.SwapError, match="both claim"):
        swap.Swap([missing, swap.Pair("other", missing.keys, stub)])


def _fatbin_so(tmp_path, arch):
    # A shared object whose .nv_fatbin holds one ELF entry for `arch`, laid out as nvcc does
    # (fat binary header, entry header with kind 2 and the SM number at byte 28).
    entry = bytearray(64)
    entry[0:2], entry[4:8], entry[8:16] = (2).to_bytes(2, "little"), (64).to_bytes(4, "little"), (0).to_bytes(8, "little")
    entry[28:32] = arch.to_bytes(4, "little")
    blob = (0xBA55ED50).to_bytes(4, "little") + (1).to_bytes(2, "little") + (16).to_bytes(2, "little") + \
        len(entry).to_bytes(8, "little") + bytes(entry)
    src = tmp_path / f"fat{arch}.c"
    src.write_text('__attribute__((section(".nv_fatbin"), used)) const unsigned char fb[] = {' +
                   ",".join(str(b) for b in blob) + "};\n")
    so = tmp_path / f"fat{arch}.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(src), "-o", str(so)], check=True)
    return so


def test_candidate_built_for_another_gpu_is_refused(tmp_path, monkeypatch):
    so = _fatbin_so(tmp_path, 80)
    assert swap.cubin_archs(so) == {80}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA H200")
    with pytest.raises(swap.SwapError, match=r"built for sm_80, but this GPU \(NVIDIA H200\) is sm_90"):
        swap.Candidate(so)


def test_real_nvcc_object_archs(tmp_path):
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if nvcc is None:
        # nvcc is a dependency of `make test` (docs/development.md): missing, this fails unless
        # VXSYNTH_ALLOW_MISSING_NVCC=1 says this machine cannot have it.
        why = "nvcc not installed: the fat-binary reader is checked on a synthetic object only"
        if os.environ.get("VXSYNTH_ALLOW_MISSING_NVCC") == "1":
            pytest.skip(why)
        pytest.fail(why + " (set VXSYNTH_ALLOW_MISSING_NVCC=1 to skip)")
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[0] = 1; }\n")
    so = tmp_path / "k.so"
    subprocess.run([nvcc, "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90", "-shared",
                    "-Xcompiler", "-fPIC", str(tmp_path / "k.cu"), "-o", str(so)], check=True)
    assert swap.cubin_archs(so) == {80, 90}


def test_whole_model_with_a_swapped_layer_and_the_exact_mode(stub):
    w = models.get("act")
    cfg = w.config("small")
    model = w.build(cfg, "cpu")
    inputs = w.make_inputs(cfg, "cpu")
    with Recorder() as rec:
        ref = w.infer(model, inputs)
    fp32 = [k for k in rec.keys if k.op == "aten.addmm.default" and k.dtypes[0] == "float32"]
    assert fp32, "ACT small makes fp32 addmm calls"
    pair = swap.Pair("act-x", [fp32[0]], stub)
    with swap.Swap([pair], allow_cpu=True) as s:
        out = w.infer(model, inputs)
    n = sum(1 for k in rec.keys if k == fp32[0])
    assert s.counts() == {"act-x": n}
    assert len(s.log) == len(rec.keys)
    torch.testing.assert_close(swap._final_tensor(out), swap._final_tensor(ref), rtol=1e-4, atol=1e-4)
    with swap.Exact([pair]) as e:
        exact = w.infer(model, inputs)
    assert e.count == n
    bound = swap.output_bound(swap._final_tensor(ref), swap._final_tensor(exact))
    assert bound > 0
    assert float((swap._final_tensor(out) - swap._final_tensor(ref)).abs().max()) <= bound


def test_profile_rows_are_split_by_marker_windows():
    fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)"
    rows = [{"ID": "0", "Kernel Name": fill},
            {"ID": "1", "Kernel Name": "<unnamed>::pad_a(<unnamed>::Params)", "gpu__time_duration.sum": "900"},
            {"ID": "2", "Kernel Name": "<unnamed>::gemm(<unnamed>::Params, <unnamed>::Tensors)", "gpu__time_duration.sum": "500"},
            {"ID": "3", "Kernel Name": "<unnamed>::reduce_split_k(<unnamed>::Params)", "gpu__time_duration.sum": "100"},
            {"ID": "4", "Kernel Name": fill},
            {"ID": "5", "Kernel Name": "conv_body(Params)", "gpu__time_duration.sum": "1,200"},
            {"ID": "6", "Kernel Name": "conv_tail(Params)", "gpu__time_duration.sum": "300"}]
    per = swap.split_windows(rows, ["a", "b"])
    assert [r["ID"] for r in per["a"]] == ["1", "2", "3"] and [r["ID"] for r in per["b"]] == ["5", "6"]
    assert swap.primary_row(per["a"])["ID"] == "2"      # the GEMM body, not the longer padding pass
    assert swap.primary_row(per["b"])["ID"] == "5"      # else the longest ("1,200" ns as ncu prints it)
    with pytest.raises(swap.SwapError, match="before the first marker"):
        swap.split_windows(rows[1:], ["a", "b"])
    with pytest.raises(swap.SwapError, match="child opened 1"):
        swap.split_windows(rows, ["a"])


def test_command_runs_act_with_a_swapped_pair_on_the_cpu(stub, vxsynth_bin, tmp_path):
    """The whole command on the CPU (the stub computes on host pointers): gen's op spec, the
    per-call check through `vxsynth check`, the final-output bound, the exit code and the JSON."""
    out = tmp_path / "swap"
    proc = subprocess.run([sys.executable, "-m", "vxsynth.swap", "--model", "act", "--suite", str(SUITE), "--device", "cpu",
                           "--vxsynth", vxsynth_bin, "--out", str(out), "--only", "act-4-linear",
                           "--so", f"act-4-linear={stub}", "--json", str(tmp_path / "swap.json")],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO / "python")))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "swap.json").read_text())
    swapped = [r for r in report["log"] if r["decision"] == "swapped"]
    assert swapped and all(r["pair"] == "act-4-linear" for r in swapped)
    check = report["checks"]["act-4-linear"]
    assert check["passed"] and 0 < check["worst_ratio"] < 1
    assert report["final"]["change"] <= report["final"]["bound"]
    assert "act-4-linear" in proc.stdout and "within" in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "vxsynth.swap", "--model", "act", "--suite", str(SUITE), "--device", "cpu",
                          "--vxsynth", vxsynth_bin, "--out", str(out), "--only", "act-9-nothing"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO / "python")))
    assert bad.returncode == 2 and "act-9-nothing: not a swappable benchmark" in bad.stderr
