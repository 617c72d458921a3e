import jax.numpy as jnp
from jax import lax


def get_tpu_dot_precision(dtype):
    """Every branch returns one scalar Precision: Mosaic TPU lowers each."""
    if dtype == jnp.float32:
        return lax.Precision.HIGHEST
    if dtype == jnp.bfloat16:
        return lax.Precision.DEFAULT
    return lax.Precision.DEFAULT
