import jax.numpy as jnp
from jax import lax

PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)


def xla_matmul(x, w):
    """Plain XLA: honours the pair."""
    return jnp.dot(x, w, precision=PAIR)


def kernel_body(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # wall


IMPLEMENTATIONS = (xla_matmul, kernel_body)
