import jax.numpy as jnp


def body(x_ref, w_ref, o_ref, *, precision=None):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)  # wall
