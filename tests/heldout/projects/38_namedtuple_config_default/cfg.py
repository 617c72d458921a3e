from typing import Any, NamedTuple

from jax import lax


class MatmulSpec(NamedTuple):
    tile: int = 8
    precision: Any = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
