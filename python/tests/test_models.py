"""Workload models: the operator calls of one inference (meta device, full size) match the layer
shapes and FLOP totals of workloads.md; the reduced-size models run on the CPU."""
import collections

import pytest
import torch

from vxsynth import models, opcontext, optrace


def gemm_signature(call):
    """(op, input shapes, conv params) of a GEMM/conv call."""
    tensors = [tuple(a["shape"]) for a in call["args"] if isinstance(a, dict) and "shape" in a]
    extra = ()
    if call["op"] == "aten.convolution.default":
        a = call["args"]
        extra = (tuple(a[3]), tuple(a[4]), tuple(a[5]), bool(a[6]), int(a[8]))
    return call["op"], tensors, extra


def count(calls, op, *shapes, extra=None):
    n = 0
    for c in optrace.gemm_calls(calls):
        o, tensors, ex = gemm_signature(c)
        if o != op:
            continue
        core = tensors[1:] if op in ("aten.addmm.default", "aten.baddbmm.default") else tensors[:2]
        if tuple(core) == tuple(shapes) and (extra is None or ex == extra):
            n += 1
    return n


def total_gflop(calls, modules=None):
    total = 0
    for c in optrace.gemm_calls(calls):
        if modules and not c["module"].startswith(modules):
            continue
        kind = opcontext.op_kind(c, ["aten::linear"])
        g = opcontext.gemm_view(c, kind)
        total += 2 * g["batch"] * g["M"] * g["N"] * g["K"]
    return total / 1e9


@pytest.mark.parametrize("name,expected,tol", [
    ("act", 34.2e6, 0.01),               # workloads.md 1.1: about 34 M run at inference
    ("diffusion_policy", 262.7e6, 0.01),  # 11.2 M + 251.5 M
    ("pi0", 3.24e9, 0.01),               # about 3.24 B
])
def test_parameter_counts(name, expected, tol):
    w = models.get(name)
    model = w.build(w.config(), "meta")
    n = sum(p.numel() for p in model.parameters())
    assert abs(n - expected) / expected < tol, n


@pytest.mark.parametrize("name,gflop", [("act", 34.93), ("diffusion_policy", 235.08), ("pi0", 4379.09)])
def test_flop_totals_match_workloads_md(meta_calls, name, gflop):
    # Sum of 2*M*N*K over every GEMM/conv call of one inference (workloads.md 1.4, 2.3, 3.5).
    assert total_gflop(meta_calls[name]) == pytest.approx(gflop, rel=2e-3)


def test_act_layer_shapes(meta_calls):
    calls = meta_calls["act"]
    conv = "aten.convolution.default"
    # ResNet-18 at 480x640: stem, 3x3 convs per stage, strided downsamples.
    assert count(calls, conv, (1, 3, 480, 640), (64, 3, 7, 7), extra=((2, 2), (3, 3), (1, 1), False, 1)) == 1
    assert count(calls, conv, (1, 64, 120, 160), (64, 64, 3, 3), extra=((1, 1), (1, 1), (1, 1), False, 1)) == 4
    assert count(calls, conv, (1, 256, 30, 40), (512, 256, 1, 1), extra=((2, 2), (0, 0), (1, 1), False, 1)) == 1
    assert count(calls, conv, (1, 512, 15, 20), (512, 512, 3, 3)) == 3
    # The 1x1 input projection 512 -> 512 on the 15x20 map, with bias.
    proj = [c for c in calls if c["module"] == "encoder_img_feat_input_proj" and c["op"] == conv]
    assert len(proj) == 1
    assert gemm_signature(proj[0])[1] == [(1, 512, 15, 20), (512, 512, 1, 1), (512,)]
    assert gemm_signature(proj[0])[2] == ((1, 1), (0, 0), (1, 1), False, 1)
    # Encoder: S = 302 tokens, separate q/k/v/out projections, FFN 512 <-> 3200, 8 heads of 64.
    assert count(calls, "aten.addmm.default", (302, 512), (512, 512)) == 4 * 4 + 2  # + decoder cross-attn k, v
    assert count(calls, "aten.addmm.default", (302, 512), (512, 3200)) == 4
    assert count(calls, "aten.addmm.default", (302, 3200), (3200, 512)) == 4
    assert count(calls, "aten.bmm.default", (8, 302, 64), (8, 64, 302)) == 4
    # One decoder layer over 100 queries; action head 512 -> 14.
    assert count(calls, "aten.addmm.default", (100, 512), (512, 512)) == 6
    assert count(calls, "aten.bmm.default", (8, 100, 64), (8, 64, 302)) == 1
    assert count(calls, "aten.addmm.default", (100, 512), (512, 14)) == 1


