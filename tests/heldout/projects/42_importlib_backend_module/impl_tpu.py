import jax.numpy as jnp
from jax import lax


def body(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))  # wall
