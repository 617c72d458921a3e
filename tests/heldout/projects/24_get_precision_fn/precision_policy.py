import jax.numpy as jnp
from jax import lax


def get_precision(dtype):
    """bf16 activations at DEFAULT; float32 keeps full-precision weights."""
    if dtype == jnp.bfloat16:
        return lax.Precision.DEFAULT
    return (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