def test_diffusion_policy_layer_shapes(meta_calls):
    calls = meta_calls["diffusion_policy"]
    conv = "aten.convolution.default"
    k5 = ((1,), (2,), (1,), False, 1)
    # Encoder: both frames as one batch of 2 on the 84x84 crop; SpatialSoftmax keypoint conv.
    assert count(calls, conv, (2, 3, 84, 84), (64, 3, 7, 7)) == 1
    assert count(calls, conv, (2, 512, 3, 3), (32, 512, 1, 1)) == 1
    # The widest conv1d: up0.res0.conv1 4096 -> 1024, k5, T = 4, once per DDPM step.
    assert count(calls, conv, (1, 4096, 4), (1024, 4096, 5), extra=k5) == 100
    # The seven 2048 -> 2048 k5 convs at T = 4 per step.
    assert count(calls, conv, (1, 2048, 4), (2048, 2048, 5), extra=k5) == 700
    # Down/upsampling: Conv1d k3/s2 and ConvTranspose1d k4/s2.
    assert count(calls, conv, (1, 512, 16), (512, 512, 3), extra=((2,), (1,), (1,), False, 1)) == 100
    assert count(calls, conv, (1, 1024, 4), (1024, 1024, 4), extra=((2,), (1,), (1,), True, 1)) == 100
    # FiLM linears on cond_dim 260 = 128 (step embedding) + 2 * (2 + 64).
    assert count(calls, "aten.addmm.default", (1, 260), (260, 4096)) == 400
    # 100 DDPM steps, one U-Net each: the step-embedding MLP runs 100 times.
    assert count(calls, "aten.addmm.default", (1, 128), (128, 512)) == 100


def test_pi0_layer_shapes(meta_calls):
    calls = meta_calls["pi0"]
    mm = "aten.mm.default"
    # Gemma-2B MLP on the 816-token prefix: gate and up 2048 -> 16384, down 16384 -> 2048.
    assert count(calls, mm, (816, 2048), (2048, 16384)) == 36
    assert count(calls, mm, (816, 16384), (16384, 2048)) == 18
    # Multi-query attention: k/v 2048 -> 256, eight query heads of 256 over 816 keys.
    assert count(calls, mm, (816, 2048), (2048, 256)) == 36
    assert count(calls, "aten.bmm.default", (8, 816, 256), (8, 256, 816)) == 18
    # Action expert: 10 Euler steps x 18 layers on 51 tokens, attending to 816 + 51 = 867 keys.
    assert count(calls, mm, (51, 1024), (1024, 4096)) == 360
    assert count(calls, mm, (51, 4096), (4096, 1024)) == 180
    assert count(calls, "aten.bmm.default", (8, 51, 256), (8, 256, 867)) == 180
    # SigLIP: patch embedding 14x14/14 on each of 3 images, 27 layers x 3 images, MLP 1152 -> 4304.
    assert count(calls, "aten.convolution.default", (1, 3, 224, 224), (1152, 3, 14, 14),
                 extra=((14, 14), (0, 0), (1, 1), False, 1)) == 3
    assert count(calls, "aten.bmm.default", (16, 256, 72), (16, 72, 256)) == 81


def test_pi0_dtypes(meta_calls):
    calls = meta_calls["pi0"]
    gemms = optrace.gemm_calls(calls)
    dtypes = collections.Counter(a["dtype"] for c in gemms for a in c["args"] if isinstance(a, dict) and "dtype" in a)
    # bf16 everywhere except the fp32 patch embedding (openpi's PyTorch port keeps it fp32).
    fp32 = [c for c in gemms if any(isinstance(a, dict) and a.get("dtype") == "float32" for a in c["args"])]
    assert {c["module"] for c in fp32} == {"vision.patch_embedding"}
    assert dtypes["bfloat16"] > 10 * dtypes["float32"]


def test_act_and_dp_are_fp32(meta_calls):
    for name in ("act", "diffusion_policy"):
        for c in optrace.gemm_calls(meta_calls[name]):
            assert all(a["dtype"] == "float32" for a in c["args"] if isinstance(a, dict) and "dtype" in a), c


