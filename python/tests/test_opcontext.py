"""Operator context from real tracked calls: kind, GEMM view, layout, conv parameters, role."""
import torch
from torch import nn

from vxsynth import opcontext, optrace


def tracked(fn):
    with optrace.OpTracker() as t:
        fn()
    return t.calls


def test_linear_addmm_view_and_layout():
    lin = nn.Linear(48, 40)
    (call,) = [c for c in tracked(lambda: lin(torch.randn(7, 48))) if c["op"] == "aten.addmm.default"]
    ctx = opcontext.context(call, ["aten::linear", "aten::addmm"], {"name": "aten::addmm"})
    assert ctx["kind"] == "linear" and ctx["gemm"] == {"batch": 1, "M": 7, "N": 40, "K": 48}
    assert ctx["layouts"] == ["contiguous", "contiguous", "transposed"] and ctx["bias"] is True
    assert ctx["math"] == "fp32"
    assert opcontext.op_kind(call, ["aten::matmul"]) == "matmul"


def test_bmm_view():
    a, b = torch.randn(3, 5, 9), torch.randn(3, 9, 11)
    (call,) = [c for c in tracked(lambda: torch.bmm(a, b)) if c["op"] == "aten.bmm.default"]
    assert opcontext.gemm_view(call, "batched_matmul") == {"batch": 3, "M": 5, "N": 11, "K": 9}


def test_conv_views():
    conv = nn.Conv2d(6, 10, 3, stride=2, padding=1, dilation=1, groups=2)
    (call,) = [c for c in tracked(lambda: conv(torch.randn(2, 6, 13, 17)))
               if c["op"] == "aten.convolution.default"]
    ctx = opcontext.context(call, [], None)
    assert ctx["kind"] == "conv2d" and ctx["layout"] == "NCHW"
    assert (ctx["stride"], ctx["padding"], ctx["groups"]) == ([2, 2], [1, 1], 2)
    assert ctx["gemm"]["output_spatial"] == [7, 9] == list(conv(torch.randn(2, 6, 13, 17)).shape[2:])
    assert ctx["gemm"]["M"] == 2 * 7 * 9 and ctx["gemm"]["N"] == 10 and ctx["gemm"]["K"] == 3 * 9
    assert ctx["math"] in ("tf32", "fp32")

    up = nn.ConvTranspose1d(8, 4, 4, stride=2, padding=1)
    x = torch.randn(1, 8, 5)
    (call,) = [c for c in tracked(lambda: up(x)) if c["op"] == "aten.convolution.default"]
    ctx = opcontext.context(call, [], None)
    assert ctx["kind"] == "conv_transpose1d" and ctx["transposed"] is True
    assert ctx["gemm"]["output_spatial"] == [up(x).shape[2]] == [10]
    assert ctx["gemm"]["K"] == 8 * 2 and ctx["gemm"]["N"] == 4


def test_other_ops_keep_their_aten_name():
    x = torch.randn(4, 9)
    (call,) = [c for c in tracked(lambda: torch.softmax(x, -1)) if "softmax" in c["op"]]
    assert opcontext.op_kind(call) == "_softmax"
    assert "gemm" not in opcontext.context(call, [], None)


def test_kernel_roles():
    assert opcontext.kernel_role("void cudnn::engines_precompiled::nchwToNhwcKernel<float>(x)", "conv1d") == "layout_transform"
    assert opcontext.kernel_role("nvjet_sm90_tst_128x272_64x4_2x1_v_bz_coopA_TNT", "linear") == "compute"
    assert opcontext.kernel_role("cublasLt::splitKreduce_kernel<32, 16, int, float>", "linear") == "split_k_reduction"
    assert opcontext.kernel_role("void at::native::reduce_kernel<512, 1>", "mean") == "compute"
