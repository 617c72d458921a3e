"""Kernel configurations, as the models pass them."""
import dataclasses
from typing import Any

from jax import lax


@dataclasses.dataclass(frozen=True)
class MatmulConfig:
    precision: Any = lax.Precision.DEFAULT
    scale: float = 1.0


@dataclasses.dataclass(frozen=True)
class ActConfig:
    hint: dict = dataclasses.field(default_factory=dict)
