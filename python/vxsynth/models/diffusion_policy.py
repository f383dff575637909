"""Diffusion Policy (CNN / 1-D conditional U-Net) at LeRobot's classic PushT defaults.

workloads.md section 2: ResNet-18 with GroupNorm(C/16) and SpatialSoftmax(32 keypoints) on an
84x84 centre crop of both observation frames (one batch of 2), a 1-D conditional U-Net with
down_dims (512, 1024, 2048), kernel 5, GroupNorm(8), FiLM scale+bias, and 100 DDPM steps
(squaredcos_cap_v2, epsilon prediction, clip to [-1, 1], fixed_small variance) written out by
hand (diffusers is not a dependency). One call = encoder once + 100 U-Net passes + 100
scheduler steps. fp32, TF32 as PyTorch's defaults.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from .common import ResNet18Trunk, factory, group_norm_16


@dataclass(frozen=True)
class Config:
    image_hw: tuple = (96, 96)
    crop_hw: tuple = (84, 84)
    n_obs_steps: int = 2
    horizon: int = 16
    n_action_steps: int = 8
    state_dim: int = 2
    action_dim: int = 2
    keypoints: int = 32
    down_dims: tuple = (512, 1024, 2048)
    kernel_size: int = 5
    n_groups: int = 8
    step_embed_dim: int = 128
    train_timesteps: int = 100
    inference_steps: int = 100


CONFIGS = {
    "pusht": Config(),
    # Reduced size for numeric CPU tests.
    "small": Config(down_dims=(32, 64, 128), step_embed_dim=16, train_timesteps=100, inference_steps=3),
}
DEFAULT_CONFIG = "pusht"
DTYPE = torch.float32


class SpatialSoftmax(nn.Module):
    """1x1 keypoint conv, softmax over positions, expected (x, y) per keypoint."""

    def __init__(self, channels, feature_hw, keypoints, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.nets = nn.Conv2d(channels, keypoints, kernel_size=1, **fk)
        self.keypoints = keypoints
        h, w = feature_hw
        pos_x, pos_y = torch.meshgrid(torch.linspace(-1.0, 1.0, w), torch.linspace(-1.0, 1.0, h), indexing="xy")
        grid = torch.cat([pos_x.reshape(h * w, 1), pos_y.reshape(h * w, 1)], dim=1)
        self.register_buffer("pos_grid", grid.to(device=device, dtype=dtype))

    def forward(self, features):
        features = self.nets(features)
        features = features.reshape(-1, features.shape[2] * features.shape[3])  # (B*K, H*W)
        attention = F.softmax(features, dim=-1)
        expected_xy = attention @ self.pos_grid                                   # (B*K, 2)
        return expected_xy.view(-1, self.keypoints, 2)


class RgbEncoder(nn.Module):
    def __init__(self, cfg: Config, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.cfg = cfg
        self.backbone = ResNet18Trunk(group_norm_16, **fk)
        feature_hw = tuple(_resnet_out(s) for s in cfg.crop_hw)
        self.pool = SpatialSoftmax(512, feature_hw, cfg.keypoints, **fk)
        self.out = nn.Linear(cfg.keypoints * 2, cfg.keypoints * 2, **fk)
        self.relu = nn.ReLU()

    def forward(self, x):
        h, w = x.shape[-2:]
        ch, cw = self.cfg.crop_hw
        top, left = (h - ch) // 2, (w - cw) // 2
        x = x[..., top:top + ch, left:left + cw]  # eval-time centre crop
        x = torch.flatten(self.pool(self.backbone(x)), start_dim=1)
        return self.relu(self.out(x))


def _resnet_out(size):
    size = (size + 2 * 3 - 7) // 2 + 1        # conv1 7x7/2 p3
    size = (size + 2 * 1 - 3) // 2 + 1        # maxpool 3x3/2 p1
    for _ in range(3):                        # layer2..4 stride 2 (3x3 p1)
        size = (size + 2 * 1 - 3) // 2 + 1
    return size


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        scale = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, device=t.device) * -scale)
        emb = t.unsqueeze(-1) * freqs.unsqueeze(0)
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class Conv1dBlock(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, n_groups, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.block = nn.Sequential(
            nn.Conv1d(c_in, c_out, kernel_size, padding=kernel_size // 2, **fk),
            nn.GroupNorm(n_groups, c_out, **fk),
            nn.Mish(),
        )

    def forward(self, x):
        return self.block(x)


class ResidualBlock1d(nn.Module):
    def __init__(self, c_in, c_out, cond_dim, cfg: Config, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.c_out = c_out
        self.conv1 = Conv1dBlock(c_in, c_out, cfg.kernel_size, cfg.n_groups, **fk)
        self.cond_encoder = nn.Sequential(nn.Mish(), nn.Linear(cond_dim, 2 * c_out, **fk))  # FiLM scale+bias
        self.conv2 = Conv1dBlock(c_out, c_out, cfg.kernel_size, cfg.n_groups, **fk)
        self.residual_conv = nn.Conv1d(c_in, c_out, 1, **fk) if c_in != c_out else nn.Identity()

    def forward(self, x, cond):
        out = self.conv1(x)
        film = self.cond_encoder(cond).unsqueeze(-1)
        out = film[:, :self.c_out] * out + film[:, self.c_out:]
        out = self.conv2(out)
        return out + self.residual_conv(x)


class ConditionalUnet1d(nn.Module):
    def __init__(self, cfg: Config, global_cond_dim, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        e = cfg.step_embed_dim
        self.diffusion_step_encoder = nn.Sequential(
            SinusoidalPosEmb(e), nn.Linear(e, 4 * e, **fk), nn.Mish(), nn.Linear(4 * e, e, **fk))
        cond_dim = e + global_cond_dim
        dims = (cfg.action_dim,) + tuple(cfg.down_dims)
        in_out = list(zip(dims[:-1], dims[1:]))
        self.down_modules = nn.ModuleList()
        for i, (c_in, c_out) in enumerate(in_out):
            last = i == len(in_out) - 1
            self.down_modules.append(nn.ModuleList([
                ResidualBlock1d(c_in, c_out, cond_dim, cfg, **fk),
                ResidualBlock1d(c_out, c_out, cond_dim, cfg, **fk),
                nn.Conv1d(c_out, c_out, 3, 2, 1, **fk) if not last else nn.Identity(),
            ]))
        mid = cfg.down_dims[-1]
        self.mid_modules = nn.ModuleList([ResidualBlock1d(mid, mid, cond_dim, cfg, **fk) for _ in range(2)])
        self.up_modules = nn.ModuleList()
        for i, (c_out, c_in) in enumerate(reversed(in_out[1:])):
            last = i >= len(in_out) - 1
            self.up_modules.append(nn.ModuleList([
                ResidualBlock1d(c_in * 2, c_out, cond_dim, cfg, **fk),
                ResidualBlock1d(c_out, c_out, cond_dim, cfg, **fk),
                nn.ConvTranspose1d(c_out, c_out, 4, 2, 1, **fk) if not last else nn.Identity(),
            ]))
        self.final_conv = nn.Sequential(
            Conv1dBlock(cfg.down_dims[0], cfg.down_dims[0], cfg.kernel_size, cfg.n_groups, **fk),
            nn.Conv1d(cfg.down_dims[0], cfg.action_dim, 1, **fk),
        )

    def forward(self, x, timestep, global_cond):
        x = x.transpose(1, 2)                                   # (B, action_dim, T)
        cond = torch.cat([self.diffusion_step_encoder(timestep), global_cond], dim=-1)
        skips = []
        for res1, res2, down in self.down_modules:
            x = res2(res1(x, cond), cond)
            skips.append(x)
            x = down(x)
        for block in self.mid_modules:
            x = block(x, cond)
        for res1, res2, up in self.up_modules:
            x = torch.cat((x, skips.pop()), dim=1)
            x = up(res2(res1(x, cond), cond))
        return self.final_conv(x).transpose(1, 2)


def ddpm_schedule(train_timesteps):
    """squaredcos_cap_v2 betas -> cumulative alphas, as Python floats (diffusers keeps them on the CPU)."""
    def alpha_bar(t):
        return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2
    betas = [min(1 - alpha_bar((i + 1) / train_timesteps) / alpha_bar(i / train_timesteps), 0.999)
             for i in range(train_timesteps)]
    alphas_cumprod, acc = [], 1.0
    for b in betas:
        acc *= 1.0 - b
        alphas_cumprod.append(acc)
    return alphas_cumprod


class DiffusionPolicy(nn.Module):
    def __init__(self, cfg: Config, device=None, dtype=DTYPE):
        super().__init__()
        fk = factory(device, dtype)
        self.cfg = cfg
        self.rgb_encoder = RgbEncoder(cfg, **fk)
        global_cond_dim = cfg.n_obs_steps * (cfg.state_dim + 2 * cfg.keypoints)
        self.unet = ConditionalUnet1d(cfg, global_cond_dim, **fk)
        self.alphas_cumprod = ddpm_schedule(cfg.train_timesteps)

    def ddpm_step(self, eps, t, sample, generator):
        """diffusers DDPMScheduler.step: epsilon prediction, clip_sample, fixed_small variance."""
        ac = self.alphas_cumprod
        step = self.cfg.train_timesteps // self.cfg.inference_steps
        prev_t = t - step
        a_t = ac[t]
        a_prev = ac[prev_t] if prev_t >= 0 else 1.0
        b_t, b_prev = 1 - a_t, 1 - a_prev
        cur_alpha = a_t / a_prev
        cur_beta = 1 - cur_alpha
        x0 = ((sample - b_t ** 0.5 * eps) / a_t ** 0.5).clamp(-1.0, 1.0)
        prev = (a_prev ** 0.5 * cur_beta / b_t) * x0 + (cur_alpha ** 0.5 * b_prev / b_t) * sample
        if t > 0:
            variance = max(b_prev / b_t * cur_beta, 1e-20)
            noise = torch.randn(sample.shape, generator=generator, device=sample.device, dtype=sample.dtype)
            prev = prev + variance ** 0.5 * noise
        return prev

    def forward(self, images, state, noise, generator=None):
        """images: (1, n_obs, 3, H, W) in [0, 1]; state: (1, n_obs, state_dim); noise: (1, horizon, action_dim)."""
        cfg = self.cfg
        b, n = images.shape[:2]
        features = self.rgb_encoder(images.reshape(b * n, *images.shape[2:]))   # both frames, one batch
        global_cond = torch.cat([state, features.reshape(b, n, -1)], dim=-1).flatten(start_dim=1)
        sample = noise
        step = cfg.train_timesteps // cfg.inference_steps
        for t in range(cfg.train_timesteps - step, -1, -step):
            timestep = torch.full((b,), t, dtype=torch.long, device=sample.device)
            eps = self.unet(sample, timestep, global_cond)
            sample = self.ddpm_step(eps, t, sample, generator)
        start = cfg.n_obs_steps - 1
        return sample[:, start:start + cfg.n_action_steps]


def build(cfg: Config, device) -> DiffusionPolicy:
    return DiffusionPolicy(cfg, device=device).eval()


def make_inputs(cfg: Config, device, seed: int = 0):
    gen = torch.Generator(device="cpu").manual_seed(seed)
    h, w = cfg.image_hw
    images = torch.rand(1, cfg.n_obs_steps, 3, h, w, generator=gen)
    state = torch.randn(1, cfg.n_obs_steps, cfg.state_dim, generator=gen)
    noise = torch.randn(1, cfg.horizon, cfg.action_dim, generator=gen)
    step_gen = None
    if torch.device(device).type != "meta":
        step_gen = torch.Generator(device=device).manual_seed(seed + 1)
    return {"images": images.to(device), "state": state.to(device), "noise": noise.to(device),
            "generator": step_gen}
