import jax.numpy as jnp
from jax import lax


def mixed_body(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))  # wall
