"""Quantisation settings shared by the model and its tests."""
import dataclasses

import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class QuantSpec:
    scale: float = 16.0
    storage_dtype: object = jnp.int8


INT8 = QuantSpec()
