import jax.numpy as jnp

from numerics import REFERENCE_PRECISION


def matmul(x, w, precision=REFERENCE_PRECISION):
    return jnp.dot(x, w, precision=precision)
