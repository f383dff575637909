"""Building blocks shared by the workload models.

Every module takes `device` and `dtype` factory arguments so that a model can be built on the
meta device (CI, no memory, shapes only) or directly on the GPU (random init runs there, fast
even for pi0's 3.2 B parameters). Only APIs present in both torch 1.13 (Debian, CPU) and torch
2.11 (GPU machine) are used.
"""
from __future__ import annotations

import torch
from torch import nn


def factory(device, dtype):
    return {"device": device, "dtype": dtype}


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm with fixed statistics and affine (torchvision's FrozenBatchNorm2d semantics)."""

    def __init__(self, channels: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.eps = eps
        self.register_buffer("weight", torch.ones(channels, **fk))
        self.register_buffer("bias", torch.zeros(channels, **fk))
        self.register_buffer("running_mean", torch.zeros(channels, **fk))
        self.register_buffer("running_var", torch.ones(channels, **fk))

    def forward(self, x):
        # Same arithmetic as torchvision: one per-channel scale and shift.
        scale = self.weight.reshape(1, -1, 1, 1) * (self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
        shift = self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale
        return x * scale + shift


def frozen_bn(channels, device=None, dtype=None):
    return FrozenBatchNorm2d(channels, device=device, dtype=dtype)


def group_norm_16(channels, device=None, dtype=None):
    """Diffusion Policy's replacement for BatchNorm: GroupNorm with channels // 16 groups."""
    return nn.GroupNorm(channels // 16, channels, device=device, dtype=dtype)


class BasicBlock(nn.Module):
    def __init__(self, c_in, c_out, stride, norm, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False, **fk)
        self.bn1 = norm(c_out, **fk)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False, **fk)
        self.bn2 = norm(c_out, **fk)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, 0, bias=False, **fk), norm(c_out, **fk))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18Trunk(nn.Module):
    """torchvision's resnet18 up to layer4 (avgpool and fc dropped), with a choice of norm layer.

    Written out here because Debian's torch has no torchvision; module names follow torchvision
    (conv1, bn1, layer1.0.conv1, ...), so the recorded module paths match the sources.
    """

    def __init__(self, norm, device=None, dtype=None, base_width=64):
        super().__init__()
        fk = factory(device, dtype)
        # torchvision's widths are 64, 128, 256, 512; a smaller base keeps the structure (reduced
        # configs for CPU tests).
        self.conv1 = nn.Conv2d(3, base_width, 7, 2, 3, bias=False, **fk)
        self.bn1 = norm(base_width, **fk)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        widths = [base_width, 2 * base_width, 4 * base_width, 8 * base_width]
        self.out_channels = widths[-1]
        c_in = base_width
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            layer = nn.Sequential(BasicBlock(c_in, w, stride, norm, **fk), BasicBlock(w, w, 1, norm, **fk))
            setattr(self, f"layer{i + 1}", layer)
            c_in = w

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        return self.layer4(self.layer3(self.layer2(self.layer1(x))))


def gelu_tanh(x):
    # F.gelu(approximate="tanh") exists only from torch 1.12; both versions here have it, but the
    # explicit keyword keeps the intent visible.
    return nn.functional.gelu(x, approximate="tanh")


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