@pytest.mark.parametrize("name", ["act", "diffusion_policy", "pi0"])
def test_small_models_run_on_cpu(name):
    """Reduced-size configs compute real numbers: finite, right shape, deterministic for a seed,
    and dependent on the input (a dead path would make them constant)."""
    w = models.get(name)
    cfg = w.config("small")
    out1 = w.infer(w.build(cfg, "cpu", seed=3), w.make_inputs(cfg, "cpu", seed=5))
    out2 = w.infer(w.build(cfg, "cpu", seed=3), w.make_inputs(cfg, "cpu", seed=5))
    out3 = w.infer(w.build(cfg, "cpu", seed=3), w.make_inputs(cfg, "cpu", seed=6))
    assert torch.isfinite(out1).all()
    assert torch.allclose(out1, out2, rtol=1e-5, atol=1e-6)  # same seed, same numbers (up to BLAS threading)
    assert not torch.allclose(out1, out3)
    if name == "act":
        assert out1.shape == (1, cfg.chunk_size, cfg.action_dim)
    elif name == "diffusion_policy":
        assert out1.shape == (1, cfg.n_action_steps, cfg.action_dim)
    else:
        assert out1.shape == (1, cfg.action_horizon, cfg.action_dim)


def test_pi0_block_causal_mask():
    from vxsynth.models.pi0 import block_causal_mask
    # prefix of 3 (last one padding), state, 2 actions
    ar = torch.tensor([[0, 0, 0, 1, 1, 0]])
    valid = torch.tensor([[True, True, False, True, True, True]])
    m = block_causal_mask(ar, valid)[0]
    assert m[0, :2].all() and not m[0, 2] and not m[0, 3:].any()      # prefix: bidirectional, no suffix
    assert m[3, :2].all() and m[3, 3] and not m[3, 4:].any()          # state: prefix + itself
    assert m[4, :2].all() and m[4, 3:].all() and not m[4, 2]          # actions: everything valid
    assert (m[5] == m[4]).all()


def test_ddpm_step_recovers_clean_sample_at_t0():
    from vxsynth.models.diffusion_policy import CONFIGS, DiffusionPolicy, ddpm_schedule
    ac = ddpm_schedule(100)
    assert all(a > b for a, b in zip(ac, ac[1:])) and 0 < ac[-1] < 1e-3
    policy = DiffusionPolicy(CONFIGS["small"], device="meta")
    policy.cfg = CONFIGS["pusht"]  # 100 steps, step size 1
    gen = torch.Generator().manual_seed(0)
    x0 = torch.rand(1, 16, 2, generator=gen) * 2 - 1
    eps = torch.randn(1, 16, 2, generator=gen)
    sample = ac[0] ** 0.5 * x0 + (1 - ac[0]) ** 0.5 * eps
    prev = policy.ddpm_step(eps, 0, sample, None)
    assert torch.allclose(prev, x0, atol=1e-5)


def test_act_sine_position_embedding():
    from vxsynth.models.act import sine_position_2d
    pos = sine_position_2d(torch.zeros(1, 512, 15, 20), 512)
    assert pos.shape == (1, 512, 15, 20)
    assert pos.abs().max() <= 1.0
    # channel 0 is sin of the normalised y position, channel 256 sin of the normalised x position
    import math
    assert pos[0, 0, 0, 0].item() == pytest.approx(math.sin(2 * math.pi / 15), abs=1e-4)
    assert pos[0, 256, 0, 4].item() == pytest.approx(math.sin(2 * math.pi * 5 / 20), abs=1e-4)


def test_smoke_check_cli(capsys):
    from vxsynth.models.__main__ import main
    assert main(["--device", "cpu", "--config", "small"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["workload=act", "workload=diffusion_policy", "workload=pi0"]
    assert all("finite=True" in line for line in lines)
    assert main(["--device", "meta", "--workload", "pi0"]) == 0
    assert "parameters=3238048528" in capsys.readouterr().out
    assert main(["--device", "cpu", "--config", "nope", "--workload", "act"]) == 2


@pytest.mark.parametrize("name,full_params", [("act", 34232142), ("diffusion_policy", 262709026), ("pi0", 3238048528)])
def test_small_configs_are_reduced(name, full_params):
    """The `small` configs keep the structure with reduced widths: far fewer parameters than the
    published model (ACT's used to keep all 34.2 M, only its images were smaller)."""
    w = models.get(name)
    full = sum(p.numel() for p in w.build(w.config(), "meta").parameters())
    small = sum(p.numel() for p in w.build(w.config("small"), "meta").parameters())
    assert full == full_params
    assert small < full / 20, small


def test_act_small_narrows_backbone_and_transformer():
    w = models.get("act")
    cfg = w.config("small")
    model = w.build(cfg, "meta")
    assert sum(p.numel() for p in model.parameters()) == 226598
    assert model.backbone.out_channels == 64  # ResNet-18 widths 8, 16, 32, 64
    assert model.encoder_img_feat_input_proj.in_channels == 64
    assert model.encoder[0].linear1.out_features == cfg.dim_feedforward == 64
    assert len(model.encoder) == 4 and len(model.decoder) == 1  # the structure is kept
