"""pi0 (PaliGemma 3B + 300M action expert, flow matching) at openpi's defaults, bf16.

workloads.md section 3: SigLIP So400m/14 on three 224x224 images (one at a time, as openpi and
LeRobot do), projector to 2048, Gemma-2B over the 816-token prefix (3 x 256 image tokens + 48
language tokens) with a block-causal mask that fills a KV cache, then 10 Euler steps of the
action expert (width 1024, 18 layers) on the 51 suffix tokens (state + 50 actions) attending to
[cached prefix K/V ; suffix K/V]. Attention is eager (materialised scores, K/V repeated to the 8
query heads, softmax in fp32) as in LeRobot's and openpi's PyTorch ports. bf16 everywhere except
what openpi's PyTorch port keeps in fp32: the patch/position embeddings and the RMSNorm
arithmetic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .common import factory, gelu_tanh

DTYPE = torch.bfloat16


@dataclass(frozen=True)
class VisionConfig:
    image_size: int = 224
    patch: int = 14
    width: int = 1152
    layers: int = 27
    heads: int = 16
    mlp: int = 4304


@dataclass(frozen=True)
class GemmaConfig:
    width: int
    layers: int
    mlp: int
    heads: int = 8
    kv_heads: int = 1
    head_dim: int = 256


@dataclass(frozen=True)
class Config:
    vision: VisionConfig = VisionConfig()
    llm: GemmaConfig = GemmaConfig(width=2048, layers=18, mlp=16384)
    expert: GemmaConfig = GemmaConfig(width=1024, layers=18, mlp=4096)
    vocab: int = 257152
    cameras: int = 3
    max_tokens: int = 48
    prompt_tokens: int = 20      # real tokens in the prompt; the rest of the 48 are padding
    action_dim: int = 32
    action_horizon: int = 50
    flow_steps: int = 10


CONFIGS = {
    "openpi": Config(),
    # Reduced size for numeric CPU tests: the same structure with narrow, shallow towers.
    "small": Config(
        vision=VisionConfig(image_size=28, patch=14, width=48, layers=2, heads=4, mlp=96),
        llm=GemmaConfig(width=64, layers=2, mlp=128, heads=4, head_dim=16),
        expert=GemmaConfig(width=32, layers=2, mlp=64, heads=4, head_dim=16),
        vocab=1000, max_tokens=8, prompt_tokens=5, action_horizon=6, flow_steps=3),
}
DEFAULT_CONFIG = "openpi"


def eager_attention(q, k, v, mask, scale):
    """q: (B, H, Q, D); k, v: (B, KV, S, D); mask: bool (B, 1, Q, S), True = may attend."""
    groups = q.shape[1] // k.shape[1]
    if groups > 1:
        k = k[:, :, None].expand(k.shape[0], k.shape[1], groups, *k.shape[2:]).reshape(q.shape[0], -1, *k.shape[2:])
        v = v[:, :, None].expand(v.shape[0], v.shape[1], groups, *v.shape[2:]).reshape(q.shape[0], -1, *v.shape[2:])
    scores = torch.matmul(q, k.transpose(2, 3)) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(probs, v)


# --- SigLIP -------------------------------------------------------------------------------

class SiglipLayer(nn.Module):
    def __init__(self, cfg: VisionConfig, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        w = cfg.width
        self.heads = cfg.heads
        self.layer_norm1 = nn.LayerNorm(w, eps=1e-6, **fk)
        self.q_proj = nn.Linear(w, w, **fk)
        self.k_proj = nn.Linear(w, w, **fk)
        self.v_proj = nn.Linear(w, w, **fk)
        self.out_proj = nn.Linear(w, w, **fk)
        self.layer_norm2 = nn.LayerNorm(w, eps=1e-6, **fk)
        self.fc1 = nn.Linear(w, cfg.mlp, **fk)
        self.fc2 = nn.Linear(cfg.mlp, w, **fk)

    def forward(self, x):
        b, n, w = x.shape
        d = w // self.heads
        h = self.layer_norm1(x)
        q = self.q_proj(h).view(b, n, self.heads, d).transpose(1, 2)
        k = self.k_proj(h).view(b, n, self.heads, d).transpose(1, 2)
        v = self.v_proj(h).view(b, n, self.heads, d).transpose(1, 2)
        a = eager_attention(q, k, v, None, d ** -0.5)
        x = x + self.out_proj(a.transpose(1, 2).reshape(b, n, w))
        return x + self.fc2(gelu_tanh(self.fc1(self.layer_norm2(x))))


class SiglipVision(nn.Module):
    def __init__(self, cfg: VisionConfig, out_width: int, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        fk32 = factory(device, torch.float32)
        tokens = (cfg.image_size // cfg.patch) ** 2
        self.patch_embedding = nn.Conv2d(3, cfg.width, cfg.patch, cfg.patch, **fk32)
        self.position_embedding = nn.Embedding(tokens, cfg.width, **fk32)
        self.layers = nn.ModuleList([SiglipLayer(cfg, **fk) for _ in range(cfg.layers)])
        self.post_layernorm = nn.LayerNorm(cfg.width, eps=1e-6, **fk)
        self.multi_modal_projector = nn.Linear(cfg.width, out_width, **fk)
        self.dtype = dtype

    def forward(self, image):
        x = self.patch_embedding(image).flatten(2).transpose(1, 2)     # (1, 256, width) fp32
        x = (x + self.position_embedding.weight.unsqueeze(0)).to(self.dtype)
        for layer in self.layers:
            x = layer(x)
        return self.multi_modal_projector(self.post_layernorm(x))


# --- Gemma --------------------------------------------------------------------------------

class GemmaRMSNorm(nn.Module):
    """x * rsqrt(mean(x^2) + eps) * (1 + w), computed in fp32 (weight kept in fp32)."""

    def __init__(self, width, eps=1e-6, device=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(width, device=device, dtype=torch.float32))

    def forward(self, x):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (xf * (1.0 + self.weight)).to(x.dtype)


def rope(x, positions, head_dim, max_wavelength=10000.0):
    """Rotary embedding on the full head dim; x: (B, H, S, D), positions: (B, S) int."""
    inv_freq = 1.0 / (max_wavelength ** (torch.arange(0, head_dim, 2, device=x.device, dtype=torch.float32) / head_dim))
    freqs = positions.float()[..., None] * inv_freq                    # (B, S, D/2)
    emb = torch.cat((freqs, freqs), dim=-1)[:, None]                   # (B, 1, S, D)
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    half = head_dim // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


class GemmaLayer(nn.Module):
    def __init__(self, cfg: GemmaConfig, device=None, dtype=None):
        super().__init__()
        fk = factory(device, dtype)
        self.cfg = cfg
        self.input_layernorm = GemmaRMSNorm(cfg.width, device=device)
        self.q_proj = nn.Linear(cfg.width, cfg.heads * cfg.head_dim, bias=False, **fk)
        self.k_proj = nn.Linear(cfg.width, cfg.kv_heads * cfg.head_dim, bias=False, **fk)
        self.v_proj = nn.Linear(cfg.width, cfg.kv_heads * cfg.head_dim, bias=False, **fk)
        self.o_proj = nn.Linear(cfg.heads * cfg.head_dim, cfg.width, bias=False, **fk)
        self.post_attention_layernorm = GemmaRMSNorm(cfg.width, device=device)
        self.gate_proj = nn.Linear(cfg.width, cfg.mlp, bias=False, **fk)
        self.up_proj = nn.Linear(cfg.width, cfg.mlp, bias=False, **fk)
        self.down_proj = nn.Linear(cfg.mlp, cfg.width, bias=False, **fk)

    def forward(self, x, positions, mask, cache=None):
        """cache None: prefix pass, returns (x, (k, v)). cache given: keys = [cache ; own]."""
        c = self.cfg
        b, n, _ = x.shape
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(b, n, c.heads, c.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, n, c.kv_heads, c.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, n, c.kv_heads, c.head_dim).transpose(1, 2)
        q = rope(q, positions, c.head_dim)
        k = rope(k, positions, c.head_dim)
        kv = (k, v)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        a = eager_attention(q, k, v, mask, c.head_dim ** -0.5)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, n, c.heads * c.head_dim))
        h = self.post_attention_layernorm(x)
        x = x + self.down_proj(gelu_tanh(self.gate_proj(h)) * self.up_proj(h))
        return x, kv


def block_causal_mask(ar_flags, valid):
    """Token i may attend to j iff block(j) <= block(i) and j is valid (openpi make_attn_mask)."""
    blocks = torch.cumsum(ar_flags, dim=1)
    return (blocks[:, None, :] <= blocks[:, :, None]) & valid[:, None, :]


def posemb_sincos(t, dim, min_period=4e-3, max_period=4.0):
    fraction = torch.linspace(0.0, 1.0, dim // 2, device=t.device, dtype=torch.float32)
    period = min_period * (max_period / min_period) ** fraction
    angle = (2 * math.pi / period)[None, :] * t[:, None]
    return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)


class Pi0(nn.Module):
    def __init__(self, cfg: Config, device=None, dtype=DTYPE):
        super().__init__()
        fk = factory(device, dtype)
        self.cfg = cfg
        self.dtype = dtype
        self.vision = SiglipVision(cfg.vision, cfg.llm.width, **fk)
        self.embed_tokens = nn.Embedding(cfg.vocab, cfg.llm.width, **fk)
        self.llm_layers = nn.ModuleList([GemmaLayer(cfg.llm, **fk) for _ in range(cfg.llm.layers)])
        self.llm_norm = GemmaRMSNorm(cfg.llm.width, device=device)
        self.expert_layers = nn.ModuleList([GemmaLayer(cfg.expert, **fk) for _ in range(cfg.expert.layers)])
        self.expert_norm = GemmaRMSNorm(cfg.expert.width, device=device)
        e = cfg.expert.width
        self.state_proj = nn.Linear(cfg.action_dim, e, **fk)
        self.action_in_proj = nn.Linear(cfg.action_dim, e, **fk)
        self.action_time_mlp_in = nn.Linear(2 * e, e, **fk)
        self.action_time_mlp_out = nn.Linear(e, e, **fk)
        self.action_out_proj = nn.Linear(e, cfg.action_dim, **fk)

    def embed_prefix(self, images, tokens, token_valid):
        parts = [self.vision(image) for image in images]              # 256 tokens each, one at a time
        lang = self.embed_tokens(tokens)
        parts.append(lang * math.sqrt(lang.shape[-1]))
        x = torch.cat(parts, dim=1)
        image_valid = torch.ones(1, sum(p.shape[1] for p in parts[:-1]), dtype=torch.bool, device=x.device)
        valid = torch.cat([image_valid, token_valid], dim=1)
        ar = torch.zeros(valid.shape, dtype=torch.long, device=x.device)  # one bidirectional block
        return x, valid, ar

    def forward(self, images, tokens, token_valid, state, noise):
        """images: list of (1, 3, 224, 224) fp32 in [-1, 1]; tokens/token_valid: (1, 48);
        state: (1, 32); noise: (1, 50, 32). Returns the (1, 50, 32) action chunk."""
        cfg = self.cfg
        prefix, prefix_valid, prefix_ar = self.embed_prefix(images, tokens, token_valid)
        prefix_mask = block_causal_mask(prefix_ar, prefix_valid)[:, None]
        prefix_pos = torch.cumsum(prefix_valid.long(), dim=1) - 1
        cache = []
        x = prefix
        for layer in self.llm_layers:
            x, kv = layer(x, prefix_pos, prefix_mask)
            cache.append(kv)
        self.llm_norm(x)  # computed as in the ports; the prefix's hidden states are not used

        # Suffix: state token (own block) + 50 action tokens (one block); sees the whole valid prefix.
        n_suffix = 1 + cfg.action_horizon
        suffix_ar = torch.zeros(1, n_suffix, dtype=torch.long, device=x.device)
        suffix_ar[:, :2] = 1
        suffix_valid = torch.ones(1, n_suffix, dtype=torch.bool, device=x.device)
        suffix_mask = torch.cat([
            prefix_valid[:, None, :].expand(1, n_suffix, prefix_valid.shape[1]),
            block_causal_mask(suffix_ar, suffix_valid)], dim=2)[:, None]
        suffix_pos = prefix_valid.long().sum(dim=-1, keepdim=True) + torch.cumsum(suffix_valid.long(), dim=1) - 1

        dt = -1.0 / cfg.flow_steps
        x_t = noise
        time = torch.ones(1, device=x.device, dtype=torch.float32)
        for _ in range(cfg.flow_steps):
            v_t = self.denoise_step(state, x_t, time, suffix_pos, suffix_mask, cache)
            x_t = x_t + dt * v_t
            time = time + dt
        return x_t

    def denoise_step(self, state, x_t, time, positions, mask, cache):
        cfg = self.cfg
        state_emb = self.state_proj(state.to(self.dtype))[:, None]             # (1, 1, e)
        action_emb = self.action_in_proj(x_t.to(self.dtype))                    # (1, 50, e)
        time_emb = posemb_sincos(time, cfg.expert.width).to(self.dtype)
        time_emb = time_emb[:, None].expand_as(action_emb)
        h = self.action_time_mlp_in(torch.cat([action_emb, time_emb], dim=2))
        h = self.action_time_mlp_out(nn.functional.silu(h))
        x = torch.cat([state_emb, h], dim=1)                                    # (1, 51, e)
        for layer, kv in zip(self.expert_layers, cache):
            x, _ = layer(x, positions, mask, cache=kv)
        x = self.expert_norm(x)
        return self.action_out_proj(x[:, -cfg.action_horizon:]).float()


def build(cfg: Config, device) -> Pi0:
    return Pi0(cfg, device=device).eval()


def make_inputs(cfg: Config, device, seed: int = 0):
    gen = torch.Generator(device="cpu").manual_seed(seed)
    s = cfg.vision.image_size
    images = [torch.rand(1, 3, s, s, generator=gen) * 2 - 1 for _ in range(cfg.cameras)]
    tokens = torch.randint(0, cfg.vocab, (1, cfg.max_tokens), generator=gen)
    token_valid = torch.arange(cfg.max_tokens)[None] < cfg.prompt_tokens
    state = torch.randn(1, cfg.action_dim, generator=gen)
    noise = torch.randn(1, cfg.action_horizon, cfg.action_dim, generator=gen)
    return {"images": [im.to(device) for im in images], "tokens": tokens.to(device),
            "token_valid": token_valid.to(device), "state": state.to(device), "noise": noise.to(device)}
