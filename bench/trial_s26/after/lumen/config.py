"""The kernels' settings, read from a YAML-ish dict (or the command line: lumen.cli)."""
import dataclasses
from typing import Any

import jax.numpy as jnp
from jax import lax

# what `lumen.yaml` holds, parsed
DEFAULTS = {
    "precision": ("default", "high"),
    "accuracy": "highest",
    "dtype": "float32",
    "eps": 1e-6,
}


@dataclasses.dataclass(frozen=True)
class KernelConfig:
    precision: Any = lax.Precision.HIGHEST
    accuracy: Any = None
    dtype: Any = jnp.float32
    eps: float = 1e-6

    @classmethod
    def from_dict(cls, d):
        acc = d.get("accuracy")
        return cls(
            precision=d.get("precision", cls.precision),
            accuracy=lax.AccuracyMode[acc.upper()] if acc else None,
            dtype=jnp.dtype(d.get("dtype", "float32")),
            eps=float(d.get("eps", 1e-6)),
        )


CFG = KernelConfig.from_dict(DEFAULTS)
# the norm's settings, written out
NORM = KernelConfig(accuracy=lax.AccuracyMode.HIGHEST, eps=1e-5)
PRESET = lax.DotAlgorithmPreset.BF16_BF16_F32_X3
