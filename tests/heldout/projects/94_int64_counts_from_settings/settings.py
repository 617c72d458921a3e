from dataclasses import dataclass

import jax.numpy as jnp


@dataclass(frozen=True)
class Settings:
    threshold: float = 0.5
    count_dtype: object = jnp.int64


SETTINGS = Settings()
