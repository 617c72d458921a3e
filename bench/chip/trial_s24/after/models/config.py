"""The model's knobs, in one place."""
import dataclasses

import jax.numpy as jnp

from qkern.tables import ACTIVATIONS


@dataclasses.dataclass(frozen=True)
class QuantConfig:
    qdtype: object = jnp.int8
    acc_dtype: object = jnp.int64
    act: str = "elu"
    scan_axis: int = 1


DEFAULT = QuantConfig()
ACT = ACTIVATIONS[DEFAULT.act]
