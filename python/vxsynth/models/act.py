"""ACT (Action Chunking with Transformers) at LeRobot's ALOHA defaults, inference only.

Structure follows LeRobot's `ACT` module (workloads.md section 1): ResNet-18 with frozen
BatchNorm, a 1x1 input projection per camera, 4 post-norm encoder layers, 1 decoder layer
(LeRobot keeps one; the original computes 7 and uses the first), action head. The CVAE encoder
is training-only and is not built. fp32, TF32 as PyTorch's defaults (cuDNN convs TF32, matmuls
IEEE).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .common import ResNet18Trunk, factory, frozen_bn


@dataclass(frozen=True)
class Config:
    cameras: int = 1            # ALOHA sim: the single `top` camera (real ALOHA: 4)
    image_hw: tuple = (480, 640)
    state_dim: int = 14
    action_dim: int = 14
    dim_model: int = 512
    heads: int = 8
    dim_feedforward: int = 3200
    encoder_layers: int = 4
    decoder_layers: int = 1
    latent_dim: int = 32
    chunk_size: int = 100
    backbone_width: int = 64    # ResNet-18's first width (64 -> 512 channels out)


CONFIGS = {
    "aloha-sim": Config(),
    "aloha-real": Config(cameras=4),
    # Reduced size for numeric CPU tests: the same structure (ResNet-18, 4 encoder + 1 decoder
    # layers), small images and narrow widths: 0.23 M parameters instead of 34.2 M.
    "small": Config(image_hw=(64, 96), backbone_width=8, dim_model=32, heads=4, dim_feedforward=64, latent_dim=8,
                    chunk_size=20),
}
DEFAULT_CONFIG = "aloha-sim"
DTYPE = torch.float32


def sine_position_2d(feature_map, dim_model, temperature=10000.0):
    """LeRobot's 2-D sinusoidal embedding, computed in forward from the feature map's size.

    Returns (1, dim_model, H, W); y channels first, then x, each interleaved sin/cos.
    """
    eps = 1e-6
    half = dim_model // 2
    not_mask = torch.ones_like(feature_map[0, :1])  # (1, H, W)
    y_range = not_mask.cumsum(1, dtype=torch.float32)
    x_range = not_mask.cumsum(2, dtype=torch.float32)
    two_pi = 2 * math.pi
    y_range = y_range / (y_range[:, -1:, :] + eps) * two_pi
    x_range = x_range / (x_range[:, :, -1:] + eps) * two_pi
    inv_freq = temperature ** (
        2 * (torch.arange(half, dtype=torch.float32, device=feature_map.device) // 2) / half)
    x_range = x_range.unsqueeze(-1) / inv_freq
    y_range = y_range.unsqueeze(-1) / inv_freq
    pos_x = torch.stack((x_range[..., 0::2].sin(), x_range[..., 1::2].cos()), dim=-1).flatten(3)
    pos_y = torch.stack((y_range[..., 0::2].sin(), y_range[..., 1::2].cos()), dim=-1).flatten(3)
    return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


class EncoderLayer(nn.Module):
    def __init__(self, cfg: Config, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.self_attn = nn.MultiheadAttention(cfg.dim_model, cfg.heads, dropout=0.1, **fk)
        self.linear1 = nn.Linear(cfg.dim_model, cfg.dim_feedforward, **fk)
        self.linear2 = nn.Linear(cfg.dim_feedforward, cfg.dim_model, **fk)
        self.norm1 = nn.LayerNorm(cfg.dim_model, **fk)
        self.norm2 = nn.LayerNorm(cfg.dim_model, **fk)

    def forward(self, x, pos):
        q = k = x + pos
        # need_weights left at its default (True), as LeRobot calls it: explicit bmm/softmax path.
        x = x + self.self_attn(q, k, value=x)[0]
        x = self.norm1(x)
        x = x + self.linear2(torch.relu(self.linear1(x)))
        return self.norm2(x)


class DecoderLayer(nn.Module):
    def __init__(self, cfg: Config, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.self_attn = nn.MultiheadAttention(cfg.dim_model, cfg.heads, dropout=0.1, **fk)
        self.multihead_attn = nn.MultiheadAttention(cfg.dim_model, cfg.heads, dropout=0.1, **fk)
        self.linear1 = nn.Linear(cfg.dim_model, cfg.dim_feedforward, **fk)
        self.linear2 = nn.Linear(cfg.dim_feedforward, cfg.dim_model, **fk)
        self.norm1 = nn.LayerNorm(cfg.dim_model, **fk)
        self.norm2 = nn.LayerNorm(cfg.dim_model, **fk)
        self.norm3 = nn.LayerNorm(cfg.dim_model, **fk)

    def forward(self, x, memory, decoder_pos, memory_pos):
        q = k = x + decoder_pos
        x = self.norm1(x + self.self_attn(q, k, value=x)[0])
        x = x + self.multihead_attn(query=x + decoder_pos, key=memory + memory_pos, value=memory)[0]
        x = self.norm2(x)
        x = x + self.linear2(torch.relu(self.linear1(x)))
        return self.norm3(x)


class ACT(nn.Module):
    def __init__(self, cfg: Config, device=None, dtype=DTYPE):
        super().__init__()
        fk = factory(device, dtype)
        self.cfg = cfg
        d = cfg.dim_model
        self.backbone = ResNet18Trunk(frozen_bn, base_width=cfg.backbone_width, **fk)
        self.encoder_img_feat_input_proj = nn.Conv2d(self.backbone.out_channels, d, kernel_size=1, **fk)
        self.encoder_latent_input_proj = nn.Linear(cfg.latent_dim, d, **fk)
        self.encoder_robot_state_input_proj = nn.Linear(cfg.state_dim, d, **fk)
        self.encoder_1d_feature_pos_embed = nn.Embedding(2, d, **fk)
        self.encoder = nn.ModuleList([EncoderLayer(cfg, **fk) for _ in range(cfg.encoder_layers)])
        self.decoder = nn.ModuleList([DecoderLayer(cfg, **fk) for _ in range(cfg.decoder_layers)])
        self.decoder_norm = nn.LayerNorm(d, **fk)
        self.decoder_pos_embed = nn.Embedding(cfg.chunk_size, d, **fk)
        self.action_head = nn.Linear(d, cfg.action_dim, **fk)
        # Dataset normalisation (LeRobot's MEAN_STD for images and state), applied inside the call.
        self.register_buffer("image_mean", torch.full((1, 3, 1, 1), 0.45, **fk))
        self.register_buffer("image_std", torch.full((1, 3, 1, 1), 0.25, **fk))

    def forward(self, images, state):
        """images: list of (1, 3, H, W) fp32 in [0, 1], one per camera; state: (1, state_dim)."""
        cfg = self.cfg
        latent = torch.zeros(1, cfg.latent_dim, dtype=state.dtype, device=state.device)
        tokens = [self.encoder_latent_input_proj(latent), self.encoder_robot_state_input_proj(state)]
        tokens = [torch.stack(tokens, dim=0)]                      # (2, 1, d)
        pos = [self.encoder_1d_feature_pos_embed.weight.unsqueeze(1)]  # (2, 1, d)
        for image in images:
            image = (image - self.image_mean) / self.image_std
            features = self.backbone(image)                        # (1, 512, H/32, W/32)
            cam_pos = sine_position_2d(features, cfg.dim_model).to(features.dtype)
            features = self.encoder_img_feat_input_proj(features)
            tokens.append(features.flatten(2).permute(2, 0, 1))    # (HW, 1, d)
            pos.append(cam_pos.flatten(2).permute(2, 0, 1))
        x = torch.cat(tokens, dim=0)
        pos = torch.cat(pos, dim=0)
        for layer in self.encoder:
            x = layer(x, pos)
        decoder_pos = self.decoder_pos_embed.weight.unsqueeze(1)   # (chunk, 1, d)
        y = torch.zeros_like(decoder_pos)
        for layer in self.decoder:
            y = layer(y, x, decoder_pos, pos)
        y = self.decoder_norm(y)
        return self.action_head(y.transpose(0, 1))                 # (1, chunk, action_dim)


def build(cfg: Config, device) -> ACT:
    return ACT(cfg, device=device).eval()


def make_inputs(cfg: Config, device, seed: int = 0):
    gen = torch.Generator(device="cpu").manual_seed(seed)
    h, w = cfg.image_hw
    images = [torch.rand(1, 3, h, w, generator=gen) for _ in range(cfg.cameras)]
    state = torch.randn(1, cfg.state_dim, generator=gen)
    return {"images": [im.to(device) for im in images], "state": state.to(device)}
