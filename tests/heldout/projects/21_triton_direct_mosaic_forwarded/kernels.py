import jax.numpy as jnp
from jax import lax

PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value


def rowwise_dot(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PAIR)  # wall
