import jax.numpy as jnp
from jax import lax


def mm(a, b):
    """a @ b with the weights at full precision."""
    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # wall
