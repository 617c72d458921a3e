"""Configuration: one frozen dataclass per part, nested in ModelConfig."""
import dataclasses
from typing import Any

import jax.numpy as jnp
from jax import lax
from jax.lax import Precision


@dataclasses.dataclass(frozen=True)
class AttnConfig:
    # scores want float32-accurate queries; keys may be rounded
    precision: Any = (Precision.HIGHEST, Precision.DEFAULT)
    exp_accuracy: Any = lax.AccuracyMode.HIGHEST
    scale: float = 0.125


@dataclasses.dataclass(frozen=True)
class MlpConfig:
    proj_precision: Any = (Precision.DEFAULT, Precision.HIGH)
    up_precision: Any = (Precision.HIGH, Precision.HIGHEST)
    act_dtype: Any = jnp.float32


@dataclasses.dataclass(frozen=True)
class LstmConfig:
    hidden: int = 128
    layers: int = 1
    precision: Any = Precision.DEFAULT  # bf16 matmuls: the encoder runs in bfloat16


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    attn: AttnConfig = dataclasses.field(default_factory=AttnConfig)
    mlp: MlpConfig = dataclasses.field(default_factory=MlpConfig)
    lstm: LstmConfig = dataclasses.field(default_factory=LstmConfig)
    eps: float = 1e-6


CFG = ModelConfig()
