"""The three workloads, behind one interface: build a model, make its inputs, run one call."""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import torch

from . import act, diffusion_policy, pi0


@dataclass(frozen=True)
class Workload:
    name: str
    module: ModuleType

    @property
    def dtype(self) -> torch.dtype:
        return self.module.DTYPE

    @property
    def configs(self):
        return self.module.CONFIGS

    def config(self, name: str | None = None):
        name = name or self.module.DEFAULT_CONFIG
        if name not in self.module.CONFIGS:
            raise ValueError(f"workload {self.name}: unknown config {name!r} "
                           f"(expected one of {sorted(self.module.CONFIGS)})")
        return self.module.CONFIGS[name]

    def build(self, cfg, device, seed: int = 0):
        """Random weights from a fixed seed; on a GPU the init runs there."""
        torch.manual_seed(seed)
        return self.module.build(cfg, device)

    def make_inputs(self, cfg, device, seed: int = 0):
        return self.module.make_inputs(cfg, device, seed)

    @staticmethod
    def infer(model, inputs):
        """One inference call, the unit of work."""
        with torch.no_grad():
            return model(**inputs)


WORKLOADS = {
    "act": Workload("act", act),
    "diffusion_policy": Workload("diffusion_policy", diffusion_policy),
    "pi0": Workload("pi0", pi0),
}


def get(name: str) -> Workload:
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r} (expected one of {sorted(WORKLOADS)})")
    return WORKLOADS[name]


def summarize_output(out: torch.Tensor) -> dict:
    if out.device.type == "meta":
        return {"shape": list(out.shape), "dtype": str(out.dtype).replace("torch.", ""), "finite": None}
    o = out.detach().float()
    return {"shape": list(out.shape), "dtype": str(out.dtype).replace("torch.", ""),
            "finite": bool(torch.isfinite(o).all()), "abs_max": float(o.abs().max()), "std": float(o.std())}
