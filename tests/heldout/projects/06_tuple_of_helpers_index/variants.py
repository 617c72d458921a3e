import jax.numpy as jnp
from jax import lax


def plain(a, b):
    return a @ b


def accurate_weights(a, b):
    return jnp.dot(a, b, precision=(lax.Precision.HIGH, lax.Precision.HIGHEST))  # wall


DOT_VARIANTS = (plain, accurate_weights)
