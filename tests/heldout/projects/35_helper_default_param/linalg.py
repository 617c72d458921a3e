import jax.numpy as jnp
from jax import lax


def mm(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)):  # value
    return jnp.dot(a, b, precision=precision)  # wall
